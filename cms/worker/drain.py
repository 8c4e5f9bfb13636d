"""Draining the job queues: the detached, short-lived worker (`python -m cms.worker`, started by
cms.hooks.launch) and `cms worker`.

At most one worker per chat (a non-blocking lock) and MAX_WORKERS per machine (slots);
jobs run oldest first, each bounded by worker.job_timeout_seconds; a job file is deleted only
after its result is saved, so a killed worker loses nothing; a job that keeps failing (failures
are counted, not starts) is set aside. A detached worker drains its chat, then every other
chat's queue, and exits when none is left. It is its process's error boundary: it never raises.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cms import paths
from cms.config import Config, load_hook_config
from cms.errors import CmsError, ProviderError
from cms.hooks.queue import TEAM_SYNC, WorkerLock, try_worker_lock, try_worker_slot, worker_running
from cms.log import log_event
from cms.worker import queue
from cms.worker.jobs import run_job
from cms.worker.projectsync import give_meanings, update_file_notes, update_semantic_index
from cms.worker.teamsync import sync_team

HARD_EXIT_GRACE = 15.0  # seconds past the job timeout before the watchdog ends the process
POLL_SECONDS = 0.05
PROVIDER_BACKOFF_SECONDS = 2.0  # times the attempt number, before retrying a failed model call
MAX_INTERRUPTED = 10  # runs a job may begin without finishing or failing (its worker was killed)


class JobTimeoutError(CmsError):
    """A job ran past worker.job_timeout_seconds."""


@dataclass
class DrainResult:
    applied: int = 0
    failed: int = 0
    set_aside: int = 0
    provider_down: bool = False  # a model call failed for good: the rest of the run is local


# ----------------------------------------------------------------------------- time limits


@contextmanager
def _time_limit(
    seconds: float, *, hard_exit: bool, on_stuck: Callable[[], object] | None = None
) -> Iterator[None]:
    """Raise JobTimeoutError in the main thread after `seconds`; with hard_exit, also end the
    process if the job still has not returned HARD_EXIT_GRACE seconds later (stuck in C code),
    after `on_stuck` recorded the failure."""
    use_alarm = (
        hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    )
    previous: Any = None
    if use_alarm:

        def on_alarm(signum: int, frame: object) -> None:
            raise JobTimeoutError(f"job ran past {seconds:g}s")

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog = None
    if hard_exit:
        watchdog = threading.Timer(seconds + HARD_EXIT_GRACE, _hard_exit, args=(seconds, on_stuck))
        watchdog.daemon = True
        watchdog.start()
    try:
        yield
    finally:
        if watchdog is not None:
            watchdog.cancel()
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _hard_exit(seconds: float, on_stuck: Callable[[], object] | None = None) -> None:
    log_event("error", "worker_stuck", f"a job ignored its {seconds:g}s timeout; exiting")
    if on_stuck is not None:
        with suppress(Exception):
            on_stuck()
    os._exit(3)


# ----------------------------------------------------------------------------- one job


def _describe(exc: BaseException) -> str:
    where = ""
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        where = f" at {Path(last.filename).name}:{last.lineno}"
    return f"{type(exc).__name__}: {str(exc)[:300]}{where}"


def _step(path: Path, config: Config, result: DrainResult, *, hard_exit: bool) -> None:
    """Run the job in `path` once: on success delete it; on failure leave it (failure counted)
    so the loop tries it again, until max_attempts failures set it aside. A run cut short by a
    killed worker is no failure; a job begun MAX_INTERRUPTED times without an outcome is set
    aside too. Model trouble backs off, and its last attempt (and every later job of this run)
    uses the local extractor instead."""
    max_attempts = config.worker.max_attempts
    try:
        job = queue.read_job(path)
    except (OSError, ValueError) as exc:
        queue.set_aside(path, f"unreadable job file: {exc}")
        result.set_aside += 1
        return
    if job is None:  # deleted under us
        return
    if job.attempts >= max_attempts:
        queue.set_aside(path, f"{job.kind} failed {job.attempts} times")
        result.set_aside += 1
        return
    if job.starts - job.attempts >= MAX_INTERRUPTED:
        interrupted = job.starts - job.attempts
        queue.set_aside(path, f"{job.kind} was begun {interrupted} times and never finished")
        result.set_aside += 1
        return
    job = queue.count_start(job)
    timeout = config.worker.job_timeout_seconds
    fields = {
        "job": job.name,
        "kind": job.kind,
        "attempt": job.attempts + 1,
        "session": job.session_id,
    }
    started = job

    def stuck() -> None:
        queue.count_failure(started)

    try:
        try:
            with _time_limit(timeout, hard_exit=hard_exit, on_stuck=stuck):
                summary = run_job(job, config, force_local=result.provider_down)
        except ProviderError as exc:
            log_event("warning", "provider_error", str(exc), **fields)
            result.failed += 1
            job = started = queue.count_failure(job)
            if job.attempts < max_attempts:
                time.sleep(PROVIDER_BACKOFF_SECONDS * job.attempts)
                return
            result.provider_down = True
            log_event(
                "warning",
                "provider_down",
                "local extractor for the rest of this run",
                session=job.session_id,
            )
            with _time_limit(timeout, hard_exit=hard_exit, on_stuck=stuck):
                summary = run_job(job, config, force_local=True) + " (model failed; local)"
    except Exception as exc:  # noqa: BLE001 - the worker is its process's error boundary
        level = "warning" if isinstance(exc, CmsError) else "error"
        log_event(level, "job_failed", _describe(exc), **fields)
        result.failed += 1
        queue.count_failure(job)
        return
    queue.finish_job(job.path)
    result.applied += 1
    log_event("info", "job_done", summary, **fields)
    if job.kind != TEAM_SYNC:  # what others stored, before the meanings and file notes below
        sync_team(job.payload.get("cwd"), config, force=False)
    _give_meanings(job)
    _update_semantic_index(job, config)
    _update_file_notes(job)


def _give_meanings(job: queue.Job) -> None:
    """After a finished job, the meaning of its project's new items (what reading compares to
    tell one subject's statements); a failure is logged and never counts against the job."""
    cwd = job.payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return
    try:
        give_meanings(cwd)
    except Exception as exc:  # noqa: BLE001 - reading falls back on words without them
        log_event("warning", "meanings_failed", _describe(exc), session=job.session_id)


