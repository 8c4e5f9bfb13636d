"""The per-project observation store: what was decided, fixed and learned, shared by every chat.

Submodules: model (the records and their cleaning), store (SQLite file, WAL, FTS5), migrations
(named schema steps), scope (git branch visibility), ancestry (cached "is C an ancestor of
HEAD"), recall (ranking, briefing, one-line rendering), capture (redaction, dedup, map
promotion), export (Markdown and JSON), dates (dates named in queries), access (opening a
project's store), revisions (hand edits and explicit supersession). Nothing here knows of
hooks, the CLI, MCP or providers; importing this package imports nothing else.
"""
