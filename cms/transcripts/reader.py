"""The one entry point the rest of cms uses to read a transcript: format detection and dispatch.

Claude Code transcripts and Codex rollouts are told apart by their records, not their names.
Every text in a returned Exchange is already cleaned, trimmed and redacted. A transcript that
cannot be read raises TranscriptError, except at Stop time when the hook's own
`last_assistant_message` can stand in for it (see read_latest_exchange).
"""

from __future__ import annotations

import os
import re

from cms.errors import TranscriptError
from cms.transcripts import claude_code, cleanup, codex, jsonl
from cms.transcripts.exchange import Exchange

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from cms.paths import StrPath
    from cms.transcripts.turns import LineCount

    Format = Literal["claude_code", "codex"]

_CODEX_TYPES = re.compile(rb'"type"\s*:\s*"(?:session_meta|response_item|event_msg|turn_context)"')
_CLAUDE_KEYS = re.compile(
    rb'"(?:parentUuid|isSidechain|sessionId|leafUuid)"\s*:|"type"\s*:\s*"(?:user|assistant|'
    rb"summary|file-history-snapshot|queue-operation|last-prompt|attachment|progress|system|"
    rb'custom-title|ai-title|mode|permission-mode)"'
)


def detect_format(path: StrPath) -> Format | None:
    """ "claude_code" or "codex" from the first records of the file; None when it is empty or
    holds neither (a missing or unreadable file raises TranscriptError)."""
    for line in jsonl.read_head(path, 256 * 1024)[:50]:
        head = line[:4096]
        if _CODEX_TYPES.search(head):
            return "codex"
        if _CLAUDE_KEYS.search(head if len(line) <= 4096 else line):
            return "claude_code"
    name = os.path.basename(path)
    if name.startswith("rollout-") and name.endswith(".jsonl"):
        return "codex"
    return None


def _format_of(path: StrPath) -> Format:
    jsonl.check_readable(path)
    return detect_format(path) or "claude_code"  # an empty file reads as no turns


def read_latest_exchange(
    path: StrPath | None,
    last_assistant_message: str | None = None,
    *,
    agent: Format = "claude_code",
    memo: LineCount | None = None,
    end: int | None = None,
) -> Exchange | None:
    """The latest exchange of the chat, or None when the transcript holds no turn.

    With `last_assistant_message` (the Stop hook's field) the assistant side is completed from
    it when the transcript lags. If the transcript is missing or unreadable and that message is
    given, an Exchange with an empty user side, turn 0 and `extra["transcript"] = "missing"` comes
    back (labelled with `agent`) instead of an error, so a Stop is never lost. `memo` carries the
    prompt count between calls on a growing transcript (see turns.count_lines); with `end` the
    transcript is read as if it ended there (the size it had when the Stop hook ran)."""
    try:
        if path is None:
            raise TranscriptError("no transcript path given")
        if _format_of(path) == "codex":
            return codex.read_latest_exchange(path, last_assistant_message, memo=memo, end=end)
        return claude_code.read_latest_exchange(path, last_assistant_message, memo=memo, end=end)
    except TranscriptError:
        if not last_assistant_message:
            raise
        bare = Exchange(user="", assistant="", agent=agent, extra={"transcript": "missing"})
        exchange = cleanup.with_last_message(bare, last_assistant_message)
        return exchange if exchange.assistant else None


def read_exchanges(path: StrPath) -> list[Exchange]:
    """Every turn of the transcript in order (for `cms replay` and turn-by-turn tests)."""
    if _format_of(path) == "codex":
        return codex.read_exchanges(path)
    return claude_code.read_exchanges(path)


def read_summaries(path: StrPath) -> list[str]:
    """The chat's compaction summaries in order, cleaned and redacted (none: an empty list)."""
    if _format_of(path) == "codex":
        return codex.read_summaries(path)
    return claude_code.read_summaries(path)
