"""Project observations for injection: the session briefing and the prompt's relevant few.

A thin adapter over cms.observations for the hooks: never creates a store (a project that never
captured anything costs one stat), never runs git (the scope reads .git files and caches
ancestry), returns (id, line) pairs ready to inject. Store failures are logged, not raised.
"""

from __future__ import annotations

import time

from cms.errors import CmsError
from cms.log import log_event

TYPE_CHECKING = False  # typing stays off the prompt path; mypy still reads these imports
if TYPE_CHECKING:
    from collections.abc import Collection

Note = tuple[int, str]


def briefing_notes(cwd: str, limit: int) -> list[Note]:
    """The top observations of the project holding cwd, visible on its current branch."""
    if limit <= 0:
        return []
    from cms.observations.access import open_project_memory

    try:
        memory = open_project_memory(cwd, create=False)
        if memory is None:
            return []
        from cms.observations.recall import briefing, format_observation_line

        with memory:
            now = time.time()
            found = briefing(memory.store, memory.scope, limit, now=now)
            return [
                (r.observation.id, format_observation_line(r, now, memory.scope.branch))
                for r in found
            ]
    except (CmsError, OSError) as exc:
        log_event("warning", "briefing_failed", str(exc))
        return []


def relevant_notes(
    cwd: str, query: str, limit: int, *, min_relevance: float, shown: Collection[int]
) -> list[Note]:
    """Up to limit observations relevant to query that this chat has not been shown yet."""
    if limit <= 0 or not query.strip():
        return []
    from cms.observations.access import open_project_memory

    try:
        memory = open_project_memory(cwd, create=False)
        if memory is None:
            return []
        from cms.observations.recall import format_observation_line, recall

        with memory:
            now = time.time()
            found = recall(
                memory.store,
                query,
                scope=memory.scope,
                limit=limit + min(len(shown), 20),
                min_relevance=min_relevance,
                now=now,
                touch=False,
            )
            fresh = [r for r in found if r.observation.id not in shown][:limit]
            if fresh:
                memory.store.mark_recalled([r.observation.id for r in fresh], now)
            return [
                (r.observation.id, format_observation_line(r, now, memory.scope.branch))
                for r in fresh
            ]
    except (CmsError, OSError) as exc:
        log_event("warning", "recall_failed", str(exc))
        return []
