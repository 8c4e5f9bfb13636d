"""The per-chat queue and its worker: order, attempts, set-aside, timeouts, the exit race."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from cms import paths
from cms.config import Config, WorkerConfig
from cms.errors import ProviderError
from cms.hooks import launch
from cms.hooks import queue as hook_queue
from cms.transcripts.exchange import Exchange
from cms.worker import drain, jobs, queue
from tests.hooks.helpers import wait_until

SESSION = "chat-queue-1"


def config(**worker_settings: Any) -> Config:
    settings = {"job_timeout_seconds": 30.0, "max_attempts": 3, "idle_exit_seconds": 0.0}
    settings.update(worker_settings)
    return Config(worker=WorkerConfig(**settings))


def queue_exchange(turn: int, session: str = SESSION) -> Path:
    exchange = Exchange(
        user=f"Turn {turn}: we decided to store sessions in Redis, marker{turn:02d}.",
        assistant=f"Decision: sessions live in Redis (marker{turn:02d}); updated src/app.py.",
        turn=turn,
    )
    return queue.enqueue(
        session, hook_queue.MAP_UPDATE, jobs.map_update_payload(exchange, project="p", cwd="/tmp")
    )


def record_runs(monkeypatch: pytest.MonkeyPatch, behaviour: Any = None) -> list[str]:
    """Replace the job runner; returns the list of job names as they run."""
    seen: list[str] = []

    def fake_run(job: queue.Job, cfg: Any, *, force_local: bool = False) -> str:
        seen.append(job.name if not force_local else f"{job.name}:local")
        if behaviour is not None:
            behaviour(job, force_local)
        return "ok"

    monkeypatch.setattr(drain, "run_job", fake_run)
    return seen


def log_text() -> str:
    try:
        return Path(paths.log_path()).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def test_jobs_are_listed_oldest_first_and_written_whole() -> None:
    made = [queue_exchange(turn) for turn in range(1, 6)]
    assert queue.list_jobs(SESSION) == made
    folder = Path(queue.chat_queue_dir(SESSION))
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    job = queue.read_job(made[0])
    assert job is not None and job.kind == hook_queue.MAP_UPDATE and job.attempts == 0
    assert job.payload["exchange"]["turn"] == 1


def test_drain_runs_jobs_in_queue_order_and_deletes_each_after_it_ran(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = [queue_exchange(turn) for turn in range(1, 8)]
    seen = record_runs(monkeypatch)
    result = drain.drain_chat(SESSION, config())
    assert seen == [p.name for p in made]
    assert result.applied == 7 and queue.list_jobs(SESSION) == []


def test_a_job_that_keeps_failing_is_set_aside_and_the_next_one_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bad, good = queue_exchange(1), queue_exchange(2)

    def fail_first(job: queue.Job, force_local: bool) -> None:
        if job.name == bad.name:
            raise RuntimeError("extractor bug")

    seen = record_runs(monkeypatch, fail_first)
    result = drain.drain_chat(SESSION, config(max_attempts=3))
    assert seen == [bad.name] * 3 + [good.name]
    assert result.set_aside == 1 and result.applied == 1
    assert [p.name for p in queue.failed_jobs(SESSION)] == [bad.name]
    assert json.loads(queue.failed_jobs(SESSION)[0].read_text())["attempts"] == 3
    assert "job_set_aside" in log_text() and "extractor bug" in log_text()


def test_an_unreadable_job_file_is_set_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(queue.chat_queue_dir(SESSION))
    folder.mkdir(parents=True)
    (folder / "00000000000000000001-00000001-0000.json").write_text("{not json", "utf-8")
    good = queue_exchange(1)
    seen = record_runs(monkeypatch)
    result = drain.drain_chat(SESSION, config())
    assert seen == [good.name] and result.set_aside == 1


def test_model_trouble_backs_off_then_the_last_attempt_and_later_jobs_go_local(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = queue_exchange(1), queue_exchange(2)
    monkeypatch.setattr(drain, "PROVIDER_BACKOFF_SECONDS", 0.01)

    def model_down(job: queue.Job, force_local: bool) -> None:
        if not force_local:
            raise ProviderError("fake outage")

    seen = record_runs(monkeypatch, model_down)
    result = drain.drain_chat(SESSION, config(max_attempts=3))
    assert seen == [first.name] * 3 + [f"{first.name}:local", f"{second.name}:local"]
    assert result.applied == 2 and result.provider_down and result.set_aside == 0
    assert queue.list_jobs(SESSION) == []
    assert log_text().count("provider_error") == 3
    assert "provider_down" in log_text()


def test_a_model_that_recovers_is_used_again(monkeypatch: pytest.MonkeyPatch) -> None:
    queue_exchange(1)
    monkeypatch.setattr(drain, "PROVIDER_BACKOFF_SECONDS", 0.01)
    calls: list[int] = []

    def flaky(job: queue.Job, force_local: bool) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise ProviderError("one timeout")

    seen = record_runs(monkeypatch, flaky)
    result = drain.drain_chat(SESSION, config(max_attempts=3))
    assert len(seen) == 2 and not seen[1].endswith(":local")
    assert result.applied == 1 and not result.provider_down


def test_a_job_past_its_timeout_is_interrupted_counted_and_set_aside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queue_exchange(1)
    record_runs(monkeypatch, lambda job, local: time.sleep(30))
    start = time.monotonic()
    result = drain.drain_chat(SESSION, config(job_timeout_seconds=0.2, max_attempts=2))
    assert time.monotonic() - start < 10
    assert result.set_aside == 1 and result.failed == 2
    assert "JobTimeoutError" in log_text()


def test_a_job_queued_just_as_the_worker_lets_go_is_still_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queue_exchange(1)
    seen = record_runs(monkeypatch)
    late: list[Path] = []
    release = hook_queue.WorkerLock.release

    def release_then_queue(self: hook_queue.WorkerLock) -> None:
        release(self)
        if not late:  # the Stop hook writes its job right after the worker saw an empty queue
            late.append(queue_exchange(2))

    monkeypatch.setattr(hook_queue.WorkerLock, "release", release_then_queue)
    drain.drain_chat(SESSION, config())
    assert seen[-1] == late[0].name
    assert queue.list_jobs(SESSION) == []


def test_a_second_worker_leaves_a_chat_whose_lock_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    made = queue_exchange(1)
    seen = record_runs(monkeypatch)
    held = hook_queue.try_worker_lock(SESSION)
    assert held is not None
    try:
        assert hook_queue.worker_running(SESSION)
        assert drain.drain_chat(SESSION, config()).applied == 0
        assert queue.list_jobs(SESSION) == [made]
    finally:
        held.release()
    assert not hook_queue.worker_running(SESSION)
    drain.drain_chat(SESSION, config())
    assert seen == [made.name]


def test_cms_sync_runs_the_job_inside_the_hook_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CMS_SYNC", "1")
    queue_exchange(1)
    launch.ensure_worker(SESSION)
    assert queue.list_jobs(SESSION) == []
    assert Path(paths.map_path(SESSION)).exists()


def test_map_update_job_builds_the_chat_map_and_warms_the_index_cache() -> None:
    for turn in (1, 2):
        queue_exchange(turn)
    result = drain.drain_chat(SESSION, config())
    assert result.applied == 2
    from cms.map.store import load_map

    cmap = load_map(paths.map_path(SESSION))
    assert cmap.fact_count() > 0
    assert (Path(paths.chat_dir(SESSION)) / "index-cache.json").exists()
    assert "job_done" in log_text()


def test_a_spawned_worker_drains_the_queue_and_exits() -> None:
    queue_exchange(1)
    queue_exchange(2)
    pid = launch.spawn_worker(SESSION)
    assert pid is not None
    assert wait_until(lambda: not queue.list_jobs(SESSION), timeout=90)
    deadline = time.monotonic() + 60
    status = None
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    assert status is not None and os.waitstatus_to_exitcode(status) == 0
    assert queue.worker_pid(SESSION) == pid
    assert Path(paths.map_path(SESSION)).exists()


def test_unknown_job_kinds_end_up_set_aside() -> None:
    queue.enqueue(SESSION, "mystery", {})
    result = drain.drain_chat(SESSION, config(max_attempts=1))
    assert result.set_aside == 1
    assert "unknown job kind" in log_text()


def test_a_job_whose_worker_was_killed_three_times_mid_run_still_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = queue_exchange(1)
    for _ in range(3):  # what three workers killed mid-run leave in the job file
        job = queue.read_job(made)
        assert job is not None
        queue.count_start(job)
    seen = record_runs(monkeypatch)
    result = drain.drain_chat(SESSION, config(max_attempts=3))
    assert seen == [made.name] and result.applied == 1 and result.set_aside == 0
    assert queue.failed_jobs(SESSION) == []
    assert "failed 3 times" not in log_text()


def test_failures_are_counted_apart_from_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    made = queue_exchange(1)
    job = queue.read_job(made)
    assert job is not None
    queue.count_start(job)  # one run killed mid-way

    def fail(job: queue.Job, force_local: bool) -> None:
        raise RuntimeError("extractor bug")

    record_runs(monkeypatch, fail)
    drain.drain_chat(SESSION, config(max_attempts=2))
    counted = json.loads(queue.failed_jobs(SESSION)[0].read_text(encoding="utf-8"))
    assert (counted["attempts"], counted["starts"]) == (2, 3)
    assert "failed 2 times" in log_text()


def test_a_job_begun_many_times_without_an_outcome_is_set_aside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = queue_exchange(1)
    for _ in range(drain.MAX_INTERRUPTED):
        job = queue.read_job(made)
        assert job is not None
        queue.count_start(job)
    seen = record_runs(monkeypatch)
    result = drain.drain_chat(SESSION, config())
    assert seen == [] and result.set_aside == 1
    assert "never finished" in log_text()


def test_the_failed_folder_keeps_only_the_newest_jobs() -> None:
    made = [queue_exchange(turn) for turn in range(1, queue.MAX_FAILED + 6)]
    for path in made:
        queue.set_aside(path, "map file is damaged")
    kept = queue.failed_jobs(SESSION)
    assert [p.name for p in kept] == [p.name for p in made[-queue.MAX_FAILED :]]


def test_at_most_a_fixed_number_of_worker_slots_can_be_held() -> None:
    held = [hook_queue.try_worker_slot() for _ in range(hook_queue.MAX_WORKERS)]
    try:
        assert all(slot is not None for slot in held)
        assert hook_queue.try_worker_slot() is None
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    again = hook_queue.try_worker_slot()
    assert again is not None
    again.release()


def test_a_worker_without_a_slot_leaves_its_job_queued(monkeypatch: pytest.MonkeyPatch) -> None:
    made = queue_exchange(1)
    seen = record_runs(monkeypatch)
    held = [hook_queue.try_worker_slot() for _ in range(hook_queue.MAX_WORKERS)]
    try:
        result = drain.run_detached(SESSION, hard_exit=False)
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    assert seen == [] and result.applied == 0
    assert queue.list_jobs(SESSION) == [made]


def test_a_worker_drains_other_chats_queues_before_it_exits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mine = queue_exchange(1)
    others = [queue_exchange(1, session=f"chat-other-{n}") for n in range(3)]
    seen = record_runs(monkeypatch)
    result = drain.run_detached(SESSION, hard_exit=False)
    assert seen[0] == mine.name and sorted(seen[1:]) == sorted(p.name for p in others)
    assert result.applied == 4 and queue.queued_sessions() == []


def test_a_job_queued_while_every_slot_is_busy_is_run_by_a_slot_holder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    queue_exchange(1)
    started, go_on = threading.Event(), threading.Event()

    def block_first(job: queue.Job, force_local: bool) -> None:
        if job.session_id == SESSION:
            started.set()
            assert go_on.wait(60)

    seen = record_runs(monkeypatch, block_first)
    others = [hook_queue.try_worker_slot() for _ in range(hook_queue.MAX_WORKERS - 1)]
    holder = threading.Thread(
        target=drain.run_detached, args=(SESSION,), kwargs={"hard_exit": False}
    )
    holder.start()
    try:
        assert started.wait(60)  # the holder of the last slot is busy with its own chat
        late = queue_exchange(2, session="chat-late")
        assert drain.run_detached("chat-late", hard_exit=False).applied == 0  # no slot free
        assert queue.list_jobs("chat-late") == [late]
    finally:
        for slot in others:
            assert slot is not None
            slot.release()
        go_on.set()
        holder.join(60)
    assert not holder.is_alive()
    assert late.name in seen and queue.queued_sessions() == []
