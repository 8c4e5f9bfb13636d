"""The current task of a chat: its goal, what is done and what comes next.

Submodules: model (the record, its file <chat dir>/task.json, its rendering; standard library
only, read on the hook fast path), derive (the record brought up to date from one exchange, in
code) and cues (what one sentence says: a request, finished work, a next step). derive reads
texts with the local extractor's sentence splitter; nothing here knows of hooks, the CLI, MCP
or model calls, and importing this package imports nothing else.
"""
