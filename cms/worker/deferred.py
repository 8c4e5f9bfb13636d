"""Trivial turns wait for the next model call: an exchange with no tool call, only a few words
and nothing to keep ("ok", "go on", a one-line answer: no value such as a number, a path or an
identifier, and nothing the local extractor would store) is not worth a call of its own.

Its text is kept beside the chat's map (`deferred.json`, newest DEFER_KEEP) and sent with the
next exchange that is asked; once that answer is applied the deferred turns count as applied
too. A turn still waiting when the chat ends is folded in by the local extractor like any turn
no Stop folded in. What counts as trivial is size and shape, not wording. No model calls here.
"""

from __future__ import annotations

import contextlib
import itertools
import os

from cms.jsonio import dump_json, parse_json
from cms.log import log_event
from cms.map.store import write_atomically
from cms.transcripts.exchange import Exchange

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.paths import StrPath

TRIVIAL_WORDS = 40  # user and assistant words together (about 50 tokens)
DEFER_KEEP = 8  # turns kept waiting; older ones are left to the local fold at the chat's end
DEFERRED_FILE = "deferred.json"
TURN_CHARS = 1_000


def is_trivial(exchange: Exchange) -> bool:
    """No tool call, few words in the prompt and the answer together, and no value among them
    (the caller also asks the local extractor whether it would keep anything)."""
    words = f"{exchange.user} {exchange.assistant}".split()
    return not exchange.tools and len(words) <= TRIVIAL_WORDS and not any(map(_is_value, words))


def _is_value(word: str) -> bool:
    """A number, a version, a path, an identifier, code or a CamelCase name: what a statement
    worth keeping names (by its shape, in any language)."""
    core = word.strip(".,;:!?()[]{}'\"")
    return (
        any(ch.isdigit() for ch in core)
        or any(ch in core for ch in "`/_@=<>#$")
        or any(a.islower() and b.isupper() for a, b in itertools.pairwise(core))
    )


def _file(path: StrPath) -> str:
    return os.path.join(os.path.dirname(os.fspath(path)), DEFERRED_FILE)


def deferred_turns(path: StrPath) -> list[tuple[str, str]]:
    """(key, text) of the turns waiting beside the map at path, oldest first."""
    try:
        with open(_file(path), "rb") as handle:
            data = parse_json(handle.read())
    except (OSError, ValueError):
        return []
    turns = data.get("turns") if isinstance(data, dict) else None
    if not isinstance(turns, list):
        return []
    return [
        (t["key"], t["text"])
        for t in turns
        if isinstance(t, dict) and isinstance(t.get("key"), str) and isinstance(t.get("text"), str)
    ]


def _save(path: StrPath, turns: list[tuple[str, str]]) -> None:
    data = {"version": 1, "turns": [{"key": k, "text": t} for k, t in turns[-DEFER_KEEP:]]}
    try:
        write_atomically(_file(path), dump_json(data))
    except OSError as exc:  # the turn is folded locally at the chat's end instead
        log_event("warning", "deferred_unsaved", str(exc))


def defer_turn(path: StrPath, key: str, exchange: Exchange) -> None:
    """Keep a trivial turn for the next call (once per key: a repeated Stop adds nothing)."""
    turns = [t for t in deferred_turns(path) if t[0] != key]
    _save(path, [*turns, (key, exchange.render(TURN_CHARS))])


def clear_deferred(path: StrPath, keys: list[str]) -> None:
    """Drop the turns that were sent with an applied answer."""
    left = [t for t in deferred_turns(path) if t[0] not in keys]
    if left:
        _save(path, left)
    else:
        with contextlib.suppress(OSError):
            os.unlink(_file(path))


def with_deferred(turns: list[tuple[str, str]], text: str) -> str:
    """The exchange text for the model with the waiting turns before it, in order."""
    if not turns:
        return text
    earlier = "\n\n".join(t for _key, t in turns)
    return (
        f"EARLIER SHORT TURNS OF THIS CHAT (not yet read):\n{earlier}\n\nTHE LATEST TURN:\n{text}"
    )
