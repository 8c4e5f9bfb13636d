"""The chat's current task through the hook protocol (CMS_SYNC=1 runs each job inside its hook):
Stops keep it up to date, PreCompact folds in the turns no Stop saw, SessionStart injects it first
after compaction or on resume (never at startup), `cms show` prints it, and no secret or
question ever becomes part of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from cms import paths
from cms.hooks import inject
from cms.task.model import FILE_NAME, load_task
from tests.hooks.helpers import (
    ROOT,
    assert_clean_reply,
    build_map,
    hook_context,
    hook_env,
    run_hook_process,
    turn_lines,
    write_transcript,
)
from tests.test_secrets_everywhere import ALL as SECRETS

SESSION = "chat-task-1"
REQUEST = "Can you add rate limiting to the API? We get hammered by bots."
GOAL = "Add rate limiting to the API. We get hammered by bots."
TURNS = [
    (
        REQUEST,
        "I implemented the token bucket in `src/ratelimit.py`; its unit tests pass. "
        "Step 2 next: wiring it into the request middleware.",
    ),
    ("What does the refill rate default to?", "The refill rate defaults to 10 tokens per second."),
    (
        "Go ahead with step 2.",
        "The bucket is now wired into the request middleware in src/app.py. All 14 tests pass. "
        "Next, I'll make the limit configurable per route.",
    ),
]


def env() -> dict[str, str]:
    return hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})


def where(folder: Path, session: str = SESSION) -> dict[str, Any]:
    return {"session_id": session, "cwd": str(folder)}


def stop_turns(folder: Path, turns: list[tuple[str, str]], session: str = SESSION) -> Path:
    """Each (prompt, answer) through UserPromptSubmit and Stop on a growing transcript."""
    transcript = folder / f"{session}.jsonl"
    lines: list[list[dict[str, Any]]] = []
    for n, (prompt, answer) in enumerate(turns, start=1):
        hook_context("UserPromptSubmit", {**where(folder, session), "prompt": prompt}, env())
        lines.append(turn_lines(session, n, prompt, answer))
        write_transcript(transcript, lines)
        hook_context("Stop", {**where(folder, session), "transcript_path": str(transcript)}, env())
    return transcript


def start_context(folder: Path, source: str) -> str:
    return hook_context("SessionStart", {**where(folder), "source": source}, env())


def cms(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        env=env(),
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_stops_keep_the_task_a_question_changes_no_goal_and_step_2_next_is_next(
    tmp_path: Path,
) -> None:
    stop_turns(tmp_path, TURNS[:1])
    task = load_task(SESSION)
    assert task is not None and task.goal == GOAL and task.turn == 1
    assert task.done == [
        "I implemented the token bucket in `src/ratelimit.py`; its unit tests pass."
    ]
    assert task.next == ["Step 2: wiring it into the request middleware."]

    stop_turns(tmp_path, TURNS)  # the same first turn again (applied once), then two more
    task = load_task(SESSION)
    assert task is not None and task.turn == 3 and task.updated_at
    assert task.goal == GOAL and task.refined == []  # neither the question nor "go ahead"
    assert task.done == [
        "I implemented the token bucket in `src/ratelimit.py`; its unit tests pass.",
        "The bucket is now wired into the request middleware in src/app.py.",
        "All 14 tests pass.",
    ]
    assert task.next == ["Make the limit configurable per route."]  # step 2 is done


def test_a_chat_of_questions_has_no_task(tmp_path: Path) -> None:
    stop_turns(
        tmp_path,
        [
            ("How does the cache decide what to evict?", "It evicts the least recently used."),
            ("Which port does the staging database listen on?", "Port 5433."),
        ],
    )
    assert load_task(SESSION) is None
    assert not (Path(paths.chat_dir(SESSION)) / FILE_NAME).exists()


def test_precompact_folds_in_the_turns_no_stop_saw_and_session_start_injects_the_task_first(
    tmp_path: Path,
) -> None:
    build_map(SESSION, suns=5, planets_per_sun=10, facts_per_planet=4, title_chars=60)
    transcript = stop_turns(tmp_path, TURNS[:1])
    running = turn_lines(
        SESSION,
        2,
        "Also add a Retry-After header to the 429 responses.",
        "Added the Retry-After header in src/ratelimit.py. Then I'll update the API docs.",
    )
    lines = [turn_lines(SESSION, 1, *TURNS[0]), running]
    write_transcript(transcript, lines)  # compaction comes before this turn's Stop
    compact = {**where(tmp_path), "transcript_path": str(transcript), "trigger": "auto"}
    assert_clean_reply(run_hook_process("PreCompact", compact, env=env()))
    task = load_task(SESSION)
    assert task is not None and task.turn == 2
    assert task.refined == ["Add a Retry-After header to the 429 responses."]
    assert task.done[-1] == "Added the Retry-After header in src/ratelimit.py."
    assert task.next[0] == "Update the API docs."

    for source in ("compact", "resume"):
        text = start_context(tmp_path, source)
        body = text.splitlines()
        assert body[:3] == [
            inject.OPEN_TAG,
            inject.PREAMBLE,
            "[Current task of this chat, as of turn 2 (goal, done, next; read from its exchanges)]",
        ]
        assert body[3] == f"Goal: {GOAL}"
        assert "Next: Update the API docs." in body
        assert text.index("Next: Update the API docs.") < text.index("[Chat map index]")
        assert len(text) <= inject.HARD_CAP and body[-1] == inject.CLOSE_TAG
    for source in ("startup", "clear"):
        text = start_context(tmp_path, source)
        assert "[Chat map index]" in text  # the rest is injected as before
        assert "Current task" not in text and GOAL not in text


def test_cms_show_prints_the_task_as_text_and_json(tmp_path: Path) -> None:
    stop_turns(tmp_path, TURNS)
    shown = cms("show", "--session", SESSION)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.splitlines()
    assert out[1].startswith("current task (turn 3, updated 20")
    assert out[2] == f"  Goal: {GOAL}"
    assert "  Next: Make the limit configurable per route." in out
    data = json.loads(cms("show", "--session", SESSION, "--json").stdout)
    assert data["current_task"]["goal"] == GOAL and data["current_task"]["turn"] == 3
    assert data["suns"]  # the map is still all there
    other = tmp_path / "other" / "map.json"
    sample = str(ROOT / "examples" / "sample_ops.json")
    assert cms("ops", "apply", "--map", str(other), sample).returncode == 0
    assert json.loads(cms("show", "--map", str(other), "--json").stdout)["current_task"] is None
    assert "current task" not in cms("show", "--map", str(other)).stdout


def test_a_secret_in_a_request_never_reaches_the_task_file(tmp_path: Path) -> None:
    asks = [
        ("Please deploy staging: " + sentence, "Deployed staging. Next, I'll run the smoke tests.")
        for sentence in SECRETS.values()
    ]
    stop_turns(tmp_path, asks)
    text = (Path(paths.chat_dir(SESSION)) / FILE_NAME).read_text(encoding="utf-8")
    assert "deploy staging" in text.lower()
    assert [needle for needle in SECRETS if needle in text] == []


def test_a_next_step_the_agent_then_reports_done_leaves_the_task_cms_show_prints(
    tmp_path: Path,
) -> None:
    stop_turns(
        tmp_path,
        [
            (
                "Add rate limiting to the orders API.",
                "I added a token bucket in app/limit.py.\n\nNext steps:\n1. Add tests for the "
                "limiter.\n2. Document the limits in README.md.",
            ),
            ("Go on.", "I added tests for the limiter in tests/test_limit.py; they pass."),
        ],
        session="chat-task-done",
    )
    shown = cms("show", "--session", "chat-task-done").stdout.splitlines()
    assert "  Next: Document the limits in README.md." in shown, shown
    assert not any("Add tests for the limiter" in line for line in shown if "Next" in line)
