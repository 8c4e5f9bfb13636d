"""The latest exchange of a chat: one genuine user prompt and what the agent did and said.

A plain value shared by transcript readers, the update flow and the providers. Texts in it are
already redacted and trimmed by the reader; `render` only lays them out for a model. Frozen
records (cms.record).
"""

from __future__ import annotations

from cms.record import Record, field

REPLACED_CHARS = 160  # each side of an edit's replacement as the update model reads it


def _short(text: str) -> str:
    """One line of at most REPLACED_CHARS characters, no word cut (already redacted)."""
    from cms.excerpt import fit_text

    return fit_text(" ".join(text.split()), REPLACED_CHARS)


class ToolCall(Record, frozen=True):
    name: str
    input: str
    output: str = ""
    is_error: bool = False
    # what an edit replaced in a file: (old text, new text) pairs, trimmed and redacted
    replaced: tuple[tuple[str, str], ...] = ()


class Exchange(Record, frozen=True):
    user: str
    assistant: str
    tools: tuple[ToolCall, ...] = ()
    files: tuple[str, ...] = ()
    turn: int = 0  # 1-based count of genuine user prompts in the transcript
    timestamp: str | None = None
    agent: str = "claude_code"  # or "codex"
    extra: dict[str, str] = field(default_factory=dict)

    def render(self, max_chars: int = 12_000) -> str:
        """The exchange as text for the update model, never longer than max_chars."""
        parts = [f"USER:\n{self.user}"]
        for tool in self.tools:
            line = f"TOOL {tool.name}: {tool.input}"
            for old, new in tool.replaced:
                line += f"\n  replaced: {_short(old)} -> {_short(new)}"
            if tool.output:
                line += f"\n  -> {'ERROR ' if tool.is_error else ''}{tool.output}"
            parts.append(line)
        parts.append(f"ASSISTANT:\n{self.assistant}")
        text = "\n\n".join(parts)
        if len(text) <= max_chars:
            return text
        head = max_chars // 2
        return text[:head] + "\n[...trimmed...]\n" + text[-(max_chars - head - 17) :]
