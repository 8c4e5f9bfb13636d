"""Builders for synthetic transcripts shaped like the real ones (records as the CLIs write them)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = ROOT.parent / "shared" / "data"
_ids = itertools.count(1)


def real_transcripts() -> list[Path]:
    """Every real Claude Code transcript and Codex rollout under ../shared/data."""
    if not SHARED_DATA.is_dir():
        return []
    found = [
        *SHARED_DATA.glob("claude-code-samples/*/transcripts/*.jsonl"),
        *SHARED_DATA.glob("claude-code-samples/*/rollouts/*.jsonl"),
        *SHARED_DATA.glob("transcripts/claude-code/**/*.jsonl"),
        *SHARED_DATA.glob("transcripts/codex/**/*.jsonl"),
    ]
    return sorted(set(found))


def write_jsonl(path: Path, records: Iterable[dict[str, Any] | str]) -> Path:
    """One record per line; a str is written as it is (for malformed lines)."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _base(kind: str, **extra: Any) -> dict[str, Any]:
    n = next(_ids)
    record: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": False,
        "type": kind,
        "uuid": f"uuid-{n}",
        "timestamp": f"2026-01-01T00:00:{n % 60:02d}Z",
        "sessionId": "S",
        "cwd": "/home/dev/proj",
        "version": "2.1.200",
        "userType": "external",
    }
    record.update(extra)
    return record


def user(content: str | list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return _base("user", message={"role": "user", "content": content}, **extra)


def assistant(*blocks: dict[str, Any], msg_id: str | None = None, **extra: Any) -> dict[str, Any]:
    message = {
        "id": msg_id or f"msg_{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(blocks),
        "stop_reason": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    return _base("assistant", message=message, requestId="req_1", **extra)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, **inputs: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": inputs}


def tool_result(
    tool_id: str, content: str | list[dict[str, Any]], is_error: bool = False, **extra: Any
) -> dict[str, Any]:
    block = {
        "type": "tool_result",
        "tool_use_id": tool_id,
        "content": content,
        "is_error": is_error,
    }
    return user([block], **extra)


def attachment(payload: dict[str, Any]) -> dict[str, Any]:
    return _base("attachment", attachment=payload)


def system(subtype: str, **extra: Any) -> dict[str, Any]:
    return _base("system", subtype=subtype, **extra)


def turn(prompt: str, answer: str) -> list[dict[str, Any]]:
    """A plain prompt and its one-block answer."""
    return [user(prompt), assistant(text(answer))]


# Codex rollouts


def codex_record(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    n = next(_ids)
    return {"timestamp": f"2026-05-12T10:00:{n % 60:02d}.000Z", "type": kind, "payload": payload}


def codex_meta() -> dict[str, Any]:
    return codex_record(
        "session_meta",
        {"id": "thread-1", "cwd": "/home/dev/proj", "cli_version": "0.171.0", "originator": "x"},
    )


def codex_context(model: str = "gpt-test") -> dict[str, Any]:
    return codex_record("turn_context", {"cwd": "/home/dev/proj", "model": model})


def codex_message(role: str, value: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return codex_record(
        "response_item",
        {"type": "message", "role": role, "content": [{"type": kind, "text": value}]},
    )


def codex_event(kind: str, **payload: Any) -> dict[str, Any]:
    return codex_record("event_msg", {"type": kind, **payload})


def codex_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return codex_record(
        "response_item",
        {
            "type": "function_call",
            "name": name,
            "arguments": json.dumps(arguments),
            "call_id": call_id,
        },
    )


def codex_output(call_id: str, output: str) -> dict[str, Any]:
    return codex_record(
        "response_item", {"type": "function_call_output", "call_id": call_id, "output": output}
    )


def exec_output(body: str, code: int = 0) -> str:
    return (
        f"Chunk ID: ab12cd\nWall time: 0.0100 seconds\nProcess exited with code {code}\n"
        f"Original token count: 3\nOutput:\n{body}"
    )
