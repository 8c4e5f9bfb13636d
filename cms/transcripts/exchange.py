"""The latest exchange of a chat: one genuine user prompt and what the agent did and said.

A plain value shared by transcript readers, the update flow and the providers. Texts in it are
already redacted and trimmed by the reader; `render` only lays them out for a model. Plain
slotted immutable classes, not dataclasses: the Stop hook builds one and must not pay the ~20 ms
that importing dataclasses (inspect, ast, typing) costs.
"""

from __future__ import annotations


class _Frozen:
    """Immutable value base: fields are set once in __init__; equal when all fields are."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__name__}({inner})"

    def replace(self, **changes: object) -> _Frozen:
        """A copy with some fields changed (like dataclasses.replace)."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values = {name: changes.get(name, getattr(self, name)) for name in self._FIELDS}
        return type(self)(**values)


class ToolCall(_Frozen):
    __slots__ = ("input", "is_error", "name", "output")
    _FIELDS = ("name", "input", "output", "is_error")
    name: str
    input: str
    output: str
    is_error: bool

    def __init__(self, name: str, input: str, output: str = "", is_error: bool = False) -> None:
        set_field = object.__setattr__
        set_field(self, "name", name)
        set_field(self, "input", input)  # trimmed summary of the input (a command, a path, ...)
        set_field(self, "output", output)  # trimmed summary of the result
        set_field(self, "is_error", is_error)


class Exchange(_Frozen):
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
        set_field = object.__setattr__
        set_field(self, "user", user)
        set_field(self, "assistant", assistant)
        set_field(self, "tools", tools)
        set_field(self, "files", files)
        set_field(self, "turn", turn)
        set_field(self, "timestamp", timestamp)
        set_field(self, "agent", agent)
        set_field(self, "extra", {} if extra is None else extra)

    def replace(self, **changes: object) -> Exchange:
        """A copy with some fields changed (like dataclasses.replace)."""
        copy = super().replace(**changes)
        assert isinstance(copy, Exchange)
        return copy

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
