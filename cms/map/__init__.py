"""The per-chat correlation map: suns (topics) > planets (subtopics with mass) > satellites (facts).

This package owns the data model, the diff operations and their validation, the file store and
the renderers. It knows nothing of hooks, the CLI, MCP or model providers.
"""
