"""Calendar dates named in a recall query ("on 3 June, 2023", "in July 2022", "2024-05-01").

Owns turning those phrases into time windows (local time, Unix seconds) and removing them from
the query text, so recall can favour observations captured then instead of matching the words
"june" or "2023". Pure standard library; knows nothing of the store.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = "(" + "|".join(m[:3] + f"(?:{m[3:]})?" if len(m) > 3 else m for m in MONTHS) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
DAY_BEFORE = 2 * 86400.0  # a day named in a query covers two days before it ...
DAY_AFTER = 2 * 86400.0  # ... and two days after it (talk about an event comes a bit later)
MONTH_AFTER = 10 * 86400.0  # a month also covers the first days of the next one

_SOURCES = (
    ("dmy", rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"),
    ("mdy", rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
    ("iso", r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b"),
    ("my", rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b"),
)
_compiled: list[tuple[str, re.Pattern[str]]] = []


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """The date patterns, compiled on first use (most prompts hold no digit and never need them)."""
    if not _compiled:
        import re  # ~26M instructions with what it imports: only for a query with a digit

        _compiled.extend((kind, re.compile(src, re.IGNORECASE)) for kind, src in _SOURCES)
    return _compiled


def _month_number(name: str) -> int:
    prefix = name.lower().rstrip(".")[:3]
    return next(i for i, m in enumerate(MONTHS, start=1) if m.startswith(prefix))


def _local_midnight(year: int, month: int, day: int) -> float:
    stamp = time.mktime((year, month, day, 0, 0, 0, 0, 0, -1))
    if tuple(time.localtime(stamp)[:3]) != (year, month, day):
        raise ValueError("not a calendar date")  # mktime would roll 30 February into March
    return stamp


def _day_window(year: int, month: int, day: int) -> tuple[float, float]:
    start = _local_midnight(year, month, day)
    return start - DAY_BEFORE, start + 86400.0 + DAY_AFTER


def _month_window(year: int, month: int) -> tuple[float, float]:
    start = _local_midnight(year, month, 1)
    end = _local_midnight(year + (month == 12), month % 12 + 1, 1)
    return start, end + MONTH_AFTER


def query_dates(text: str) -> tuple[list[tuple[float, float]], str]:
    """(time windows named in text, the text without those date phrases)."""
    windows: list[tuple[float, float]] = []
    if not any(ch.isdigit() for ch in text):  # every form names a day or a year
        return windows, text
    rest = text
    for kind, pattern in _patterns():
        for match in pattern.finditer(rest):
            g = match.groups()
            try:
                if kind == "dmy":
                    windows.append(_day_window(int(g[2]), _month_number(g[1]), int(g[0])))
                elif kind == "mdy":
                    windows.append(_day_window(int(g[2]), _month_number(g[0]), int(g[1])))
                elif kind == "iso":
                    windows.append(_day_window(int(g[0]), int(g[1]), int(g[2])))
                else:
                    windows.append(_month_window(int(g[1]), _month_number(g[0])))
            except (ValueError, OverflowError, OSError):
                continue
        rest = pattern.sub(" ", rest)
    return windows, rest
