"""A regular expression compiled on its first use in a process.

Modules on the hook fast path hold many patterns that most runs never need; compiling them all
at import costs a prompt milliseconds, and importing `re` itself (with enum, functools and
collections) costs a hook a sixth of its time, so `re` is imported on the first compile. Only the
standard library's `re`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator

# re's flag values (re.IGNORECASE, ...), so that a module can declare its patterns without
# importing re; tests/test_lazypattern.py checks them against re.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16


class LazyPattern:
    """re.compile(source, flags), done when a method is first called.

    `hints`, when given, are words of which every match holds one (lower-case when the pattern
    ignores case): a text holding none of them cannot match, and is answered without compiling.
    """

    __slots__ = ("_compiled", "flags", "hints", "source")

    def __init__(self, source: str, flags: int = 0, hints: tuple[str, ...] = ()) -> None:
        self.source = source
        self.flags = flags
        self.hints = hints
        self._compiled: re.Pattern[str] | None = None

    def _cannot_match(self, text: str) -> bool:
        if not self.hints:
            return False
        folded = text.lower() if self.flags & IGNORECASE else text
        return not any(hint in folded for hint in self.hints)

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return None if self._cannot_match(text) else self.compiled.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return None if self._cannot_match(text) else self.compiled.match(text)

    def findall(self, text: str) -> list[str]:
        return [] if self._cannot_match(text) else self.compiled.findall(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return iter(()) if self._cannot_match(text) else self.compiled.finditer(text)

    def split(self, text: str) -> list[str]:
        return [text] if self._cannot_match(text) else self.compiled.split(text)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        return text if self._cannot_match(text) else self.compiled.sub(repl, text)
