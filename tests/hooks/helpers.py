"""Helpers for hook tests: run `cms hook` as a real process, write transcripts, build maps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cms import paths
from cms.map.model import CorrelationMap, Planet, Satellite, Sun, new_map
from cms.map.store import save_map

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd", "PreCompact")


def hook_env(extra: Mapping[str, str] | None = None, drop: Sequence[str] = ()) -> dict[str, str]:
    """The test environment (CMS_HOME etc. from the autouse fixture) plus the repo on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    for name in drop:
        env.pop(name, None)
    env.update(extra or {})
    return env


def run_hook_process(
    event: str,
    stdin: bytes | str | dict[str, Any],
    env: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[bytes]:
    """`python -m cms hook EVENT` with stdin; returns the finished process."""
    if isinstance(stdin, dict):
        stdin = json.dumps(stdin)
    if isinstance(stdin, str):
        stdin = stdin.encode("utf-8")
    return subprocess.run(
        [sys.executable, "-m", "cms", "hook", event],
        input=stdin,
        capture_output=True,
        env=dict(env) if env is not None else hook_env(),
        timeout=timeout,
        check=False,
    )


def assert_clean_reply(done: subprocess.CompletedProcess[bytes]) -> dict[str, Any] | None:
    """Exit 0, no traceback anywhere, stdout empty or one JSON object; returns it."""
    assert done.returncode == 0, done
    for stream in (done.stdout, done.stderr):
        assert b"Traceback" not in stream, stream.decode("utf-8", "replace")
    assert done.stderr == b"", done.stderr.decode("utf-8", "replace")
    if not done.stdout.strip():
        return None
    reply = json.loads(done.stdout)
    assert isinstance(reply, dict)
    return reply


def context_of(reply: dict[str, Any] | None, event: str) -> str:
    assert reply is not None, "expected a reply"
    output = reply["hookSpecificOutput"]
    assert output["hookEventName"] == event
    text = output["additionalContext"]
    assert isinstance(text, str)
    return text


# ----------------------------------------------------------------------------- transcripts


def user_line(
    uid: str, parent: str | None, session: str, content: Any, **extra: Any
) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": uid,
        "parentUuid": parent,
        "sessionId": session,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/tmp/project",
        "version": "2.1.332",
        "timestamp": "2026-11-29T10:00:00Z",
        "message": {"role": "user", "content": content},
        **extra,
    }


def assistant_line(
    uid: str, parent: str, session: str, msg_id: str, blocks: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": uid,
        "parentUuid": parent,
        "sessionId": session,
        "isSidechain": False,
        "requestId": f"req_{msg_id}",
        "timestamp": "2026-11-29T10:00:01Z",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": blocks,
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {},
        },
    }


def turn_lines(
    session: str,
    turn: int,
    prompt: str,
    answer: str,
    tool_command: str | None = None,
    tool_output: str = "",
) -> list[dict[str, Any]]:
    """One Claude Code turn: prompt, optional Bash call and result, final answer."""
    lines = [user_line(f"u{turn}", f"a{turn - 1}" if turn > 1 else None, session, prompt)]
    parent = f"u{turn}"
    if tool_command is not None:
        lines.append(
            assistant_line(
                f"t{turn}",
                parent,
                session,
                f"msg_t{turn}",
                [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{turn:04d}",
                        "name": "Bash",
                        "input": {"command": tool_command},
                    }
                ],
            )
        )
        lines.append(
            user_line(
                f"r{turn}",
                f"t{turn}",
                session,
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{turn:04d}",
                        "content": tool_output,
                    }
                ],
                toolUseResult={"stdout": tool_output, "stderr": "", "interrupted": False},
            )
        )
        parent = f"r{turn}"
    lines.append(
        assistant_line(
            f"a{turn}", parent, session, f"msg_{turn}", [{"type": "text", "text": answer}]
        )
    )
    return lines


