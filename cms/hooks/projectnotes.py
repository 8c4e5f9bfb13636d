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

TYPE_CHECKING = False  # typing stays off the prompt path; mypy still reads these imports
if TYPE_CHECKING:
    from collections.abc import Collection

    from cms.observations.recall import RecalledObservation

Note = tuple[str, str]
LINE_CHARS = 320  # past this a line shows its title and first whole sentence, and its id


def note_line(obs: RecalledObservation, now: float, branch: str | None) -> Note:
    from cms.observations.recall import format_observation_line

    o = obs.observation
    return f"O{o.id}", f"O{o.id} {format_observation_line(obs, now, branch, limit=LINE_CHARS)}"


def rule_line(found: RecalledObservation, branch: str | None) -> Note:
    """A compact line for the "in force" section: the id and the rule, its branch when foreign
    (the heading says what these are; `cms get` gives kind and age)."""
    from cms.observations.recall import observation_text

    o = found.observation
    line = f"O{o.id} {observation_text(o, LINE_CHARS)}"
    if o.branch is not None and o.branch != branch:
        line += f" (branch: {o.branch})"
    return f"O{o.id}", line


def in_force_notes(cwd: str, budget: int) -> list[Note]:
    """The project's standing rules (preferences, conventions, decisions) in force on this
    branch, most important and most recently confirmed first, within budget characters."""
    if budget <= 0:
        return []
    from cms.observations.access import open_project_memory

    try:
        memory = open_project_memory(cwd, create=False)
        if memory is None:
            return []
        from cms.observations.recall import in_force

        with memory:
            now = time.time()
            notes: list[Note] = []
            used = 0
            for found in in_force(memory.store, memory.scope, now=now):
                note = rule_line(found, memory.scope.branch)
                if used + len(note[1]) + 3 > budget:
                    continue  # a shorter one further down may still fit
                notes.append(note)
                used += len(note[1]) + 3
            return notes
    except (CmsError, OSError) as exc:
        log_event("warning", "in_force_failed", str(exc))
        return []


def briefing_notes(cwd: str, limit: int, *, skip: Collection[str] = ()) -> list[Note]:
    """The top observations of the project holding cwd, visible on its current branch, other
    than the rules (the "in force" section has them) and those in skip."""
    if limit <= 0:
        return []
    from cms.observations.access import open_project_memory

    try:
        memory = open_project_memory(cwd, create=False)
        if memory is None:
            return []
        from cms.observations.recall import STANDING_KINDS, briefing

        with memory:
            now = time.time()
            found = briefing(
                memory.store,
                memory.scope,
                limit + len(skip),
                now=now,
                touch=False,
                skip_kinds=STANDING_KINDS,
            )
            fresh = [r for r in found if f"O{r.observation.id}" not in skip][:limit]
            if fresh:
                memory.store.mark_recalled([r.observation.id for r in fresh], now)
            return [note_line(r, now, memory.scope.branch) for r in fresh]
    except (CmsError, OSError) as exc:
        log_event("warning", "briefing_failed", str(exc))
        return []


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
    from cms.observations.access import open_project_memory

    try:
        memory = open_project_memory(cwd, create=False)
        if memory is None:
            return []
        from cms.project_search import search_project

        with memory:
            now = time.time()
            hits = search_project(memory, query, k=2 * limit + min(len(shown), 20))
            own_fact = [not h.id.startswith("O") and h.chat == session for h in hits]
            fresh = [
                h
                for h, own in zip(hits, own_fact, strict=True)
                if h.relevance >= min_relevance
                and not set(h.aliases) & set(shown)
                and not own
                and not h.is_passage  # what was merely said is for the search command
            ][:limit]
            recalled = [int(h.id[1:]) for h in fresh if h.id.startswith("O")]
            if recalled:
                memory.store.mark_recalled(recalled, now)
            return [(" ".join(h.aliases), h.render(now, session)) for h in fresh]
    except (CmsError, OSError) as exc:
        log_event("warning", "recall_failed", str(exc))
        return []
