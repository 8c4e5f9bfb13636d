"""Random and malformed stdin never breaks a hook: exit 0, stdout empty or one valid JSON reply,
no traceback anywhere but the log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cms import paths
from cms.hooks import runner
from tests.hooks.helpers import EVENTS, assert_clean_reply, hook_env, run_hook_process

KEYS = (
    "session_id",
    "cwd",
    "transcript_path",
    "prompt",
    "source",
    "last_assistant_message",
    "stop_hook_active",
    "agent_id",
    "hook_event_name",
    "reason",
    "trigger",
    "turn_id",
    "permission_mode",
    "prompt_id",
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.sampled_from(["", "/", "/etc/passwd", "..", "s1", "Stop", "\x00", "/dev/zero"]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
PAYLOADS = st.dictionaries(st.sampled_from(KEYS), JSON_VALUES, max_size=len(KEYS))
STDIN = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda t: t.encode("utf-8")),
    JSON_VALUES.map(lambda v: json.dumps(v).encode("utf-8")),
    PAYLOADS.map(lambda p: json.dumps(p).encode("utf-8")),
    PAYLOADS.map(lambda p: json.dumps({**p, "session_id": "fuzz-chat"}).encode("utf-8")),
)
EVENT_ARGS = st.sampled_from([*EVENTS, "PreToolUse", "bogus", "", "stop"])


def check_reply(out: str, err: str) -> None:
    assert "Traceback" not in out and "Traceback" not in err
    assert err == ""
    if out.strip():
        reply = json.loads(out)
        assert isinstance(reply, dict)
        context = reply["hookSpecificOutput"]["additionalContext"]
        assert isinstance(context, str) and len(context) <= 9500


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(event=EVENT_ARGS, raw=STDIN)
def test_random_stdin_in_process_never_escapes_the_boundary(
    event: str, raw: bytes, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CMS_SYNC", "1")  # run jobs inline: no detached workers from a fuzz run
    monkeypatch.setattr(runner, "read_stdin", lambda: raw)
    assert runner.run_hook([event]) == 0
    out, err = capfd.readouterr()
    check_reply(out, err)


def test_a_crashing_handler_is_logged_not_shown(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from cms.hooks import prompt_submit

    def explode(*args: Any) -> None:
        raise RuntimeError("boom in handler")

    monkeypatch.setattr(prompt_submit, "handle", explode)
    monkeypatch.setattr(runner, "read_stdin", lambda: b'{"session_id": "s", "prompt": "x"}')
    assert runner.run_hook(["UserPromptSubmit"]) == 0
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    log = Path(paths.log_path()).read_text(encoding="utf-8")
    assert "hook_failed" in log and "boom in handler" in log


HAND_CASES: dict[str, bytes] = {
    "empty": b"",
    "not json": b"this is not json {",
    "json array": b'[{"session_id": "s"}]',
    "json string": b'"session_id"',
    "binary": bytes(range(256)) * 4,
    "wrong types": json.dumps(
        {
            "session_id": ["s"],
            "cwd": 3,
            "prompt": {"a": 1},
            "transcript_path": False,
            "source": 9,
            "last_assistant_message": [1],
        }
    ).encode(),
    "nulls": json.dumps({k: None for k in KEYS}).encode(),
    "deep nesting": b"[" * 50_000 + b"]" * 50_000,
    "missing transcript": json.dumps(
        {
            "session_id": "s",
            "cwd": "/nonexistent/dir",
            "transcript_path": "/nonexistent/t.jsonl",
            "prompt": "p",
            "source": "resume",
        }
    ).encode(),
    "transcript is a folder": json.dumps(
        {"session_id": "s", "cwd": "/", "transcript_path": "/", "last_assistant_message": "done"}
    ).encode(),
    "odd session id": json.dumps(
        {"session_id": "../../etc/passwd", "cwd": "/", "prompt": "p", "source": "startup"}
    ).encode(),
    "huge": b'{"session_id": "s", "prompt": "' + b"x" * (9 * 1024 * 1024) + b'"}',
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(HAND_CASES))
@pytest.mark.parametrize("event", [*EVENTS, "UnknownEvent"])
def test_malformed_stdin_in_a_real_process_exits_0_quietly(event: str, case: str) -> None:
    done = run_hook_process(event, HAND_CASES[case], env=hook_env({"CMS_SYNC": "1"}))
    assert_clean_reply(done)


@pytest.mark.slow
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(event=st.sampled_from(EVENTS), raw=STDIN)
def test_random_stdin_in_a_real_process_exits_0_quietly(event: str, raw: bytes) -> None:
    done = run_hook_process(event, raw, env=hook_env({"CMS_SYNC": "1"}))
    assert_clean_reply(done)


def test_no_event_argument_at_all_is_quiet(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cms", "hook"],
        input=b"{}",
        capture_output=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
    assert_clean_reply(done)
