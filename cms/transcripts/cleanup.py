"""Text cleanup shared by the transcript readers: dropping injected context, trimming, redacting.

Owns the size limits of an Exchange's texts and the rule that our own `<cms-memory>` context and
the agent's `<system-reminder>` blocks never reach the extractor. Knows nothing of file formats.
"""

from __future__ import annotations

from cms.lazypattern import DOTALL, IGNORECASE, MULTILINE, LazyPattern
from cms.transcripts.exchange import Exchange, ToolCall
from cms.transcripts.redact import redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeVar

    from cms.transcripts.turns import TurnLines

    T = TypeVar("T")

USER_LIMIT = 4_000
ASSISTANT_LIMIT = 6_000
TOOL_INPUT_LIMIT = 300
TOOL_OUTPUT_LIMIT = 400
EDIT_LIMIT = 600  # each side of an edit's replacement kept (what values it changed)
MAX_EDITS = 8  # replacements kept of one tool call
SUMMARY_LIMIT = 40_000  # a compaction summary (the agent's own account of the chat so far)
# Tools whose result is a subagent's report: prose an agent wrote, kept like an answer.
SUBAGENT_TOOLS = ("Task", "Agent")
# Tools whose result is a report too: what a model read on the web, found nowhere in the repo
# (a file's content or a command's output can be read again; these cannot).
REPORT_TOOLS = (*SUBAGENT_TOOLS, "WebSearch", "WebFetch")
MAX_TOOLS = 80  # a turn with more keeps the first TOOLS_HEAD and the rest from the end
TOOLS_HEAD = 20
MAX_FILES = 50
_MARGIN = 200  # characters kept past each side of a trim before redaction (a secret cut is whole)
LAST_RECORD = "last_record"  # Exchange.extra key: the id of the turn's last transcript record

# Spans that are context injected by hooks (ours or the agent's), never what the user said.
_INJECTED_TAGS = ("cms-memory", "system-reminder", "user-prompt-submit-hook")
_INJECTED = LazyPattern(
    r"<(cms-memory|system-reminder|user-prompt-submit-hook)\b[^>]*>.*?(?:</\1>|\Z)",
    DOTALL | IGNORECASE,
    hints=_INJECTED_TAGS,
)
_STRAY_CLOSE = LazyPattern(
    r"</(?:cms-memory|system-reminder|user-prompt-submit-hook)>", IGNORECASE, hints=_INJECTED_TAGS
)
_LINE_NUMBERS = LazyPattern(r"^ *\d+→", MULTILINE, hints=("→",))  # Read output: "  12→code"
_BLANK_RUNS = LazyPattern(r"\n{3,}", hints=("\n\n\n",))
_SPACES = LazyPattern(r"\s+")


def strip_injected(text: str) -> str:
    """The text without `<cms-memory>`, `<system-reminder>` and hook-injected spans."""
    if "<" not in text:
        return text
    text = _INJECTED.sub("", text)
    return _STRAY_CLOSE.sub("", text)


def strip_line_numbers(text: str) -> str:
    return _LINE_NUMBERS.sub("", text) if "→" in text else text


def _cut_back(text: str, at: int) -> int:
    """A cut position at or before `at` that falls on whitespace when one is near."""
    space = max(text.rfind(" ", at - 40, at), text.rfind("\n", at - 40, at))
    return space if space > 0 else at


def _cut_forward(text: str, at: int) -> int:
    candidates = [i for i in (text.find(" ", at, at + 40), text.find("\n", at, at + 40)) if i >= 0]
    return min(candidates) + 1 if candidates else at


def trim_middle(text: str, limit: int, head_share: float = 0.5) -> str:
    """At most about `limit` characters: the head and the tail, with a marker between."""
    if len(text) <= limit:
        return text
    head = max(int(limit * head_share), 0)
    tail = max(limit - head, 0)
    head_end = _cut_back(text, head) if head else 0
    tail_start = _cut_forward(text, len(text) - tail) if tail else len(text)
    omitted = tail_start - head_end
    return f"{text[:head_end].rstrip()}\n[... {omitted} chars trimmed ...]\n{text[tail_start:].lstrip()}"


def clean_text(text: str, limit: int, head_share: float = 0.5) -> str:
    """Injected spans dropped, whitespace tidied, secrets redacted, trimmed to about `limit`."""
    text = strip_injected(text).strip()
    if not text:
        return ""
    if len(text) > limit + 2 * _MARGIN:
        # only what the final trim can keep, plus a margin on each side, pays for redaction
        text = _trim_whole_words(text, int(limit * head_share) + _MARGIN, limit + 2 * _MARGIN)
    text = _BLANK_RUNS.sub("\n\n", redact_text(text))
    return trim_middle(text, limit, head_share)


# The lines an agent wraps a compaction summary in: where it comes from, where the rest is.
_SUMMARY_FRAME = LazyPattern(
    r"^(?:This session is being continued from a previous conversation|If you need specific "
    r"details from before compaction)[^\n]*$",
    MULTILINE,
    hints=("This session is being continued", "If you need specific details"),
)


def clean_summary(text: str) -> str:
    """A compaction summary without the agent's framing lines, cleaned like any text."""
    return clean_text(_SUMMARY_FRAME.sub("", text), SUMMARY_LIMIT)


