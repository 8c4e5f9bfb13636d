"""The agent hooks: payload parsing, the handlers, the per-chat job queue and its worker.

Hook processes run on every prompt, so nothing here imports typer, jsonschema, anthropic or
portalocker at module level; the worker (a separate, detached process) may.
"""
