"""`cms install`: wires cms into Claude Code and Codex (hooks, MCP server, a `cms` on PATH).

Owns our entries in the agents' settings files and the record of what it changed; never an entry
that is not ours. Making the virtual environment and pip belong to install.py, not here.
"""
