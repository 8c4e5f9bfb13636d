"""The hook fast path: one process per agent event, reading a payload and replying or queueing.

Runs on every prompt, so it imports only the standard library's light modules at any depth: no
pathlib, dataclasses, typing, contextlib, threading, subprocess or sqlite3 package (hence the
`TYPE_CHECKING = False` blocks and the plain slotted classes); tests/hooks/test_imports.py
keeps it so. The worker (cms.worker) runs the queued jobs; the hooks import it only to run them inline
under CMS_SYNC=1 (cms.hooks.launch).
"""
