"""The chat-map tools of the MCP server (search_map, show_map): one chat's correlation map.

Tool bodies over injected collaborators; each docstring is the description the model reads.
Reads maps, never writes them; imports no mcp (the server wraps these methods).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from cms.errors import MapNotFoundError
from cms.map.model import CorrelationMap
from cms.map.render import render_full, render_index
from cms.map.store import load_map
from cms.mcp_server.args import Count, Query, Session
from cms.mcp_server.results import ToolRefusedError, ToolResult
from cms.search.facts import FactHit, Selector, all_facts, search_local, search_with_selector

MapResolver = Callable[[str | None], str]  # session (None: the latest chat) -> map path
SelectorFactory = Callable[[CorrelationMap], Selector | None]


def session_of(path: str, cmap: CorrelationMap) -> str:
    """The chat a map belongs to: its recorded session id, else the name of its folder."""
    return cmap.session_id or os.path.basename(os.path.dirname(path))


@dataclass(frozen=True)
class MapTools:
    """search_map and show_map over the map resolve_map finds; make_selector picks facts."""

    resolve_map: MapResolver
    make_selector: SelectorFactory

    def _load(self, session: str | None) -> tuple[str, CorrelationMap]:
        try:
            path = self.resolve_map(session)
        except MapNotFoundError as exc:
            raise ToolRefusedError(
                f"no chat has a map yet ({exc}); maps are written after assistant turns, so "
                "there is nothing to read until a chat has had at least one"
            ) from exc
        try:
            return path, load_map(path)
        except MapNotFoundError as exc:
            raise ToolRefusedError(
                f"no chat map yet for session {session!r}; call this tool without a session "
                "to use the chat updated last"
            ) from exc

    def search_map(self, query: Query, session: Session = None, k: Count = 5) -> ToolResult:
        """Search the facts stored in a chat's correlation map (the titles-only index you may
        see in context lists its topics). Use it when you need a detail discussed earlier in
        this chat: a value, a name, a decision, an error text. Returns up to k facts verbatim,
        each as `id [topic > subtopic] text`; archived ones are marked (archived)."""
        path, cmap = self._load(session)
        hits, selector = self._select(cmap, query, k)
        sid = session_of(path, cmap)
        data = {
            "session": sid,
            "map": str(path),
            "query": query,
            "selector": selector,
            "facts": [h.to_dict() for h in hits],
        }
        if not hits:
            text = (
                f"No stored fact of chat {sid} matches {query!r} ({cmap.fact_count()} facts "
                "stored). Try other words, or show_map to see the topics."
            )
            return ToolResult(text, data)
        lines = [f"Facts of chat {sid} matching {query!r} (id [topic > subtopic] text):"]
        lines += [h.render() for h in hits]
        return ToolResult("\n".join(lines), data)

    def _select(self, cmap: CorrelationMap, query: str, k: int) -> tuple[list[FactHit], str]:
        selector = self.make_selector(cmap)
        if selector is None:
            return search_local(cmap, query, k), "local"
        return search_with_selector(cmap, query, k, selector)

    def show_map(self, session: Session = None) -> ToolResult:
        """Show a whole chat map: the topic index, then every fact with its id under its topic
        and subtopic, then archived subtopics. Use it to survey what a chat has established;
        use search_map to find specific facts."""
        path, cmap = self._load(session)
        sid = session_of(path, cmap)
        index = render_index(cmap)
        lines = [f"Chat {sid}: map {path}, updated {cmap.updated_at}.", ""]
        lines += [index or "(the map is empty)", "", "Facts by topic (ids first):"]
        lines.append(render_full(cmap))
        for planet in cmap.archive:
            lines.append(f"archived: {planet.id} {planet.sun_title or '?'} > {planet.title}")
            lines.extend(f"    {sat.id} {sat.text}" for sat in planet.satellites)
        facts = [{k: v for k, v in h.to_dict().items() if k != "score"} for h in all_facts(cmap)]
        data = {
            "session": sid,
            "map": str(path),
            "updated_at": cmap.updated_at,
            "index": index,
            "facts": facts,
        }
        return ToolResult("\n".join(lines), data)
