"""How a hook makes sure a worker drains its chat's queue: start one detached, unless one runs.

Owns the worker's command line (`python -m cms.worker`) and environment and the detached start
(posix_spawn, else subprocess). It never runs a job itself, except under CMS_SYNC=1 (tests,
debugging), the one case in which a hook process imports the worker (cms.worker.drain).
"""

from __future__ import annotations

import os
import sys

from cms import paths
from cms.hooks.queue import worker_running, worker_slot_free
from cms.log import log_event

# the folder holding the cms package, put on the worker's PYTHONPATH
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def child_env() -> dict[str, str]:
    """The worker's environment: ours, with an absolute CMS_HOME and cms importable."""
    env = dict(os.environ)
    env["CMS_HOME"] = os.path.abspath(paths.cms_home())
    env.pop("CMS_SYNC", None)
    current = env.get("PYTHONPATH", "")
    if PACKAGE_ROOT not in current.split(os.pathsep):
        env["PYTHONPATH"] = PACKAGE_ROOT + (os.pathsep + current if current else "")
    return env


def spawn_worker(session_id: str) -> int | None:
    """Start a detached worker for the chat (own session, no terminal, stdio to devnull).
    Returns its pid, or None when it could not be started (logged)."""
    argv = [sys.executable, "-m", "cms.worker", "--session", session_id]
    try:
        if sys.platform != "win32" and hasattr(os, "posix_spawn"):
            devnull = os.devnull
            actions = [
                (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
            ]
            return os.posix_spawn(
                sys.executable, argv, child_env(), file_actions=actions, setsid=True
            )
        import subprocess

        flags = 0
        if sys.platform == "win32":
            flags = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=child_env(),
            close_fds=True,
            start_new_session=sys.platform != "win32",
            creationflags=flags,
        )
        return process.pid
    except OSError as exc:
        log_event("error", "worker_spawn_failed", str(exc), session=session_id)
        return None


def ensure_worker(session_id: str) -> None:
    """After queueing a job: run it inline with CMS_SYNC=1, else start a worker unless one runs
    for this chat or every machine-wide slot is busy (a slot's holder looks at every queue
    before it exits, so the job is run either way)."""
    if os.environ.get("CMS_SYNC") == "1":
        from cms.worker.drain import drain_chat

        drain_chat(session_id, idle=0.0)
        return
    if not worker_running(session_id) and worker_slot_free():
        spawn_worker(session_id)
