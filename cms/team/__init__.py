"""Team and multi-machine memory: a project's store synced with a PostgreSQL database.

The hooks never come here (they read the local SQLite store); the worker and `cms team` do.
identity.py names a project and a machine the same way everywhere, local.py is the SQLite side
(what changed here, applying what others stored), server.py the only module that imports
psycopg, sync.py the two together under one lock.
"""
