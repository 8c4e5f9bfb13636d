"""Project memory for injection: the rules in force, the session briefing and the prompt's few.

A thin adapter over cms.observations for the hooks: never creates a store (a project that never
captured anything costs one stat), never runs git (the scope reads .git files and caches
ancestry), returns (id, line) pairs ready to inject, every line starting with the id that
`cms get` takes. Store failures are logged, not raised.
"""

from __future__ import annotations

import time

from cms.errors import CmsError
from cms.log import log_event
from cms.observations.access import open_project_memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from cms.observations.model import Observation
    from cms.observations.recall import RecalledObservation

Note = tuple[tuple[str, ...], str]  # (the ids the item is known by, the line to inject)
LINE_CHARS = 320  # past this a line shows its title and first whole sentence, and its id
SHORTEST_RULE = 40  # budget left under which no further rule line is tried


def _ids(obs: Observation) -> tuple[str, ...]:
    from cms.observations.ids import item_aliases

    return item_aliases(f"O{obs.id}", obs.source)


def note_line(obs: RecalledObservation, now: float, branch: str | None) -> Note:
    from cms.observations.recall import format_observation_line

    o = obs.observation
    return _ids(o), f"O{o.id} {format_observation_line(obs, now, branch, limit=LINE_CHARS)}"


def rule_line(found: RecalledObservation, branch: str | None) -> Note:
    """A compact line for the "in force" section: the id and the rule, its branch when foreign
    (the heading says what these are; `cms get` gives kind and age)."""
    from cms.observations.recall import observation_text

    o = found.observation
    line = f"O{o.id} {observation_text(o, LINE_CHARS)}"
    if o.branch is not None and o.branch != branch:
        line += f" (branch: {o.branch})"
    return _ids(o), line


def start_notes(cwd: str, budget: int, limit: int) -> tuple[list[Note], list[Note]]:
    """For SessionStart, from one opening of the project's store: the standing rules
    (preferences, conventions, decisions) in force on this branch, most important and most
    recently confirmed first, within budget characters; and the briefing, the top other
    observations (up to limit)."""
    if budget <= 0 and limit <= 0:
        return [], []
    try:
        memory = open_project_memory(cwd, create=False)
        if memory is None:
            return [], []
        from cms.observations.recall import STANDING_KINDS, briefing, in_force

        with memory:
            now = time.time()
            rules: list[Note] = []
            used = 0
            for found in in_force(memory.store, memory.scope, now=now) if budget > 0 else []:
                if budget - used < SHORTEST_RULE:
                    break
                note = rule_line(found, memory.scope.branch)
                if used + len(note[1]) + 3 > budget:
                    continue  # a shorter one further down may still fit
                rules.append(note)
                used += len(note[1]) + 3
            top = briefing(memory.store, memory.scope, limit, now=now, skip_kinds=STANDING_KINDS)
            return rules, [note_line(r, now, memory.scope.branch) for r in top]
    except (CmsError, OSError) as exc:
        log_event("warning", "briefing_failed", str(exc))
        return [], []


def relevant_notes(
    cwd: str,
    query: str,
    limit: int,
    *,
    min_relevance: float,
    shown: Collection[str],
    session: str | None = None,
) -> list[Note]:
    """Up to limit facts of the project's other chats and observations relevant to query that
    this chat has not been shown yet (nothing superseded, the chat's own facts and the chats'
    passages left out)."""
    if limit <= 0 or not query.strip():
        return []
    try:
        memory = open_project_memory(cwd, create=False)
        if memory is None:
            return []
        from cms.search.project import search_project

        with memory:
            now = time.time()
            k = limit + min(len(shown), limit)
            hits = search_project(memory, query, k=k, passages=False, other_than=session)
            fresh = [
                h for h in hits if h.relevance >= min_relevance and not set(h.aliases) & set(shown)
            ][:limit]
            recalled = [int(h.id[1:]) for h in fresh if h.id.startswith("O")]
            if recalled:
                memory.store.mark_recalled(recalled, now)
            return [(h.aliases, h.render(now, session)) for h in fresh]
    except (CmsError, OSError) as exc:
        log_event("warning", "recall_failed", str(exc))
        return []
