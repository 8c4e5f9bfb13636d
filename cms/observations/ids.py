"""The ids agents see for chat facts and how observations name their source fact.

A fact is "<chat tag>/F7" (the tag a checksum of the chat id), an observation "O7" (of the
user tier "U7"); an observation promoted from a fact records "<chat id>/F7". Pure functions,
imported on the hook path: nothing here may import the store or the fact index.
"""

from __future__ import annotations

import zlib


def chat_tag(session: str) -> str:
    """A chat's short name in ids and listings: 8 hex digits of a checksum of its id (a prefix
    would not do: time-ordered ids such as Codex's share their first digits)."""
    return f"{zlib.crc32(session.encode('utf-8')):08x}"


def fact_key(session: str, fact_id: str) -> str:
    return f"{chat_tag(session)}/{fact_id}"


def fact_source(session: str, fact_id: str) -> str:
    """How an observation names the chat fact it was promoted from: "<chat id>/<fact id>"."""
    return f"{session}/{fact_id}"


def source_key(source: str) -> str:
    """The fact key (as shown to agents) of an observation's source."""
    session, _, fact_id = source.rpartition("/")
    return fact_key(session, fact_id)


def item_aliases(item_id: str, source: str | None) -> tuple[str, ...]:
    """The ids an item is known by: its own, and for an observation ("O7", or "U7" of the user
    tier) promoted from a chat's fact, that fact's key (what was shown under one is not shown
    again under the other)."""
    if item_id[:1] in ("O", "U") and source:
        return (item_id, source_key(source))
    return (item_id,)