def _update_semantic_index(job: queue.Job, config: Config) -> None:
    """After a finished job, the vectors of its project's new items (when the semantic index is
    installed); any failure is logged and never counts against the job."""
    cwd = job.payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return
    try:
        computed = update_semantic_index(cwd, config)
    except Exception as exc:  # noqa: BLE001 - the lexical index is whole without vectors
        log_event("warning", "semantic_index_failed", _describe(exc), session=job.session_id)
        return
    if computed:
        log_event("info", "vectors_done", f"vectors={computed}", session=job.session_id)


def _update_file_notes(job: queue.Job) -> None:
    """After a finished job, the project's file notes for the PreToolUse hook; a failure is
    logged and never counts against the job (the hook then uses the older notes)."""
    cwd = job.payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return
    try:
        update_file_notes(cwd)
    except Exception as exc:  # noqa: BLE001 - the job is done; the hook keeps the older notes
        log_event("warning", "file_notes_failed", _describe(exc), session=job.session_id)


def _drain_locked(
    session_id: str, config: Config, result: DrainResult, *, idle: float, hard_exit: bool
) -> None:
    """Run jobs oldest first until none is left (waiting up to `idle` s for late ones)."""
    while True:
        jobs = queue.list_jobs(session_id)
        waited = 0.0
        while not jobs and waited < idle:
            time.sleep(POLL_SECONDS)
            waited += POLL_SECONDS
            jobs = queue.list_jobs(session_id)
        if not jobs:
            return
        _step(jobs[0], config, result, hard_exit=hard_exit)


def drain_chat(
    session_id: str,
    config: Config | None = None,
    *,
    idle: float | None = None,
    hard_exit: bool = False,
) -> DrainResult:
    """Drain one chat's queue unless another worker holds it. Safe against the race where a job
    is queued just as the worker decides to stop: the queue is looked at again after the lock
    is released (the hook writes its job before it checks for a worker)."""
    config = config or load_hook_config()
    idle = config.worker.idle_exit_seconds if idle is None else idle
    result = DrainResult()
    while True:
        lock = try_worker_lock(session_id)
        if lock is None:
            return result  # another worker is on it and will see our jobs
        try:
            lock.write_pid()
            _drain_locked(session_id, config, result, idle=idle, hard_exit=hard_exit)
        finally:
            lock.release()
        if not queue.list_jobs(session_id):
            return result


# ----------------------------------------------------------------------------- entry point


def _add(total: DrainResult, result: DrainResult) -> None:
    total.applied += result.applied
    total.failed += result.failed
    total.set_aside += result.set_aside
    total.provider_down = total.provider_down or result.provider_down


def run_worker(session_id: str | None, *, hard_exit: bool = False) -> DrainResult:
    """Drain one chat, or every chat with pending jobs (`cms worker`)."""
    config = load_hook_config()
    total = DrainResult()
    sessions = [session_id] if session_id else queue.queued_sessions()
    for session in sessions:
        result = drain_chat(session, config, hard_exit=hard_exit, idle=None if session_id else 0.0)
        _add(total, result)
    return total


def _waiting_chats() -> list[str]:
    """Chats with pending jobs that no worker holds (taking their lock to look: a worker that
    finds a chat free this way drains it itself)."""
    return [s for s in queue.queued_sessions() if not worker_running(s)]


def run_detached(
    session_id: str, *, hard_exit: bool = True, slot: WorkerLock | None = None
) -> DrainResult:
    """What a hook's worker does: take a machine-wide slot (or use `slot`, taken by the caller;
    none free: exit, its job stays queued), drain its chat, then every other waiting chat; after
    letting the slot go, look again, so a job queued while every slot was busy is never
    stranded."""
    config = load_hook_config()
    total = DrainResult()
    first: str | None = session_id
    while True:
        slot = slot or try_worker_slot()
        if slot is None:
            log_event("debug", "worker_slots_busy", session=session_id)
            return total  # each slot's holder looks at every queue after it lets go
        try:
            slot.write_pid()
            if first is not None:
                _add(total, drain_chat(first, config, hard_exit=hard_exit))
                first = None
            for other in _waiting_chats():
                _add(total, drain_chat(other, config, hard_exit=hard_exit, idle=0.0))
        finally:
            slot.release()
            slot = None
        if not _waiting_chats():
            return total


def main(argv: list[str] | None = None, slot: WorkerLock | None = None) -> int:
    """`--session ID`: what the detached worker process runs (cms.worker.__main__, which takes
    its slot before this module is even imported)."""
    args = sys.argv[1:] if argv is None else argv
    session = args[1] if len(args) >= 2 and args[0] == "--session" else None
    with suppress(OSError):
        os.chdir(paths.cms_home())
    try:
        if session:
            run_detached(session, hard_exit=True, slot=slot)
    except BaseException as exc:  # noqa: BLE001 - never a traceback from a detached process
        log_event("error", "worker_crashed", _describe(exc), session=session)
    return 0
