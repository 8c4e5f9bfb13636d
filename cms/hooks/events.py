"""Hook payloads (Claude Code and Codex stdin JSON) read into one typed, tolerant value.

Every field is optional: a missing field or a field of the wrong type is treated as absent,
never as an error. No I/O here except the caller's bytes; no decisions about what to do.
"""

from __future__ import annotations

import os

from cms import jsonio
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KNOWN_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "Stop",
    "SessionEnd",
    "PreCompact",
)
FILE_TOOLS = {"Read": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
              "Write": "file_path", "NotebookEdit": "notebook_path"}  # fmt: skip
COMMAND_TOOLS = ("Bash", "PowerShell")
MAX_TOOL_TEXT = 4_000  # a command or path is only used to look memory up
_BY_LOWER = {name.lower(): name for name in KNOWN_EVENTS}
MAX_SESSION_ID = 200
MAX_PROMPT_CHARS = 20_000  # a prompt is only used as a recall query


class HookEvent(Record, frozen=True):
    """One hook call."""

    name: str  # one of KNOWN_EVENTS
    session_id: str
    cwd: str
    transcript_path: str | None = None
    source: str = ""  # SessionStart: startup, resume, clear, compact, fork
    prompt: str = ""  # UserPromptSubmit
    last_assistant_message: str | None = None  # Stop
    stop_hook_active: bool = False  # Stop
    agent_id: str | None = None  # present only inside a subagent
    reason: str = ""  # SessionEnd reason or PreCompact trigger
    agent: str = "claude_code"  # or "codex"
    tool_name: str = ""  # PreToolUse
    tool_file: str = ""  # PreToolUse: the file a file tool is about to read or change
    tool_command: str = ""  # PreToolUse: the command a shell tool is about to run


def canonical_event(name: object) -> str | None:
    """The known event name for `name` (case-insensitive), or None."""
    if not isinstance(name, str):
        return None
    return _BY_LOWER.get(name.strip().lower())


def parse_payload(raw: bytes) -> dict[str, Any] | None:
    """The JSON object on stdin, or None when it is empty, not JSON or not an object."""
    if not raw.strip():
        return None
    try:
        data = jsonio.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _text(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    if not isinstance(value, str) or "\x00" in value:
        return None
    return value


def _agent_of(payload: dict[str, Any], transcript: str | None) -> str:
    if isinstance(payload.get("turn_id"), str):
        return "codex"
    if transcript and os.path.basename(transcript).startswith("rollout-"):
        return "codex"
    return "claude_code"


def read_event(event_arg: str | None, payload: dict[str, Any]) -> HookEvent | None:
    """The event named on the command line (else in the payload), or None when unusable.

    Unusable means: an unknown event name or no usable session id.
    """
    name = (
        canonical_event(event_arg) if event_arg else canonical_event(payload.get("hook_event_name"))
    )
    if name is None:
        return None
    session = _text(payload, "session_id")
    if session is None or not session.strip() or len(session) > MAX_SESSION_ID:
        return None
    cwd = _text(payload, "cwd")
    if not cwd:
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = "/"
    transcript = _text(payload, "transcript_path") or None
    reason = _text(payload, "reason") or _text(payload, "trigger") or ""
    return HookEvent(
        name=name,
        session_id=session.strip(),
        cwd=cwd,
        transcript_path=transcript,
        source=_text(payload, "source") or "",
        prompt=(_text(payload, "prompt") or "")[:MAX_PROMPT_CHARS],
        last_assistant_message=_text(payload, "last_assistant_message"),
        stop_hook_active=payload.get("stop_hook_active") is True,
        agent_id=_text(payload, "agent_id") or None,
        reason=reason,
        agent=_agent_of(payload, transcript),
        **_tool_of(payload),
    )


def _tool_of(payload: dict[str, Any]) -> dict[str, str]:
    """PreToolUse: the tool's name and the file or command it names (empty when none)."""
    name = _text(payload, "tool_name") or ""
    tool_input = payload.get("tool_input")
    if not name or not isinstance(tool_input, dict):
        return {"tool_name": name} if name else {}
    found = {"tool_name": name}
    if name in FILE_TOOLS:
        found["tool_file"] = (_text(tool_input, FILE_TOOLS[name]) or "")[:MAX_TOOL_TEXT]
    elif name in COMMAND_TOOLS:
        found["tool_command"] = (_text(tool_input, "command") or "")[:MAX_TOOL_TEXT]
    return found
