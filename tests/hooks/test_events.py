"""Hook payloads are read tolerantly: wrong types count as absent, never as errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cms.hooks.events import canonical_event, parse_payload, read_event

SAMPLES = Path("/work/shared/data/claude-code-samples")


def test_unknown_event_names_and_missing_session_ids_give_no_event() -> None:
    assert read_event("PostToolUse", {"session_id": "s"}) is None
    assert read_event("Stop", {}) is None
    assert read_event("Stop", {"session_id": ""}) is None
    assert read_event("Stop", {"session_id": 42}) is None
    assert read_event("Stop", {"session_id": "x" * 500}) is None
    assert read_event(None, {"session_id": "s"}) is None


def test_event_name_is_case_insensitive_and_falls_back_to_the_payload() -> None:
    assert canonical_event("userpromptsubmit") == "UserPromptSubmit"
    event = read_event(None, {"session_id": "s", "hook_event_name": "SessionEnd"})
    assert event is not None and event.name == "SessionEnd"


def test_fields_of_the_wrong_type_are_treated_as_absent() -> None:
    event = read_event(
        "Stop",
        {
            "session_id": "s1",
            "cwd": ["not", "a", "string"],
            "transcript_path": 7,
            "last_assistant_message": {"text": "x"},
            "stop_hook_active": "yes",
            "agent_id": None,
            "prompt": b"x".decode() + "\x00",
        },
    )
    assert event is not None
    assert event.transcript_path is None
    assert event.last_assistant_message is None
    assert event.stop_hook_active is False
    assert event.agent_id is None
    assert event.prompt == ""
    assert event.cwd  # falls back to the process's folder


@pytest.mark.parametrize(
    "raw", [b"", b"   ", b"not json", b"[1, 2]", b"\xff\xfe\x00", b"42", b'"text"', b"[" * 100_000]
)
def test_payloads_that_are_not_json_objects_are_none(raw: bytes) -> None:
    assert parse_payload(raw) is None


def test_codex_payloads_are_recognised_by_turn_id_or_rollout_name() -> None:
    event = read_event("Stop", {"session_id": "s", "turn_id": "t1"})
    assert event is not None and event.agent == "codex"
    event = read_event("Stop", {"session_id": "s", "transcript_path": "/x/rollout-2026-a.jsonl"})
    assert event is not None and event.agent == "codex"
    event = read_event("Stop", {"session_id": "s", "transcript_path": "/x/abc.jsonl"})
    assert event is not None and event.agent == "claude_code"


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="real hook payloads not available")
def test_every_real_payload_of_our_events_is_read() -> None:
    seen = set()
    for path in sorted(SAMPLES.glob("*/hooks*/*.json")):
        stdin = json.loads(path.read_text(encoding="utf-8"))["stdin"]
        name = path.name.split(".")[0]
        event = read_event(name, stdin)
        if canonical_event(name) is None:
            assert event is None
            continue
        assert event is not None, path
        assert event.session_id == stdin["session_id"]
        assert event.cwd == stdin["cwd"]
        if name == "SessionStart":
            assert event.source == stdin["source"]
        if name == "Stop":
            assert event.last_assistant_message == stdin["last_assistant_message"]
        if name == "UserPromptSubmit":
            assert event.prompt == stdin["prompt"]
        if name == "PreToolUse":
            tool = stdin["tool_input"]
            assert event.tool_name == stdin["tool_name"]
            assert event.tool_file == tool.get("file_path", "")
            assert event.tool_command == (
                tool.get("command", "") if event.tool_name == "Bash" else ""
            )
        seen.add(name)
    assert seen == {
        "SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd", "PreCompact"
    }  # fmt: skip
