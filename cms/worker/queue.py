"""The worker's side of the job queue: reading job files, counting runs, settling them.

Owns the Job value, the order jobs run in (their file names), the counters of starts and
failures, and the failed/ folder where jobs that keep failing are set aside (capped). The layout
and the writing of new jobs belong to cms.hooks.queue; nothing here runs a job.
"""

from __future__ import annotations

import json
import os
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cms import paths
from cms.hooks.queue import JOB_SUFFIX, JOB_VERSION, LOCK_NAME, add_job, chat_queue_dir
from cms.hooks.statefile import write_state
from cms.log import log_event
from cms.privatefile import make_dirs

FAILED_DIR = "failed"
MAX_FAILED = 20  # set-aside jobs kept per chat; older ones are deleted


@dataclass(frozen=True)
class Job:
    """One job as read from its file."""

    path: Path
    kind: str  # cms.hooks.queue.MAP_UPDATE or CAPTURE
    session_id: str
    attempts: int  # runs that failed (an exception, a timeout)
    created_at: float
    payload: dict[str, Any] = field(repr=False)
    starts: int = 0  # runs begun, including those a killed worker never finished

    @property
    def name(self) -> str:
        return self.path.name


def enqueue(session_id: str, kind: str, payload: dict[str, Any]) -> Path:
    """Add a job at the end of the chat's queue; return its file."""
    return Path(add_job(session_id, kind, payload))


def list_jobs(session_id: str) -> list[Path]:
    """The chat's pending job files, oldest first."""
    folder = Path(chat_queue_dir(session_id))
    try:
        names = os.listdir(folder)
    except OSError:
        return []
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
        names = sorted(p.name for p in folder.iterdir() if p.name.endswith(JOB_SUFFIX))
    except OSError:
        return
    for name in names[: max(0, len(names) - MAX_FAILED)]:
        with suppress(OSError):
            (folder / name).unlink()


def failed_jobs(session_id: str) -> list[Path]:
    folder = Path(chat_queue_dir(session_id), FAILED_DIR)
    try:
        return sorted(p for p in folder.iterdir() if p.name.endswith(JOB_SUFFIX))
    except OSError:
        return []


def queued_sessions() -> list[str]:
    """Session ids of every chat that has pending jobs (read from their oldest job)."""
    sessions: list[str] = []
    try:
        root = paths.queue_dir()
        folders = sorted(
            os.path.join(root, n) for n in os.listdir(root) if os.path.isdir(os.path.join(root, n))
        )
    except OSError:
        return sessions
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not (name.endswith(JOB_SUFFIX) and name[0].isdigit()):
                continue
            try:
                job = read_job(Path(folder, name))
            except (OSError, ValueError):
                continue
            if job is not None:
                sessions.append(job.session_id)
                break
    return sessions


def worker_pid(session_id: str) -> int | None:
    """The pid written by the last worker of this chat (it may have exited since)."""
    try:
        text = Path(chat_queue_dir(session_id), LOCK_NAME).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
