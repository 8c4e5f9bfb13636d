"""The worker: the detached process that drains the job queues the hooks fill (map updates,
observation capture). Off the hook path, so it may import what it needs (dataclasses, pathlib,
the providers); the hooks never import it. Kept empty: `python -m cms.worker` imports it first.
"""
