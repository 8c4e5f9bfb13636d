"""The tags an agent's harness reads as markup in what reaches the model (Claude Code's
`<system-reminder>`, its command and hook records, and cms's own `<cms-memory>` wrapper), and
how stored text is kept from forming one: the `<` that would open or close such a tag is
written `&lt;`, whatever its case, spacing or zero-width characters inside the name.

Pure functions on text, standard library only (the hooks run it): nothing here decides what is
stored or shown.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # re is imported only when a text holds a "<" (the hooks' hot path)
    import re

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
_GAP = f"[{_INVISIBLE}]*"
_PATTERN: list[re.Pattern[str]] = []


def _tags() -> re.Pattern[str]:
    if not _PATTERN:
        import re

        names = "|".join(_GAP.join(re.escape(c) for c in tag) for tag in HARNESS_TAGS)
        _PATTERN.append(re.compile(rf"<(?=[\s/{_INVISIBLE}]*(?:{names}))", re.IGNORECASE))
    return _PATTERN[0]


def neutralise_tags(text: str) -> str:
    """text with every opening or closing harness tag made plain (`<` written `&lt;`)."""
    if "<" not in text:
        return text
    return _tags().sub("&lt;", text)
