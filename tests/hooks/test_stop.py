"""Stop queues where the turn ends and returns silently; detached workers apply every exchange in queue
order, survive being killed, and secrets never reach any file."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cms import paths
from cms.hooks import queue as hook_queue
from cms.locking import exclusive_lock
from cms.map.store import load_map
from cms.observations.access import open_project_memory
from cms.worker import drain, jobs, queue
from tests.hooks.helpers import (
    all_text_under,
    assert_clean_reply,
    build_map,
    hook_env,
    numbered_turn,
    run_hook_process,
    turn_lines,
    wait_until,
    write_transcript,
)

SESSION = "chat-stop-1"


def stop_payload(transcript: Path, session: str = SESSION, **extra: object) -> dict[str, object]:
    return {
        "session_id": session,
        "cwd": str(transcript.parent),
        "hook_event_name": "Stop",
        "transcript_path": str(transcript),
        "stop_hook_active": False,
        **extra,
    }


def job_done_lines() -> list[str]:
    try:
        text = Path(paths.log_path()).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [line for line in text.splitlines() if " job_done " in line]


def idle(session: str) -> bool:
    return not queue.list_jobs(session) and not hook_queue.worker_running(session)


def test_stop_prints_nothing_and_queues_where_the_turn_ends_for_the_worker_to_read(
    tmp_path: Path,
) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    held = hook_queue.try_worker_lock(SESSION)  # keep workers off so the job stays visible
    assert held is not None
    try:
        done = run_hook_process("Stop", stop_payload(transcript))
        assert assert_clean_reply(done) is None
        assert done.stdout == b""
        [job_file] = queue.list_jobs(SESSION)
        job = queue.read_job(job_file)
        assert job is not None and job.kind == "map_update"
        assert job.payload["turn"]["path"] == str(transcript)
        assert job.payload["turn"]["end"] == transcript.stat().st_size
        assert "marker01" not in job_file.read_text(encoding="utf-8")  # the hook read nothing
    finally:
        held.release()
    drain.drain_chat(SESSION, idle=0.0)
    assert "marker01" in Path(paths.map_path(SESSION)).read_text(encoding="utf-8")


def test_stop_with_cms_sync_applies_before_it_returns(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    done = run_hook_process("Stop", stop_payload(transcript), env=hook_env({"CMS_SYNC": "1"}))
    assert assert_clean_reply(done) is None
    assert queue.list_jobs(SESSION) == []
    assert load_map(paths.map_path(SESSION)).fact_count() > 0


def test_stop_uses_last_assistant_message_when_the_transcript_is_missing(tmp_path: Path) -> None:
    payload = stop_payload(
        tmp_path / "missing.jsonl",
        last_assistant_message="Decided: the cache uses Redis 7 from now on.",
    )
    done = run_hook_process("Stop", payload, env=hook_env({"CMS_SYNC": "1"}))
    assert assert_clean_reply(done) is None
    assert "Redis 7" in Path(paths.map_path(SESSION)).read_text(encoding="utf-8")


def test_codex_stop_without_transcript_pairs_the_cached_prompt(tmp_path: Path) -> None:
    prompt = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "turn_id": "t1",
        "transcript_path": None,
        "prompt": "We decided to deploy with blue-green releases.",
    }
    assert_clean_reply(run_hook_process("UserPromptSubmit", prompt))
    stop = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "turn_id": "t1",
        "transcript_path": None,
        "last_assistant_message": "Noted: blue-green releases.",
    }
    assert_clean_reply(run_hook_process("Stop", stop, env=hook_env({"CMS_SYNC": "1"})))
    assert "blue-green" in Path(paths.map_path(SESSION)).read_text(encoding="utf-8")


def test_queued_turns_are_read_where_each_stop_saw_them_end_and_numbered_from_a_kept_count(
    tmp_path: Path,
) -> None:
    turns = [numbered_turn(SESSION, k) for k in range(1, 6)]
    transcript = write_transcript(tmp_path / "t.jsonl", turns[:2])
    kept = Path(paths.chat_dir(SESSION)) / "turn-count.json"
    held = hook_queue.try_worker_lock(SESSION)  # keep workers off: the jobs wait, the file grows
    assert held is not None
    try:
        for upto in (2, 3, 4):
            write_transcript(transcript, turns[:upto])  # the transcript grows at its end
            assert_clean_reply(run_hook_process("Stop", stop_payload(transcript)))
        write_transcript(transcript, turns)  # a fifth turn begins before the worker runs
        numbers, ends = [], []
        for job_file in queue.list_jobs(SESSION):
            job = queue.read_job(job_file)
            assert job is not None
            exchange = jobs.exchange_of_job(SESSION, job.payload)
            assert exchange is not None
            numbers.append((exchange.turn, f"marker{exchange.turn:02d}" in exchange.user))
            state = json.loads(kept.read_text(encoding="utf-8"))
            ends.append(job.payload["turn"]["end"])
            text = transcript.read_bytes()[: ends[-1]]
            assert state["offset"] == len(text)  # looked at up to the turn's end, counted
            assert text[state["latest"] :].startswith(json.dumps(turns[len(ends)][0]).encode())
    finally:
        held.release()
    assert numbers == [(2, True), (3, True), (4, True)]


def test_stop_from_a_subagent_is_ignored(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    done = run_hook_process(
        "Stop", stop_payload(transcript, agent_id="a123"), env=hook_env({"CMS_SYNC": "1"})
    )
    assert assert_clean_reply(done) is None
    assert not Path(paths.map_path(SESSION)).exists()
    assert queue.list_jobs(SESSION) == []


def test_stop_hook_active_is_still_recorded_and_never_blocks(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    done = run_hook_process(
        "Stop", stop_payload(transcript, stop_hook_active=True), env=hook_env({"CMS_SYNC": "1"})
    )
    assert done.stdout == b""
    assert Path(paths.map_path(SESSION)).exists()


@pytest.mark.slow
def test_ten_stop_hooks_at_once_apply_all_ten_exchanges_in_queue_order(tmp_path: Path) -> None:
    turns = [numbered_turn(SESSION, k) for k in range(1, 11)]
    transcripts = [write_transcript(tmp_path / f"t{k}.jsonl", turns[:k]) for k in range(1, 11)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "cms", "hook", "Stop"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=hook_env(),
        )
        for _ in transcripts
    ]
    for proc, transcript in zip(procs, transcripts, strict=True):
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(stop_payload(transcript)).encode())
        proc.stdin.close()
    for proc in procs:
        assert proc.wait(timeout=120) == 0
        assert proc.stdout is not None and proc.stdout.read() == b""
        assert proc.stderr is not None and proc.stderr.read() == b""
    assert wait_until(lambda: idle(SESSION), timeout=180)
    lines = job_done_lines()
    applied = [int(re.search(r"turn=(\d+)", line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert sorted(applied) == list(range(1, 11))
    names = [re.search(r"job=(\S+)", line).group(1) for line in lines]  # type: ignore[union-attr]
    assert names == sorted(names)  # applied in queue order, one worker at a time
    cmap = load_map(paths.map_path(SESSION))
    facts = " ".join(s.text for p in cmap.planets() for s in p.satellites)
    assert all(f"marker{k:02d}" in facts for k in range(1, 11))
    assert queue.failed_jobs(SESSION) == []


@pytest.mark.slow
def test_killing_the_worker_mid_job_loses_no_exchange(tmp_path: Path) -> None:
    build_map(SESSION, suns=1, planets_per_sun=1, facts_per_planet=1)
    first = write_transcript(tmp_path / "t1.jsonl", [numbered_turn(SESSION, 1)])
    second = write_transcript(
        tmp_path / "t2.jsonl", [numbered_turn(SESSION, 1), numbered_turn(SESSION, 2)]
    )
    with exclusive_lock(paths.map_path(SESSION), timeout=5):  # the worker blocks inside the job
        assert_clean_reply(run_hook_process("Stop", stop_payload(first)))

        def mid_job() -> bool:
            jobs = queue.list_jobs(SESSION)
            job = queue.read_job(jobs[0]) if jobs else None
            return job is not None and job.starts == 1 and hook_queue.worker_running(SESSION)

        assert wait_until(mid_job, timeout=60)
        pid = queue.worker_pid(SESSION)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert wait_until(lambda: not hook_queue.worker_running(SESSION), timeout=30)
    assert len(queue.list_jobs(SESSION)) == 1  # the killed job is still queued
    assert_clean_reply(run_hook_process("Stop", stop_payload(second)))
    assert wait_until(lambda: idle(SESSION), timeout=120)
    applied = sorted(
        int(re.search(r"turn=(\d+)", line).group(1))  # type: ignore[union-attr]
        for line in job_done_lines()
    )
    assert applied == [1, 2]
    facts = Path(paths.map_path(SESSION)).read_text(encoding="utf-8")
    assert "marker01" in facts and "marker02" in facts


SECRETS = {
    "anthropic": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
    "aws": "AKIAIOSFODNN7EXAMPLQ",
    "github": "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "url password": "S3cr3tPassw0rd",
    "openai": "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
}


def secret_turns(session: str) -> list[list[dict[str, object]]]:
    return [
        turn_lines(
            session,
            1,
            f"We decided to deploy with key {SECRETS['anthropic']} and AWS "
            f"{SECRETS['aws']}; remember the deploy target is staging.",
            "Decision: deploys go to staging first.",
            tool_command=f"curl -H 'Authorization: token {SECRETS['github']}' api",
            tool_output=f"DATABASE_URL=postgres://admin:{SECRETS['url password']}"
            "@db.example.com/prod",
        ),
        turn_lines(
            session,
            2,
            "Which key did we set for OpenAI?",
            f"We set OPENAI_API_KEY={SECRETS['openai']} in .env; decided to rotate it.",
        ),
    ]


def assert_no_secret(text: str, where: str) -> None:
    for name, secret in SECRETS.items():
        assert secret not in text, f"{name} secret found in {where}"


@pytest.mark.slow
def test_a_planted_secret_never_reaches_the_queue_map_store_or_log(tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", secret_turns(SESSION))
    first_only = write_transcript(tmp_path / "t1.jsonl", secret_turns(SESSION)[:1])
    prompt = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "transcript_path": None,
        "prompt": f"use {SECRETS['anthropic']} please",
    }
    assert_clean_reply(run_hook_process("UserPromptSubmit", prompt))
    held = hook_queue.try_worker_lock(SESSION)
    assert held is not None
    try:
        last = f"Rotated: OPENAI_API_KEY={SECRETS['openai']} now lives in staging's vault."
        for path in (first_only, transcript):
            payload = stop_payload(path, last_assistant_message=last)
            assert_clean_reply(run_hook_process("Stop", payload))
        queued = all_text_under(Path(queue.chat_queue_dir(SESSION)))
        assert "staging" in queued  # the Stop's last message is there, redacted
        assert_no_secret(queued, "the queue files")
    finally:
        held.release()
    drain.drain_chat(SESSION, idle=0.0)
    end = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "transcript_path": str(transcript),
        "reason": "other",
    }
    assert_clean_reply(run_hook_process("SessionEnd", end, env=hook_env({"CMS_SYNC": "1"})))
    cmap_text = Path(paths.map_path(SESSION)).read_text(encoding="utf-8")
    assert "staging" in cmap_text
    assert_no_secret(cmap_text, "the map")
    memory = open_project_memory(tmp_path, create=False)
    assert memory is not None
    with memory:
        stored = memory.store.list_observations()
    assert stored, "SessionEnd must have captured observations"
    assert_no_secret(" ".join(f"{o.title} {o.body}" for o in stored), "the observations")
    assert_no_secret(all_text_under(Path(paths.cms_home()) / "projects"), "the observation store")
    assert_no_secret(all_text_under(Path(paths.log_path()).parent), "the log")
    assert_no_secret(all_text_under(Path(paths.cms_home())), "CMS_HOME")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_stop_with_a_fifo_as_transcript_returns_and_queues_the_last_message(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    held = hook_queue.try_worker_lock(SESSION)  # keep workers off so the job stays visible
    assert held is not None
    try:
        payload = stop_payload(fifo, last_assistant_message="Decided: blue-green deploys.")
        done = run_hook_process("Stop", payload, timeout=60)  # a blocked open would time out
        assert_clean_reply(done)
        assert done.stdout == b""
        job = queue.read_job(queue.list_jobs(SESSION)[-1])
        assert job is not None
        exchange = jobs.exchange_of_job(SESSION, job.payload)  # refused unopened, not blocked on
        assert exchange is not None
        assert exchange.assistant == "Decided: blue-green deploys."
        assert exchange.extra["transcript"] == "missing"
    finally:
        held.release()
