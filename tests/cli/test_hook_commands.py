"""`cms hook`, `cms worker` and `cms replay` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cms import paths
from cms.hooks import queue as hook_queue
from cms.map.store import load_map
from cms.transcripts.exchange import Exchange
from cms.worker import jobs, queue
from tests.hooks.helpers import build_map, numbered_turn, turn_lines, write_transcript

ROOT = Path(__file__).resolve().parents[2]


def cms(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_help_lists_hook_worker_and_replay() -> None:
    result = cms("--help")
    assert result.returncode == 0
    for name in ("hook", "worker", "replay"):
        assert name in result.stdout


def test_hook_through_typer_delegates_to_the_runner(tmp_path: Path) -> None:
    build_map("cli-chat", suns=1, planets_per_sun=1, facts_per_planet=1)
    payload = json.dumps({"session_id": "cli-chat", "cwd": str(tmp_path), "source": "startup"})
    code = "from cms.cli import run_cli; run_cli(['hook', 'SessionStart'])"  # typer, not entry
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=payload,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and result.stderr == ""
    reply = json.loads(result.stdout)
    assert reply["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Subtopic 0.0" in reply["hookSpecificOutput"]["additionalContext"]


def test_hook_with_garbage_exits_0_silently() -> None:
    result = cms("hook", "UserPromptSubmit", stdin="garbage")
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


def test_worker_drains_a_chat_queue(tmp_path: Path) -> None:
    exchange = Exchange(
        user="We decided to pin Python 3.11 for the build.",
        assistant="Decision: the build pins Python 3.11.",
        turn=1,
    )
    queue.enqueue(
        "cli-chat",
        hook_queue.MAP_UPDATE,
        jobs.map_update_payload(exchange, project="p", cwd=str(tmp_path)),
    )
    result = cms("worker", "--session", "cli-chat")
    assert result.returncode == 0, result.stderr
    assert "applied 1 jobs" in result.stdout
    assert queue.list_jobs("cli-chat") == []
    assert "Python 3.11" in Path(paths.map_path("cli-chat")).read_text(encoding="utf-8")


def test_worker_without_session_drains_every_queue(tmp_path: Path) -> None:
    for session in ("chat-a", "chat-b"):
        exchange = Exchange(
            user=f"We decided {session} uses Redis.",
            assistant=f"Decision: {session} uses Redis.",
            turn=1,
        )
        queue.enqueue(
            session,
            hook_queue.MAP_UPDATE,
            jobs.map_update_payload(exchange, project="p", cwd=str(tmp_path)),
        )
    result = cms("worker")
    assert result.returncode == 0, result.stderr
    assert "applied 2 jobs" in result.stdout
    assert Path(paths.map_path("chat-a")).exists() and Path(paths.map_path("chat-b")).exists()


def test_replay_builds_the_map_turn_by_turn(tmp_path: Path) -> None:
    transcript = write_transcript(
        tmp_path / "session-42.jsonl", [numbered_turn("s", k) for k in range(1, 6)]
    )
    result = cms("replay", str(transcript), "--cwd", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["session"] == "session-42" and summary["turns"] == 5
    assert summary["accepted"] > 0
    cmap = load_map(paths.map_path("session-42"))
    assert {s.turn for p in cmap.planets() for s in p.satellites} >= {1, 5}
    assert (Path(paths.chat_dir("session-42")) / "index-cache.json").exists()


def test_replay_fresh_starts_from_an_empty_map(tmp_path: Path) -> None:
    build_map("again", suns=2, planets_per_sun=2, facts_per_planet=2)
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [
            turn_lines(
                "again", 1, "We decided the API returns ISO dates.", "Decision: ISO 8601 dates."
            )
        ],
    )
    result = cms("replay", str(transcript), "--session", "again", "--fresh", "--no-capture")
    assert result.returncode == 0, result.stderr
    assert "Topic 0" not in Path(paths.map_path("again")).read_text(encoding="utf-8")


def test_replay_of_a_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    result = cms("replay", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 1
    assert result.stderr.startswith("cms: error:") and "Traceback" not in result.stderr
