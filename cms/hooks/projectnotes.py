"""Project memory for injection: the rules in force, the session briefing and the prompt's few,
with the user tier's preferences beside the project's (the project's win on one subject).

A thin adapter over cms.observations for the hooks: never creates a store (a project that never
captured anything, or a user who never had a preference stored, costs one stat each), never
runs git (the scope reads .git files and caches ancestry), returns (id, line) pairs ready to
inject, every line starting with the id that `cms get` takes. Store failures are logged, not
raised.
"""

from __future__ import annotations

import time

from cms.errors import CmsError
from cms.log import log_event
from cms.observations.access import open_project_memory, open_user_memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from cms.observations.access import ProjectMemory
    from cms.observations.model import Observation
    from cms.observations.recall import RecalledObservation
    from cms.search.project import MemoryHit

Note = tuple[tuple[str, ...], str]  # (the ids the item is known by, the line to inject)
LINE_CHARS = 320  # past this a line shows its title and first whole sentence, and its id
SHORTEST_RULE = 40  # budget left under which no further rule line is tried


def _ids(obs: Observation, prefix: str = "O") -> tuple[str, ...]:
    from cms.observations.ids import item_aliases

    return item_aliases(f"{prefix}{obs.id}", obs.source)


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


def user_rule_line(found: RecalledObservation) -> Note:
    """A rule of the user tier: its U id, the rule, and that it is the user's own."""
    from cms.observations.recall import observation_text
    from cms.observations.usertier import MARK, USER_PREFIX

    o = found.observation
    return _ids(o, USER_PREFIX), f"{USER_PREFIX}{o.id} {observation_text(o, LINE_CHARS)} ({MARK})"


def _files_moved_on(
    memory: ProjectMemory | None, found: list[RecalledObservation]
) -> dict[str, str]:
    """For the observations among found whose named files changed or vanished since they were
    captured: id -> "(file changed since: a.py)" (cms.observations.filestate)."""
    if memory is None or not found:
        return {}
    from cms.observations.filestate import files_moved_on

    ids = [r.observation.id for r in found]
    return {
        f"O{i}": note for i, note in files_moved_on(memory.store, memory.project.root, ids).items()
    }


def _marked(note: Note, moved: dict[str, str]) -> Note:
    ids, line = note
    mark = moved.get(ids[0]) if ids else None
    return (ids, f"{line} {mark}") if mark else note


def _user_memory() -> ProjectMemory | None:
    """The user tier when it exists (one stat when it does not); a store that cannot be opened
    is logged and left out, so the project's memory still reaches the chat."""
    try:
        return open_user_memory()
    except (CmsError, OSError) as exc:
        log_event("warning", "user_tier_unreadable", str(exc))
        return None


def _close(*memories: ProjectMemory | None) -> None:
    for memory in memories:
        if memory is not None:
            memory.close()


def start_notes(cwd: str, budget: int, limit: int) -> tuple[list[Note], list[Note], bool]:
    """For SessionStart, from one opening of the project's store (and of the user tier's, when
    it exists): the standing rules (preferences, conventions, decisions) in force on this
    branch and the user's own that the project does not overrule, most important and most
    recently confirmed first, within budget characters; the briefing, the top other
    observations of the project (up to limit); and whether the project has a memory at all
    (earlier chats to search, even when nothing of it is pushed)."""
    memory = user = None
    try:
        memory = open_project_memory(cwd, create=False)
        if budget <= 0 and limit <= 0:
            return [], [], memory is not None
        user = _user_memory() if budget > 0 else None
        if memory is None and user is None:
            return [], [], False
        from cms.language.kinds import STANDING_KINDS
        from cms.observations.recall import briefing, in_force

        now = time.time()
        branch = memory.scope.branch if memory is not None else None
        found = in_force(memory.store, memory.scope, now=now) if memory and budget > 0 else []
        ranked = [(rule, False) for rule in found]
        if user is not None:
            from cms.observations.usertier import merge_rules

            ranked = merge_rules(found, in_force(user.store, user.scope, now=now))
        top = (
            briefing(memory.store, memory.scope, limit, now=now, skip_kinds=STANDING_KINDS)
            if memory is not None
            else []
        )
        moved = _files_moved_on(memory, [r for r, personal in ranked if not personal] + top)
        rules: list[Note] = []
        used = 0
        for rule, personal in ranked:
            if budget - used < SHORTEST_RULE:
                break
            note = user_rule_line(rule) if personal else _marked(rule_line(rule, branch), moved)
            if used + len(note[1]) + 3 > budget:
                continue  # a shorter one further down may still fit
            rules.append(note)
            used += len(note[1]) + 3
        notes = [_marked(note_line(r, now, branch), moved) for r in top]
        return rules, notes, memory is not None
    except (CmsError, OSError) as exc:
        log_event("warning", "briefing_failed", str(exc))
        return [], [], False
    finally:
        _close(memory, user)


PASSAGE_POOL = 10  # passages that answer the prompt looked at for the newest chat among them


def _newest_passages(
    memory: ProjectMemory | None,
    query: str,
    limit: int,
    min_relevance: float,
    shown: Collection[str],
    session: str | None,
) -> list[MemoryHit]:
    """Up to limit passages of other chats than `session` (its own words are in its context)
    relevant to query, all of the newest chat among the PASSAGE_POOL best, none naming a value
    a later edit replaced (cms.observations.edited): where what chats said answers the prompt,
    the latest chat's words are shown and an earlier chat's are history (search still finds
    them, marked)."""
    from cms.observations.edited import replaced_since
    from cms.search.project import search_project

    if memory is None:
        return []
    hits = search_project(
        memory, query, k=PASSAGE_POOL, passages=True, other_than=session, exclude=shown
    )
    said = [h for h in hits if h.is_passage and h.chat != session and h.relevance >= min_relevance]
    said = [
        h for h in said if not replaced_since(memory.store, h.text, h.updated_at, h.chat, h.turn)
    ]
    newest = max(said, key=lambda h: h.said_at).chat if said else None
    return [h for h in said if h.chat == newest][:limit]


def relevant_notes(
    cwd: str,
    query: str,
    limit: int,
    *,
    min_relevance: float,
    shown: Collection[str],
    session: str | None = None,
) -> list[Note]:
    """Up to limit facts of the project's other chats, observations and user tier items relevant
    to query that this chat has not been shown yet (nothing superseded, the chat's own facts and
    the chats' passages left out, no user item the project overrules)."""
    if limit <= 0 or not query.strip():
        return []
    memory = user = None
    try:
        memory = open_project_memory(cwd, create=False)
        user = _user_memory()
        if memory is None and user is None:
            return []
        from cms.search.project import search_project

        now = time.time()
        hits = search_project(
            memory, query, k=limit, passages=False, other_than=session, user=user, exclude=shown
        )
        fresh = [h for h in hits if h.relevance >= min_relevance][:limit]
        if not fresh:  # no item answers the prompt: what the newest chat said that does
            fresh = _newest_passages(memory, query, limit, min_relevance, shown, session)
        for tier, prefix in ((memory, "O"), (user, "U")):
            recalled = [int(h.id[1:]) for h in fresh if h.id.startswith(prefix)]
            if recalled and tier is not None:
                tier.store.mark_recalled(recalled, now)
        return [(h.aliases, h.render(now, session)) for h in fresh]
    except (CmsError, OSError) as exc:
        log_event("warning", "recall_failed", str(exc))
        return []
    finally:
        _close(memory, user)
