"""Reading agent transcripts (Claude Code, Codex) into exchanges, and redacting secrets."""
