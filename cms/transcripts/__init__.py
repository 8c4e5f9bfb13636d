"""Reading agent transcripts (Claude Code, Codex) into exchanges, and redacting secrets.

Modules: jsonl (file access), turns (the latest turn and its number), claude_code and codex
(each format), reader (either), cleanup and exchange (the result), redact and redact_rules.
"""
