"""Finding things in memory: one chat map's facts (facts), a project's whole memory (project)
and the `cms search` command over both (command).

Importing this package imports nothing else (the command runs on the agent's fast path).
"""
