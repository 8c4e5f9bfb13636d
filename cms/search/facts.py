"""One chat map's facts found for a query: the local BM25 selector and the frame for a model one.

Texts come back verbatim with id and topic path (archived facts too, marked); a failing model
selector gives way to the local one. Must not load maps, read config or call a provider itself.
"""

from __future__ import annotations

from collections.abc import Callable

from cms.record import Record
from cms.textindex import Bm25Index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cms.map.model import CorrelationMap

MODEL_CANDIDATES = 150

# A model selector gets the query and numbered fact lines and returns 0-based indexes.
Selector = Callable[[str, list[str], int], list[int]]


class FactHit(Record, frozen=True):
    """One found fact: immutable, equal and hashed by all fields."""

    id: str
    text: str
    sun: str
    planet: str
    archived: bool
    score: float = 0.0

    @property
    def path(self) -> str:
        return f"{self.sun} > {self.planet}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "path": self.path,
            "archived": self.archived,
            "score": round(self.score, 4),
        }

    def render(self) -> str:
        mark = " (archived)" if self.archived else ""
        return f"{self.id} [{self.path}]{mark} {self.text}"


def all_facts(cmap: CorrelationMap) -> list[FactHit]:
    """Every fact of the map, live ones first, in a stable order."""
    return [
        FactHit(sat.id, sat.text, sun or "?", planet.title, archived=archived)
        for sun, planet, archived in cmap.all_planets()
        for sat in planet.satellites
    ]


def _documents(facts: list[FactHit]) -> list[str]:
    return [f"{f.text} {f.planet} {f.sun}" for f in facts]


def search_local(cmap: CorrelationMap, query: str, k: int = 5) -> list[FactHit]:
    """The k facts that BM25 ranks best for the query (text, subtopic and topic titles)."""
    facts = all_facts(cmap)
    if not facts:
        return []
    index = Bm25Index(_documents(facts))
    return [_scored(facts[i], s) for i, s in index.top(query, k)]


def _scored(hit: FactHit, score: float) -> FactHit:
    return FactHit(hit.id, hit.text, hit.sun, hit.planet, hit.archived, score)


def search_with_selector(
    cmap: CorrelationMap, query: str, k: int, selector: Selector
) -> tuple[list[FactHit], str]:
    """Let a model pick among the best candidates; fall back to local results on any failure.

    Returns the hits and which selector answered ("model" or "local").
    """
    from cms.errors import CmsError

    facts = all_facts(cmap)
    if not facts:
        return [], "local"
    if len(facts) > MODEL_CANDIDATES:
        index = Bm25Index(_documents(facts))
        ranked = index.top(query, MODEL_CANDIDATES)
        candidates = [facts[i] for i, _ in ranked] or facts[:MODEL_CANDIDATES]
    else:
        candidates = facts
    lines = [f"{n}. [{c.path}] {c.text}" for n, c in enumerate(candidates, start=1)]
    try:
        picked = selector(query, lines, k)
    except CmsError:
        return search_local(cmap, query, k), "local"
    hits = [candidates[i] for i in dict.fromkeys(picked) if 0 <= i < len(candidates)][:k]
    if not hits:
        return search_local(cmap, query, k), "local"
    return hits, "model"
