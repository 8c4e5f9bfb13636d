"""The latest exchange of a chat: one genuine user prompt and what the agent did and said.

A plain value shared by transcript readers, the update flow and the providers. Texts in it are
already redacted and trimmed by the reader; `render` only lays them out for a model. Plain
slotted immutable classes, not dataclasses: the Stop hook builds one and must not pay the ~20 ms
that importing dataclasses (inspect, ast, typing) costs.
"""

from __future__ import annotations

from cms.record import FrozenRecord


class ToolCall(FrozenRecord):
    __slots__ = ("input", "is_error", "name", "output")
    _FIELDS = ("name", "input", "output", "is_error")
    name: str
    input: str
    output: str
    is_error: bool

    def __init__(self, name: str, input: str, output: str = "", is_error: bool = False) -> None:
        self.set_fields(name=name, input=input, output=output, is_error=is_error)


class Exchange(FrozenRecord):
    __slots__ = ("agent", "assistant", "extra", "files", "timestamp", "tools", "turn", "user")
    _FIELDS = ("user", "assistant", "tools", "files", "turn", "timestamp", "agent", "extra")
    user: str
    assistant: str
    tools: tuple[ToolCall, ...]
    files: tuple[str, ...]
    turn: int
    timestamp: str | None
    agent: str
    extra: dict[str, str]

    def __init__(
        self,
        user: str,
        assistant: str,
        tools: tuple[ToolCall, ...] = (),
        files: tuple[str, ...] = (),
        turn: int = 0,  # 1-based count of genuine user prompts in the transcript
        timestamp: str | None = None,
        agent: str = "claude_code",  # or "codex"
        extra: dict[str, str] | None = None,
    ) -> None:
        self.set_fields(
            user=user,
            assistant=assistant,
            tools=tools,
            files=files,
            turn=turn,
            timestamp=timestamp,
            agent=agent,
            extra={} if extra is None else extra,
        )

    def render(self, max_chars: int = 12_000) -> str:
        """The exchange as text for the update model, never longer than max_chars."""
        parts = [f"USER:\n{self.user}"]
        for tool in self.tools:
            line = f"TOOL {tool.name}: {tool.input}"
            if tool.output:
                line += f"\n  -> {'ERROR ' if tool.is_error else ''}{tool.output}"
            parts.append(line)
        parts.append(f"ASSISTANT:\n{self.assistant}")
        text = "\n\n".join(parts)
        if len(text) <= max_chars:
            return text
        head = max_chars // 2
        return text[:head] + "\n[...trimmed...]\n" + text[-(max_chars - head - 17) :]