def _trim_whole_words(text: str, head: int, keep: int) -> str:
    """The first `head` and last `keep - head` characters with a marker between, a word cut at
    either edge dropped whole: redaction never sees (and no trim can later show) half a secret."""
    tail_start = len(text) - (keep - head)
    front, back = text[:head], text[tail_start:]
    if not (text[head - 1].isspace() or text[head].isspace()):  # the cut splits a word
        front = front[: max(front.rfind(c) for c in " \n\t") + 1]
    if not (text[tail_start - 1].isspace() or text[tail_start].isspace()):
        cuts = [i for i in (back.find(c) for c in " \n\t") if i >= 0]
        back = back[min(cuts) :] if cuts else ""
    omitted = len(text) - len(front) - len(back)
    return f"{front.rstrip()}\n[... {omitted} chars trimmed ...]\n{back.lstrip()}"


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces, redacted, trimmed (tool inputs)."""
    return clean_text(_SPACES.sub(" ", strip_injected(text)), limit, 0.7)


def _normalized(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def build_exchange(
    user: str,
    texts: list[str],
    tools: list[PendingTool],
    files: list[str],
    turn: int,
    timestamp: str | None,
    agent: str,
    extra: dict[str, str],
) -> Exchange:
    """One collected turn as an Exchange: texts cleaned and trimmed, tools capped, extra redacted."""
    kept_extra = {key: redact_text(value) for key, value in extra.items()}
    return Exchange(
        user=clean_text(user, USER_LIMIT, 0.75),
        assistant=clean_text("\n\n".join(t.strip() for t in texts), ASSISTANT_LIMIT, 0.3),
        tools=tuple(tool.freeze() for tool in cap_tools(tools, kept_extra)),
        files=tuple(files),
        turn=turn,
        timestamp=timestamp,
        agent=agent,
        extra=kept_extra,
    )


def note_reading(extra: dict[str, str], found: TurnLines) -> None:
    """Record in an Exchange's extra how its turn was read when it was not read whole."""
    if found.skipped > 0:
        extra["transcript_skipped_bytes"] = str(found.skipped)
    if found.lost:
        extra["prompt"] = "beyond reach"  # no kept count and no prompt near the end


def finish_exchange(
    exchange: Exchange | None, last_assistant_message: str | None, agent: str
) -> Exchange | None:
    """A reader's latest exchange completed by the Stop hook's message; None when both lack one
    (a transcript without a genuine prompt still gives an exchange when the message exists)."""
    if exchange is None:
        if not last_assistant_message:
            return None
        exchange = Exchange(user="", assistant="", agent=agent)
    return with_last_message(exchange, last_assistant_message)


def with_last_message(exchange: Exchange, last_assistant_message: str | None) -> Exchange:
    """The exchange, completed by the Stop hook's `last_assistant_message` when the transcript
    lags behind it (the message is appended unless the transcript already ends with it)."""
    if not last_assistant_message:
        return exchange
    message = clean_text(last_assistant_message, ASSISTANT_LIMIT, 0.3)
    if not message:
        return exchange
    probe = _normalized(message)[-200:]
    if probe and probe in _normalized(exchange.assistant):
        return exchange
    assistant = exchange.assistant + "\n\n" + message if exchange.assistant else message
    extra = {**exchange.extra, "assistant_source": "last_assistant_message"}
    return exchange.replace(assistant=trim_middle(assistant, ASSISTANT_LIMIT, 0.3), extra=extra)


def cap_tools(tools: list[T], extra: dict[str, str]) -> tuple[T, ...]:
    """At most MAX_TOOLS calls (the first few and the latest); the count left out goes in extra.
    Done before the calls are cleaned, so a turn of 40,000 calls redacts only the ones kept."""
    if len(tools) <= MAX_TOOLS:
        return tuple(tools)
    extra["tools_omitted"] = str(len(tools) - MAX_TOOLS)
    return tuple(tools[:TOOLS_HEAD] + tools[len(tools) - (MAX_TOOLS - TOOLS_HEAD) :])


def add_file(files: list[str], path: object) -> None:
    if isinstance(path, str) and path.strip() and len(files) < MAX_FILES:
        cleaned = redact_text(path.strip())
        if cleaned not in files:
            files.append(cleaned)


def _trimmed(text: str, limit: int) -> str:
    """The head of text, redacted with a margin first (a secret the cut falls in is whole)."""
    return redact_text(text[: limit + _MARGIN])[:limit]


class PendingTool:
    """A tool call while a reader collects it; `freeze` trims it into the Exchange's ToolCall
    (a report, REPORT_TOOLS, to an answer's length, any other output to TOOL_OUTPUT_LIMIT)."""

    def __init__(self, name: str, summary: str, replaced: Sequence[tuple[str, str]] = ()) -> None:
        self.name, self.summary, self.output, self.is_error = name, summary, "", False
        self.replaced = list(replaced)

    def freeze(self) -> ToolCall:
        return ToolCall(
            name=self.name,
            input=one_line(self.summary, TOOL_INPUT_LIMIT),
            output=clean_text(
                self.output, ASSISTANT_LIMIT if self.name in REPORT_TOOLS else TOOL_OUTPUT_LIMIT
            ),
            is_error=self.is_error,
            replaced=tuple(
                (_trimmed(old, EDIT_LIMIT), _trimmed(new, EDIT_LIMIT))
                for old, new in self.replaced[:MAX_EDITS]
                if old.strip() and new.strip() and old != new
            ),
        )
