"""Codex rollouts (`~/.codex/sessions/.../rollout-*.jsonl`) read into Exchanges (agent "codex").

Knows session_meta, turn_context, response_item (message, function_call[_output],
custom_tool_call[_output], web_search_call, reasoning) and event_msg (user_message,
agent_message, ...) records of Codex 0.125 to 0.171. The environment-context and AGENTS.md
pseudo-user messages and developer messages (where hook context lands) are never prompts.
"""

from __future__ import annotations

import json
import re

from cms.transcripts import cleanup, jsonl, turns
from cms.transcripts.edits import patch_pairs
from cms.transcripts.exchange import Exchange

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cms.paths import StrPath
    from cms.transcripts.jsonl import Record
    from cms.transcripts.turns import LineCount

AGENT = "codex"

# Prompts come from event_msg/user_message when the rollout has them (0.125+ writes both that
# and a response_item copy); otherwise from response_item messages with role "user".
EVENT, RESPONSE = "event", "response"
_PSEUDO = re.compile(
    r"^\s*(?:<(environment_context|user_instructions|INSTRUCTIONS|permissions instructions|"
    r"user_shell_command|turn_aborted|skills_instructions|apps_instructions|collaboration_mode|"
    r"subagent_notification)>|# AGENTS\.md instructions for )"
)
_EXEC_HEADER = re.compile(
    r"^(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|"
    r"Original token count)\b.*$"
)
_EXIT_CODE = re.compile(r"Process exited with code (-?\d+)")
_RUNNING = re.compile(r"Process running with session ID (\d+)")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.MULTILINE)
_MOVE_TO = re.compile(r"^\*\*\* Move to: (.+)$", re.MULTILINE)
_CONTEXT_SCAN = 1024 * 1024  # how far before a prompt its turn_context is looked for


def _payload(record: Record) -> dict[str, Any]:
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else {}


def _message_text(payload: dict[str, Any]) -> str:
    content = payload.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("text"), str):
            parts.append(item["text"])
        elif item.get("type") in ("input_image", "image"):
            parts.append("[image]")
    return "\n".join(parts)


def prompt_text(record: Record, mode: str) -> str | None:
    """The user's own words when the record is a genuine prompt in this mode, else None."""
    payload = _payload(record)
    if mode == EVENT:
        if record.get("type") != "event_msg" or payload.get("type") != "user_message":
            return None
        text = payload.get("message") if isinstance(payload.get("message"), str) else ""
        images = payload.get("images")
        if isinstance(images, list) and images:
            text = f"{text}\n[image]" if text else "[image]"
    else:
        if record.get("type") != "response_item" or payload.get("type") != "message":
            return None
        if payload.get("role") != "user":
            return None
        text = _message_text(payload)
    text = cleanup.strip_injected(str(text)).strip()
    if not text or _PSEUDO.match(text):
        return None
    return text


def _prompt_of_line(line: bytes, mode: str) -> tuple[Record, str] | None:
    marker = b'"user_message"' if mode == EVENT else b'"user"'
    if marker not in line:
        return None
    record = jsonl.parse_line(line)
    if record is None:
        return None
    text = prompt_text(record, mode)
    return None if text is None else (record, text)


def _any_prompt(line: bytes) -> bool:
    return _prompt_of_line(line, EVENT) is not None or _prompt_of_line(line, RESPONSE) is not None


def _arguments(raw: object) -> object:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _patch_summary(patch: str, files: list[str]) -> str:
    entries = []
    for action, path in _PATCH_FILE.findall(patch):
        cleanup.add_file(files, path.strip())
        entries.append(f"{action} {path.strip()}")
    for path in _MOVE_TO.findall(patch):
        cleanup.add_file(files, path.strip())
    return ", ".join(entries) or patch


def _patch_of(args: object) -> list[tuple[str, str]]:
    """What a call's patch replaces: the patch given whole (apply_patch's input) or as an
    argument of the command that runs it (["apply_patch", "*** Begin Patch ..."])."""
    if isinstance(args, dict):
        command = args.get("command") or args.get("cmd")
        parts = [args.get("input"), *(command if isinstance(command, list) else [command])]
    else:
        parts = [args]
    return [pair for part in parts if isinstance(part, str) for pair in patch_pairs(part)]


