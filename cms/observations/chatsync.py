"""Keeping a project's memory in step with its chat maps: the fact index and standing rules.

After each map update the chat's facts are synced into the project's fact index (with what
they supersede), and the standing ones (preferences, decisions) are promoted to observations
at once, so a later chat sees them before this one ends. `cms reindex` rebuilds the index from
every map of the project. Runs in the worker and the CLI, never on the hook fast path.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from cms.map.model import CorrelationMap
from cms.observations.access import ProjectMemory
from cms.observations.capture import (
    STANDING_KINDS,
    capture_with_outcomes,
    kind_of_fact,
    observations_from_map,
)
from cms.observations.facts import clear_index, index_passages, sync_chat


def sync_chat_memory(
    memory: ProjectMemory,
    cmap: CorrelationMap,
    *,
    cwd: str | Path | None,
    agent: str | None = None,
    now: float | None = None,
) -> tuple[int, int]:
    """Sync one chat map into the project's fact index and promote its new standing facts;
    returns (facts new or changed, observations stored)."""
    stamp = time.time() if now is None else now
    changed = memory.store.write(lambda c: sync_chat(c, cmap, kind_of=kind_of_fact, now=stamp))
    if not changed:
        return 0, 0
    candidates = observations_from_map(
        cmap, kinds=STANDING_KINDS, fact_ids=[fact_id for _row, fact_id in changed]
    )
    outcomes = capture_with_outcomes(
        memory.store, candidates, session=cmap.session_id, agent=agent, cwd=cwd, now=stamp
    )
    return len(changed), sum(1 for o in outcomes if o.status != "duplicate")


def index_exchange(
    memory: ProjectMemory, session: str, turn: int, passages: list[tuple[str, str]]
) -> int:
    """Index the (speaker, text) passages of one turn of a chat (already redacted)."""
    stamp = time.time()
    return memory.store.write(lambda c: index_passages(c, session, turn, passages, now=stamp))


def rebuild_fact_index(memory: ProjectMemory, maps: Iterable[CorrelationMap]) -> int:
    """Rebuild the project's fact index from its chat maps, oldest chat first (so that later
    statements supersede earlier ones); returns the number of facts indexed. The chats' own
    passages are not in the maps: they stay as they are."""
    ordered = sorted(maps, key=lambda m: (m.created_at, m.session_id))
    stamp = time.time()
    memory.store.write(clear_index)
    total = 0
    for cmap in ordered:
        changed = memory.store.write(
            lambda c, m=cmap: sync_chat(c, m, kind_of=kind_of_fact, now=stamp)  # type: ignore[misc]
        )
        total += len(changed)
    return total
