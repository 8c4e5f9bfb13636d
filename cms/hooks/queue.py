"""What the hooks put in the job queue, and how they tell whether a worker runs.

Owns the queue's layout on disk (<queue_dir>/<safe session>/<time_ns>-<pid>-<n>.json, written
atomically, names sorting in arrival order), the two job kinds and their payloads, the per-chat
worker lock and the machine-wide worker slots. It never reads or runs a job (cms.worker does).
Standard library only, str paths: the Stop, SessionEnd and PreCompact hooks write here.
"""

from __future__ import annotations

import itertools
import os
import sys
import time

from cms import paths
from cms.hooks.statefile import write_state
from cms.privatefile import make_dirs, open_private

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAP_UPDATE = "map_update"  # one turn to fold into the chat map
CAPTURE = "capture"  # turn the session into project observations
TEAM_SYNC = "team_sync"  # sync the project with the team database (a chat started)
JOB_SUFFIX = ".json"
JOB_VERSION = 1
LOCK_NAME = "worker.lock"
MAX_WORKERS = 4  # detached workers at once per CMS_HOME (one slot lock file each)
SLOTS_DIR = "workers"
_counter = itertools.count()


def chat_queue_dir(session_id: str) -> str:
    """The queue folder of one chat."""
    return os.path.join(paths.queue_dir(), paths.safe_name(session_id))


def turn_payload(
    *,
    transcript: str | None,
    end: int | None,
    agent: str,
    last_message: str,
    prompt: str,
    project: str,
    cwd: str,
) -> dict[str, Any]:
    """A map_update job for the turn a Stop saw end: where it ends in the transcript (path and
    size), the Stop's last message and the cached prompt, both already redacted. The worker reads
    the turn (cms.worker.jobs.exchange_of_job)."""
    turn = {
        "path": transcript,
        "end": end,
        "agent": agent,
        "last_message": last_message,
        "prompt": prompt,
    }
    return {"turn": turn, "project": project, "cwd": cwd}


def capture_payload(
    *, project: str, cwd: str, transcript: str | None, agent: str, reason: str
) -> dict[str, Any]:
    """A capture job for the session (the transcript is read by the worker)."""
    return {
        "project": project,
        "cwd": cwd,
        "transcript": transcript,
        "agent": agent,
        "reason": reason,
    }


def add_job(session_id: str, kind: str, payload: dict[str, Any]) -> str:
    """Add a job (payload: redacted text only) at the end of the chat's queue; return its file."""
    folder = chat_queue_dir(session_id)
    make_dirs(folder)
    name = f"{time.time_ns():020d}-{os.getpid():08d}-{next(_counter):04d}{JOB_SUFFIX}"
    path = os.path.join(folder, name)
    write_state(
        path,
        {
            "version": JOB_VERSION,
            "kind": kind,
            "session_id": session_id,
            "attempts": 0,
            "created_at": time.time(),
            "payload": payload,
        },
    )
    return path


# ---------------------------------------------------------------- the worker lock and slots


class WorkerLock:
    """A non-blocking exclusive lock on a file, holding the owner's pid."""

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path

    def write_pid(self) -> None:
        os.ftruncate(self.fd, 0)
        os.lseek(self.fd, 0, os.SEEK_SET)
        os.write(self.fd, f"{os.getpid()}\n".encode())

    def release(self) -> None:
        if self.fd < 0:
            return
        try:
            _unlock(self.fd)
        finally:
            os.close(self.fd)
            self.fd = -1


def try_worker_lock(session_id: str) -> WorkerLock | None:
    """Take the chat's worker lock (<chat queue>/worker.lock) without waiting; None when another
    process holds it."""
    folder = chat_queue_dir(session_id)
    make_dirs(folder)
    return _try_lock_file(os.path.join(folder, LOCK_NAME))


def _try_lock_file(path: str) -> WorkerLock | None:
    """The lock of the file at path (created private), taken without waiting, or None."""
    fd = open_private(path, os.O_RDWR | os.O_CREAT)
    try:
        locked = _try_lock(fd)
    except BaseException:
        os.close(fd)
        raise
    if not locked:
        os.close(fd)
        return None
    return WorkerLock(fd, path)


def try_worker_slot() -> WorkerLock | None:
    """Take one of the MAX_WORKERS machine-wide worker slots (a lock file each, under
    CMS_HOME/workers) without waiting; None when every slot is held. A slot's holder looks at
    every chat's queue after it lets go (see cms.worker.drain), so a job queued while all slots
    were busy is still run."""
    folder = os.path.join(paths.cms_home(), SLOTS_DIR)
    make_dirs(folder)
    for number in range(MAX_WORKERS):
        slot = _try_lock_file(os.path.join(folder, f"slot-{number}.lock"))
        if slot is not None:
            return slot
    return None


def worker_slot_free() -> bool:
    """Whether a worker could take a slot right now (one is taken and let go to find out; a
    worker that misses a slot because of this look is covered: the one who looked starts one)."""
    slot = try_worker_slot()
    if slot is None:
        return False
    slot.release()
    return True


def worker_running(session_id: str) -> bool:
    """Whether a worker holds the chat's lock right now."""
    lock = try_worker_lock(session_id)
    if lock is None:
        return True
    lock.release()
    return False


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