def _tool_input(name: str, args: object, files: list[str]) -> str:
    """A short summary of a call's arguments; file paths it names go into `files`."""
    if isinstance(args, dict):
        command = args.get("cmd") or args.get("command")
        if isinstance(command, list):
            command = (
                command[-1]
                if len(command) >= 3 and command[1] == "-lc"
                else " ".join(str(part) for part in command)
            )
        if isinstance(command, str):
            return command
        if isinstance(args.get("input"), str) and "*** Begin Patch" in args["input"]:
            return _patch_summary(args["input"], files)
        if name == "update_plan" and isinstance(args.get("plan"), list):
            return "; ".join(
                f"{step.get('step', '')} [{step.get('status', '')}]"
                for step in args["plan"]
                if isinstance(step, dict)
            )
        for key in ("path", "file_path"):
            if isinstance(args.get(key), str):
                cleanup.add_file(files, args[key])
                return str(args[key])
        for key in ("message", "query", "url"):
            if isinstance(args.get(key), str):
                return str(args[key])
        return json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
    if isinstance(args, str) and "*** Begin Patch" in args:
        return _patch_summary(args, files)
    return str(args or "")


def _output(raw: object) -> tuple[str, bool, str | None]:
    """A call output as (text, is_error, session id of a still-running command)."""
    if isinstance(raw, dict):
        text = raw.get("content") or raw.get("output") or ""
        failed = raw.get("success") is False
        return str(text), failed, None
    text = str(raw or "")
    if text.startswith("{"):
        data = _arguments(text)
        if isinstance(data, dict) and "output" in data:
            meta = data.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return str(data.get("output") or ""), bool(code), None
    exit_code = _EXIT_CODE.search(text[:400])
    running = _RUNNING.search(text[:400])
    if exit_code or running:
        head, sep, body = text.partition("\nOutput:\n")
        if sep and all(_EXEC_HEADER.match(line) for line in head.splitlines() if line):
            text = body
        return (
            text,
            bool(exit_code and exit_code.group(1) != "0"),
            (running.group(1) if running else None),
        )
    return text, False, None


class _Turn:
    """One genuine prompt and every record after it, up to the next prompt."""

    def __init__(self, prompt: str, turn: int, timestamp: str | None) -> None:
        self.prompt, self.turn, self.timestamp = prompt, turn, timestamp
        self.texts: list[str] = []
        self.events: list[str] = []  # event_msg/agent_message: used when no response item
        self.tools: list[cleanup.PendingTool] = []
        self.by_call: dict[str, cleanup.PendingTool] = {}
        self.sessions: dict[str, cleanup.PendingTool] = {}  # running exec session id -> its command
        self.files: list[str] = []
        self.extra: dict[str, str] = {}

    def add(self, record: Record, line: bytes = b"") -> None:
        payload = _payload(record)
        kind, sub = record.get("type"), payload.get("type")
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and kind != "session_meta":  # rollouts carry no record ids
            self.extra[cleanup.LAST_RECORD] = f"{stamp}/{kind}/{len(line)}"
        if kind == "session_meta":
            for key, name in (("id", "session_id"), ("cwd", "cwd"), ("cli_version", "version")):
                if isinstance(payload.get(key), str):
                    self.extra[name] = payload[key]
        elif kind == "event_msg" and sub == "agent_message":
            if isinstance(payload.get("message"), str):
                self.events.append(payload["message"])
        elif kind == "response_item":
            self._add_item(sub, payload)

    def set_context(self, record: Record) -> None:
        """Take cwd and model from the turn_context that preceded this turn's prompt."""
        payload = _payload(record)
        for key in ("cwd", "model"):
            if isinstance(payload.get(key), str):
                self.extra[key] = payload[key]

    def _add_item(self, sub: object, payload: dict[str, Any]) -> None:
        if sub == "message" and payload.get("role") == "assistant":
            text = _message_text(payload)
            if text.strip():
                self.texts.append(text)
        elif sub in ("function_call", "custom_tool_call", "local_shell_call"):
            self._add_call(payload)
        elif sub in ("function_call_output", "custom_tool_call_output"):
            self._add_output(payload)
        elif sub == "web_search_call":
            action = payload.get("action")
            query = action.get("query") if isinstance(action, dict) else None
            self.tools.append(cleanup.PendingTool("web_search", str(query or "")))

    def _add_call(self, payload: dict[str, Any]) -> None:
        name = str(payload.get("name") or payload.get("type") or "tool")
        raw = payload.get("arguments", payload.get("input", payload.get("action")))
        args = _arguments(raw)
        call_id = str(payload.get("call_id") or payload.get("id") or "")
        if name == "write_stdin" and isinstance(args, dict):
            target = self.sessions.get(str(args.get("session_id")))
            if target is not None:  # polling a running command: its output belongs there
                self.by_call[call_id] = target
                return
        tool = cleanup.PendingTool(name, _tool_input(name, args, self.files), _patch_of(args))
        self.tools.append(tool)
        if call_id:
            self.by_call[call_id] = tool

    def _add_output(self, payload: dict[str, Any]) -> None:
        tool = self.by_call.get(str(payload.get("call_id")))
        if tool is None:
            return
        text, is_error, running = _output(payload.get("output"))
        if running:
            self.sessions[running] = tool
        if text.strip() or not tool.output:
            tool.output = f"{tool.output}\n{text}".strip() if tool.output else text
        tool.is_error = tool.is_error or is_error

    def build(self) -> Exchange | None:
        texts = self.texts or self.events
        if not self.prompt and not texts and not self.tools:
            return None
        return cleanup.build_exchange(
            self.prompt, texts, self.tools, self.files, self.turn, self.timestamp, AGENT, self.extra
        )