def write_transcript(path: Path, turns: Sequence[list[dict[str, Any]]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for turn in turns:
            for line in turn:
                handle.write(json.dumps(line) + "\n")
    return path


TOPICS = (
    "postgres",
    "redis cache",
    "deploy pipeline",
    "auth tokens",
    "logging",
    "parser",
    "retry policy",
    "schema migration",
    "metrics",
    "worker queue",
)


def numbered_turn(session: str, turn: int) -> list[dict[str, Any]]:
    topic = TOPICS[(turn - 1) % len(TOPICS)]
    return turn_lines(
        session,
        turn,
        f"Turn {turn}: we decided to use marker{turn:02d} for the {topic}. Please note it.",
        f"Decision recorded: the {topic} now uses marker{turn:02d} (turn {turn}). "
        f"I updated src/{topic.replace(' ', '_')}.py accordingly.",
    )


# ----------------------------------------------------------------------------- maps


def build_map(
    session: str, suns: int, planets_per_sun: int, facts_per_planet: int, title_chars: int = 40
) -> CorrelationMap:
    """A map of the given size written at the session's map path (ids, times, all valid)."""
    cmap = new_map(session, "test-project")
    stamp = cmap.created_at
    for s in range(suns):
        sun = Sun(cmap.allocate_id("S"), f"Topic {s} " + "t" * max(0, title_chars - 10), stamp)
        for p in range(planets_per_sun):
            planet = Planet(
                cmap.allocate_id("P"),
                (f"Subtopic {s}.{p} " + "p" * title_chars)[:title_chars],
                1 + (p % 4),
                stamp,
                stamp,
            )
            for f in range(facts_per_planet):
                planet.satellites.append(
                    Satellite(
                        cmap.allocate_id("F"),
                        f"fact {s}.{p}.{f} about the subject",
                        stamp,
                        stamp,
                        1,
                    )
                )
            sun.planets.append(planet)
        cmap.suns.append(sun)
    save_map(paths.map_path(session), cmap)
    return cmap


def wait_until(predicate: Any, timeout: float = 60.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def all_text_under(folder: Path) -> str:
    """Every file under folder decoded leniently (for secret scans)."""
    parts = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def turn_boundaries(lines: Sequence[bytes]) -> list[int]:
    """Line counts at which a turn of a real transcript ends (where Stop fires): just before each
    genuine prompt after the first, and at the end of the file."""
    from cms.transcripts import claude_code, codex, jsonl

    records = [jsonl.parse_line(line) for line in lines]
    is_codex = any(
        r is not None and r.get("type") in ("session_meta", "response_item", "event_msg")
        for r in records
    )
    mode = codex.RESPONSE
    if is_codex and any(
        r is not None
        and r.get("type") == "event_msg"
        and isinstance(r.get("payload"), dict)
        and r["payload"].get("type") == "user_message"
        for r in records
    ):
        mode = codex.EVENT

    def is_prompt(record: dict[str, Any] | None) -> bool:
        if record is None:
            return False
        if is_codex:
            return codex.prompt_text(record, mode) is not None
        return claude_code.prompt_text(record) is not None

    starts = [i for i, record in enumerate(records) if is_prompt(record)]
    ends = [i for i in starts[1:]]
    return [*ends, len(lines)] if lines else []


def hook_context(event: str, payload: dict[str, Any], env: Mapping[str, str]) -> str:
    """Run one hook as a process (event name in the payload); its injected text or ""."""
    done = run_hook_process(event, {"hook_event_name": event, **payload}, env=env)
    reply = assert_clean_reply(done)
    return context_of(reply, event) if reply else ""


def replay_chat_hooks(
    folder: Path,
    repo: Path,
    session: str,
    turns: Sequence[tuple[str, str]],
    env: Mapping[str, str],
) -> None:
    """One chat through the hook protocol: SessionStart, then per (prompt, answer) turn a
    UserPromptSubmit and a Stop on a growing transcript in folder, then SessionEnd."""
    where = {"session_id": session, "cwd": str(repo)}
    hook_context("SessionStart", {**where, "source": "startup"}, env)
    lines: list[list[dict[str, Any]]] = []
    transcript = folder / f"{session}.jsonl"
    for n, (prompt, answer) in enumerate(turns, start=1):
        hook_context("UserPromptSubmit", {**where, "prompt": prompt}, env)
        lines.append(turn_lines(session, n, prompt, answer))
        write_transcript(transcript, lines)
        hook_context("Stop", {**where, "transcript_path": str(transcript)}, env)
    hook_context("SessionEnd", {**where, "transcript_path": str(transcript), "reason": "exit"}, env)
