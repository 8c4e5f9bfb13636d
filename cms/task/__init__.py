"""The current task of a chat: its goal, what is done and what comes next.

Submodules: model (the record, its file <chat dir>/task.json, its rendering; standard library
only, read on the hook fast path) and derive (the record brought up to date from one exchange,
in code). Nothing here knows of hooks, the CLI, MCP or model providers' calls; importing this
package imports nothing else.
"""
