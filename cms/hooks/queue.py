"""The per-chat job queue on disk: <queue_dir>/<safe session>/<time_ns>-<pid>-<n>.json.

Owns job files (atomic writes, names that sort in arrival order, counters of starts and
failures), the failed/ folder where jobs that keep failing are set aside (capped), the per-chat
worker lock and the machine-wide worker slots. It never runs a job. Standard library only: the Stop hook writes here on the fast path, through
the str-based add_job and worker_running (pathlib, dataclasses and typing cost it ~30 ms).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time

from cms import paths
from cms.hooks.statefile import write_state
from cms.privatefile import make_dirs, open_private

TYPE_CHECKING = False  # typing and pathlib stay off the hook path; mypy still reads these
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

JOB_SUFFIX = ".json"
FAILED_DIR = "failed"
LOCK_NAME = "worker.lock"
JOB_VERSION = 1
MAX_FAILED = 20  # set-aside jobs kept per chat; older ones are deleted
MAX_WORKERS = 4  # detached workers at once per CMS_HOME (one slot lock file each)
SLOTS_DIR = "workers"
_counter = itertools.count()


class Job:
    """One job read from its file (a plain slotted class; treat instances as immutable)."""

    __slots__ = ("attempts", "created_at", "kind", "path", "payload", "session_id", "starts")

    def __init__(
        self,
        path: Path,
        kind: str,  # "map_update" or "capture"
        session_id: str,
        attempts: int,  # runs that failed (an exception, a timeout)
        created_at: float,
        payload: dict[str, Any],
        starts: int = 0,  # runs begun, including those a killed worker never finished
    ) -> None:
        self.path = path
        self.kind = kind
        self.session_id = session_id
        self.attempts = attempts
        self.created_at = created_at
        self.payload = payload
        self.starts = starts

    @property
    def name(self) -> str:
        return self.path.name

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Job):
            return NotImplemented
        mine = (self.path, self.kind, self.session_id, self.attempts, self.created_at, self.starts)
        theirs = (
            other.path,
            other.kind,
            other.session_id,
            other.attempts,
            other.created_at,
            other.starts,
        )
        return mine == theirs and self.payload == other.payload

    __hash__ = None  # type: ignore[assignment]  # equal by value, holds a dict

    def __repr__(self) -> str:
        return f"Job(path={self.path!r}, kind={self.kind!r}, attempts={self.attempts!r})"


def chat_queue_dir_str(session_id: str) -> str:
    return os.path.join(paths.queue_dir_str(), paths.safe_name(session_id))


def chat_queue_dir(session_id: str) -> Path:
    """The queue folder of one chat."""
    return paths.queue_dir() / paths.safe_name(session_id)


def enqueue(session_id: str, kind: str, payload: dict[str, Any]) -> Path:
    """Add a job at the end of the chat's queue; return its file."""
    from pathlib import Path

    return Path(add_job(session_id, kind, payload))


def add_job(session_id: str, kind: str, payload: dict[str, Any]) -> str:
    """enqueue for the hooks: the same job, its file returned as a str."""
    folder = chat_queue_dir_str(session_id)
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


def list_jobs(session_id: str) -> list[Path]:
    """The chat's pending job files, oldest first."""
    try:
        names = os.listdir(chat_queue_dir(session_id))
    except OSError:
        return []
    folder = chat_queue_dir(session_id)
    return [folder / n for n in sorted(names) if n.endswith(JOB_SUFFIX) and n[0].isdigit()]


def read_job(path: Path) -> Job | None:
    """The job in a file; None when the file is gone. Raises ValueError when it is unreadable."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("job file is not a JSON object")
    kind, session, payload = data.get("kind"), data.get("session_id"), data.get("payload")
    attempts, created = data.get("attempts", 0), data.get("created_at", 0.0)
    starts = data.get("starts", attempts)
    if not isinstance(kind, str) or not isinstance(session, str) or not isinstance(payload, dict):
        raise ValueError("job file lacks kind, session_id or payload")
    if not isinstance(attempts, int) or not isinstance(created, int | float):
        raise ValueError("job file has a bad attempts or created_at")
    if not isinstance(starts, int):
        raise ValueError("job file has a bad starts")
    return Job(path, kind, session, attempts, float(created), payload, starts)


def _rewrite(job: Job, *, attempts: int, starts: int) -> Job:
    counted = Job(job.path, job.kind, job.session_id, attempts, job.created_at, job.payload, starts)
    write_state(
        str(job.path),
        {
            "version": JOB_VERSION,
            "kind": job.kind,
            "session_id": job.session_id,
            "attempts": attempts,
            "starts": starts,
            "created_at": job.created_at,
            "payload": job.payload,
        },
    )
    return counted


def count_start(job: Job) -> Job:
    """Record in the job file that a run begins (a worker killed mid-run leaves it counted as a
    start, not as a failure: see count_failure)."""
    return _rewrite(job, attempts=job.attempts, starts=job.starts + 1)


def count_failure(job: Job) -> Job:
    """Record in the job file that a run failed (`attempts` counts failures only)."""
    return _rewrite(job, attempts=job.attempts + 1, starts=job.starts)


def finish_job(path: Path) -> None:
    """Delete a job whose result is saved."""
    path.unlink(missing_ok=True)


def set_aside(path: Path, reason: str) -> Path | None:
    """Move a job that keeps failing to failed/ (kept on disk, never retried); log it."""
    from cms.log import log_event

    target = path.parent / FAILED_DIR / path.name
    try:
        make_dirs(str(target.parent))
        os.replace(path, target)
    except FileNotFoundError:
        return None
    log_event("error", "job_set_aside", reason, job=path.name, folder=str(target.parent))
    _trim_failed(target.parent)
    return target


def _trim_failed(folder: Path) -> None:
    """Keep the MAX_FAILED newest set-aside jobs of a chat (names sort by arrival)."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(JOB_SUFFIX))
    except OSError:
        return
    for name in names[: max(0, len(names) - MAX_FAILED)]:
        try:  # noqa: SIM105 - contextlib stays off the hook path
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass


def failed_jobs(session_id: str) -> list[Path]:
    folder = chat_queue_dir(session_id) / FAILED_DIR
    try:
        return sorted(p for p in folder.iterdir() if p.name.endswith(JOB_SUFFIX))
    except OSError:
        return []


def queued_sessions() -> list[str]:
    """Session ids of every chat that has pending jobs (read from their oldest job)."""
    sessions: list[str] = []
    try:
        folders = sorted(p for p in paths.queue_dir().iterdir() if p.is_dir())
    except OSError:
        return sessions
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not (name.endswith(JOB_SUFFIX) and name[0].isdigit()):
                continue
            try:
                job = read_job(folder / name)
            except (OSError, ValueError):
                continue
            if job is not None:
                sessions.append(job.session_id)
                break
    return sessions


# ---------------------------------------------------------------------------- the worker lock


class WorkerLock:
    """A non-blocking exclusive lock on <chat queue>/worker.lock, holding the owner's pid."""

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
    """Take the chat's worker lock without waiting; None when another process holds it."""
    folder = chat_queue_dir_str(session_id)
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
    every chat's queue after it lets go (see cms.hooks.worker), so a job queued while all slots
    were busy is still run."""
    folder = os.path.join(paths.cms_home_str(), SLOTS_DIR)
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


def worker_pid(session_id: str) -> int | None:
    """The pid written by the last worker of this chat (it may have exited since)."""
    try:
        text = (chat_queue_dir(session_id) / LOCK_NAME).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


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
