"""Finding facts in a chat map: the local BM25 selector and the frame for a model selector.

Whatever selects, the texts returned are always the stored ones, verbatim, with their id and
topic path; archived facts are found too and marked. A model selector only returns numbers;
when it fails the local selector answers instead (never nothing).
"""

from __future__ import annotations

from collections.abc import Callable

from cms.textindex import Bm25Index

TYPE_CHECKING = False  # dataclasses and typing cost `cms search` ~30 ms; mypy reads these
if TYPE_CHECKING:
    from typing import Any

    from cms.map.model import CorrelationMap

MODEL_CANDIDATES = 150

# A model selector gets the query and numbered fact lines and returns 0-based indexes.
Selector = Callable[[str, list[str], int], list[int]]

_FIELDS = ("id", "text", "sun", "planet", "archived", "score")


class FactHit:
    """One found fact: immutable, equal and hashed by all fields (like a frozen dataclass)."""

    __slots__ = _FIELDS
    id: str
    text: str
    sun: str
    planet: str
    archived: bool
    score: float

    def __init__(
        self, id: str, text: str, sun: str, planet: str, archived: bool, score: float = 0.0
    ) -> None:
        set_field = object.__setattr__
        set_field(self, "id", id)
        set_field(self, "text", text)
        set_field(self, "sun", sun)
        set_field(self, "planet", planet)
        set_field(self, "archived", archived)
        set_field(self, "score", score)

    def _values(self) -> tuple[object, ...]:
        return (self.id, self.text, self.sun, self.planet, self.archived, self.score)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen FactHit")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen FactHit")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, FactHit)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"FactHit({inner})"

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
    facts = [
        FactHit(sat.id, sat.text, sun.title, planet.title, archived=False)
        for sun in cmap.suns
        for planet in sun.planets
        for sat in planet.satellites
    ]
    facts += [
        FactHit(sat.id, sat.text, planet.sun_title or "?", planet.title, archived=True)
        for planet in cmap.archive
        for sat in planet.satellites
    ]
    return facts


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