def _timestamp(record: Record) -> str | None:
    stamp = record.get("timestamp")
    return stamp if isinstance(stamp, str) else None


def _session_meta(path: StrPath) -> Record | None:
    for line in jsonl.read_head(path, 1024 * 1024)[:3]:
        record = jsonl.parse_line(line)
        if record is not None and record.get("type") == "session_meta":
            return record
    return None


def _is_context_line(line: bytes) -> bool:
    if b'"turn_context"' not in line:
        return False
    record = jsonl.parse_line(line)
    return record is not None and record.get("type") == "turn_context"


def read_latest_exchange(
    path: StrPath,
    last_assistant_message: str | None = None,
    *,
    memo: LineCount | None = None,
    end: int | None = None,
) -> Exchange | None:
    """The latest turn, read from the end of the rollout in bounded work (see
    claude_code.read_latest_exchange); None when it holds no turn and no last message is given.
    A `memo` kept from the previous call bounds the search and the prompt count; with `end` the
    rollout is read as if it ended there."""
    kept = memo if memo is not None and memo.tag.startswith(f"{AGENT}:") else None
    found = turns.find_turn(path, _any_prompt, kept, end=end)
    first_event = _prompt_of_line(found.head[0], EVENT) if found.start >= 0 else None
    first = first_event or (_prompt_of_line(found.head[0], RESPONSE) if found.start >= 0 else None)
    if first is None:
        mode = kept.tag.partition(":")[2] if kept is not None else EVENT
    else:
        mode = EVENT if first_event else RESPONSE
    number = turns.number_turn(
        path,
        found,
        lambda line: _prompt_of_line(line, mode) is not None,
        b'"user_message"' if mode == EVENT else b'"user"',
        tag=f"{AGENT}:{mode}",
        memo=memo,
    )
    turn = _Turn("", 0, None) if first is None else _Turn(first[1], number, _timestamp(first[0]))
    if found.start != 0:
        meta = _session_meta(path)
        if meta is not None:
            turn.add(meta)
    if first is not None and found.start > 0:
        _, before = jsonl.read_tail(path, _is_context_line, end=found.start, limit=_CONTEXT_SCAN)
        context = jsonl.parse_line(before[0]) if before else None
        if context is not None and context.get("type") == "turn_context":
            turn.set_context(context)
    for line in found.lines:
        record = jsonl.parse_line(line)
        if record is not None:
            turn.add(record, line)
    cleanup.note_reading(turn.extra, found)
    return cleanup.finish_exchange(turn.build(), last_assistant_message, AGENT)


def read_exchanges(path: StrPath) -> list[Exchange]:
    """Every turn of the rollout in order (turn 0 holds what precedes the first prompt)."""
    mode = RESPONSE
    for line in jsonl.iter_lines(path):
        if _prompt_of_line(line, EVENT) is not None:
            mode = EVENT
            break
    exchanges: list[Exchange] = []
    turn = _Turn("", 0, None)
    meta: Record | None = None
    context: Record | None = None
    for line in jsonl.iter_lines(path):
        prompt = _prompt_of_line(line, mode)
        if prompt is not None:
            built = turn.build()
            if built is not None:
                exchanges.append(built)
            turn = _Turn(prompt[1], turn.turn + 1, _timestamp(prompt[0]))
            if meta is not None:
                turn.add(meta)
            if context is not None:
                turn.set_context(context)
        record = prompt[0] if prompt is not None else jsonl.parse_line(line)
        if record is None:
            continue
        if record.get("type") == "session_meta":
            meta = record
        elif record.get("type") == "turn_context":
            context = record
        turn.add(record, line)
    built = turn.build()
    if built is not None:
        exchanges.append(built)
    return exchanges


def read_summaries(path: StrPath) -> list[str]:
    """The compaction summaries of the rollout in order (`compacted` records; cleaned and
    redacted, empty ones left out)."""
    found = []
    for line in jsonl.iter_lines(path):
        if b'"compacted"' not in line:
            continue
        record = jsonl.parse_line(line)
        if record is None or record.get("type") != "compacted":
            continue
        message = _payload(record).get("message")
        summary = cleanup.clean_summary(message) if isinstance(message, str) else ""
        if summary:
            found.append(summary)
    return found
