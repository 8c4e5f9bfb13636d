"""Fusing the semantic index into recall: the lexical candidates and the observations nearest
the query, scored together by vectors.fused_score. Reads observations through ObservationStore;
computes no vector and no cosine (QueryMeaning gives the semantic scores), imports no model.
"""

from __future__ import annotations

from cms.observations.model import COLUMNS, Observation, row_to_observation
from cms.observations.vectors import fused_score, key_number, nearest, observation_key, own_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from cms.observations.store import ObservationStore
    from cms.observations.vectors import QueryMeaning

SEMANTIC_POOL = 50  # observations nearest the query that join the lexical candidates


def fuse_semantic(
    store: ObservationStore,
    scored: Sequence[tuple[Observation, float, float]],
    meaning: QueryMeaning,
    weight: float,
    admits: Callable[[Observation], bool],
    windows: Sequence[tuple[float, float]] = (),
    floor: float = 0.0,
    damping: float = 1.0,
) -> list[tuple[Observation, float, float]]:
    """The lexical candidates (already above the floor) and the SEMANTIC_POOL observations
    nearest the query that lexical search missed, scored by vectors.fused_score with their
    semantic score (QueryMeaning.scores, of the text and context the index embeds them by);
    those of the pool (their relevance, which is lexical, is 0) are admitted when their score
    reaches the floor, times damping outside the dates the query names (as lexical ones);
    best first."""
    best = max((score for _obs, score, _rel in scored), default=0.0)
    skip = {observation_key(obs.id) for obs, _score, _rel in scored}
    numbers = [
        number
        for _cos, key in nearest(meaning.cosines, SEMANTIC_POOL, "O", skip)
        if (number := key_number(key, "O")) is not None
    ]
    extra = [
        obs for obs in _observations(store, numbers) if obs is not None and admits(obs)
    ]  # fmt: skip
    items = [(obs, score, rel) for obs, score, rel in scored] + [(obs, 0.0, 0.0) for obs in extra]
    semantic = meaning.scores(
        [observation_key(obs.id) for obs, _score, _rel in items],
        [(own_text(obs.title, obs.body), obs.context) for obs, _score, _rel in items],
    )
    fused = []
    for n, ((obs, score, rel), sem) in enumerate(zip(items, semantic, strict=True)):
        value = fused_score(score, best, sem, weight)
        if n >= len(scored):  # from the semantic pool
            if windows and not any(lo <= obs.created_at < hi for lo, hi in windows):
                value *= damping
            if value < floor:
                continue
        fused.append((obs, value, rel))
    return sorted(fused, key=lambda item: (-item[1], -item[0].updated_at, item[0].id))


def _observations(store: ObservationStore, ids: Sequence[int]) -> list[Observation | None]:
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = store.read(
        lambda c: c.execute(
            f"SELECT {COLUMNS} FROM observations WHERE id IN ({marks})", tuple(ids)
        ).fetchall()
    )
    found = {row[0]: row_to_observation(row) for row in rows}
    return [found.get(i) for i in ids]
