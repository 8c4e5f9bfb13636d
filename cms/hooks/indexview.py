"""The chat map's titles-only index as the hooks inject it, cached beside the map.

The cache (<chat dir>/index-cache.json) is keyed by the map file's identity (inode, mtime, size)
and the character budget, so the prompt hook reads one small file instead of parsing a map of a
thousand facts; any writer of the map invalidates it by writing. Reads maps, never writes them.
"""

from __future__ import annotations

import os

from cms import jsonio, paths
from cms.errors import CmsError
from cms.hooks.statefile import write_state_quietly
from cms.log import log_event
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.map.model import CorrelationMap

CACHE_NAME = "index-cache.json"
CACHE_VERSION = 1

# planet id -> [sun title, planet title, mass, fact count], in map order
Entries = dict[str, list[object]]


class IndexView(Record):
    """The rendered index and the live planets it lists."""

    text: str  # render_index(map, budget); "" for a map without topics
    entries: Entries
    summary: str  # "3 topics, 7 subtopics, 21 facts"


def _key_of(st: os.stat_result, budget: int) -> list[int]:
    return [CACHE_VERSION, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size, budget]


def view_of_map(cmap: CorrelationMap, budget: int) -> IndexView:
    """Render the index of a CorrelationMap and list its live planets."""
    from cms.map.render import render_index

    entries: Entries = {}
    facts = 0
    for sun in cmap.suns:
        for planet in sun.planets:
            entries[planet.id] = [sun.title, planet.title, planet.mass, len(planet.satellites)]
            facts += len(planet.satellites)
    summary = f"{len(cmap.suns)} topics, {len(entries)} subtopics, {facts} facts"
    return IndexView(render_index(cmap, max_chars=budget), entries, summary)


def _read_cache(path: str, key: list[int]) -> IndexView | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = jsonio.loads(handle.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    text, entries, summary = data.get("text"), data.get("entries"), data.get("summary")
    if not isinstance(text, str) or not isinstance(entries, dict) or not isinstance(summary, str):
        return None
    return IndexView(text, entries, summary)


def _write_cache(path: str, key: list[int], view: IndexView) -> None:
    """Best effort: a cache that cannot be written is simply rebuilt next time."""
    data = {"key": key, "text": view.text, "entries": view.entries, "summary": view.summary}
    write_state_quietly(path, data)


def load_index_view(session_id: str, budget: int) -> IndexView | None:
    """The index of the chat's map within budget characters; None when the chat has no map.

    Raises MapError (CorruptMapError, MapVersionError) when the map cannot be read.
    """
    map_file = paths.map_path(session_id)
    cache = os.path.join(os.path.dirname(map_file), CACHE_NAME)
    try:
        handle = open(map_file, "rb")  # noqa: SIM115 - fstat and read the same open file
    except FileNotFoundError:
        return None
    with handle:
        key = _key_of(os.fstat(handle.fileno()), budget)
        cached = _read_cache(cache, key)
        if cached is not None:
            return cached
        raw = handle.read()
    from cms.map.store import parse_map

    view = view_of_map(parse_map(raw, map_file), budget)
    _write_cache(cache, key, view)
    return view


def readable_index_view(session_id: str, budget: int) -> IndexView | None:
    """load_index_view for the hooks: a map that cannot be read is logged and left out."""
    try:
        return load_index_view(session_id, budget)
    except (CmsError, OSError) as exc:
        log_event("warning", "map_unreadable", str(exc), session=session_id)
        return None


def warm_index_cache(session_id: str, budget: int) -> None:
    """Build the cache for the map as it is now (the worker calls this after each update)."""
    load_index_view(session_id, budget)
