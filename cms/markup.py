"""The tags an agent's harness reads as markup in what reaches the model (Claude Code's
`<system-reminder>`, its command and hook records, and cms's own `<cms-memory>` wrapper), and
how stored text is kept from forming one: the `<` that would open or close such a tag is
written `&lt;`, whatever its case, spacing or zero-width characters inside the name.

Pure functions on text, standard library only (the hooks run it): nothing here decides what is
stored or shown.
"""

from __future__ import annotations

HARNESS_TAGS = (
    "cms-memory",
    "system-reminder",
    "user-prompt-submit-hook",
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
)
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"  # zero-width and soft-hyphen characters
_LONGEST = max(len(tag) for tag in HARNESS_TAGS)


def _opens_tag(text: str, at: int) -> bool:
    """Whether the `<` at `at` opens or closes a harness tag: after spaces, `/` and invisible
    characters, the name (invisible characters inside it skipped, any case)."""
    end, i = len(text), at + 1
    while i < end and (text[i].isspace() or text[i] == "/" or text[i] in _INVISIBLE):
        i += 1
    name: list[str] = []
    while i < end and len(name) < _LONGEST:
        if text[i] not in _INVISIBLE:
            name.append(text[i])
        i += 1
    return "".join(name).lower().startswith(HARNESS_TAGS)


def neutralise_tags(text: str) -> str:
    """text with every opening or closing harness tag made plain (`<` written `&lt;`). A loop
    over the `<` of the text, not a pattern: compiling one that allows invisible characters
    between any two letters cost a hook more than its whole work."""
    at = text.find("<")
    if at < 0:
        return text
    parts: list[str] = []
    done = 0
    while at >= 0:
        if _opens_tag(text, at):
            parts += [text[done:at], "&lt;"]
            done = at + 1
        at = text.find("<", at + 1)
    return "".join(parts) + text[done:] if parts else text
