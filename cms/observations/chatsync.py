"""Keeping a project's memory in step with its chat maps: the fact index and standing rules.

After each map update: facts synced (with what they supersede), what the turn said indexed, new
rules promoted to observations at once, items an update model retired marked; `cms reindex`
rebuilds. Runs in the worker and the CLI, never on the hook fast path.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cms.language.factkinds import kind_of_fact
from cms.language.kinds import STANDING_KINDS
from cms.map.model import CorrelationMap
from cms.observations.access import ProjectMemory
from cms.observations.capture import capture_place, capture_with_outcomes, observations_from_map
from cms.observations.factsync import (
    NOWHERE,
    Place,
    clear_index,
    index_passages,
    retire_again,
    sync_chat,
)
from cms.observations.matching import tidy_text_indexes
from cms.observations.personal import capture_personal, split_personal
from cms.record import Record, field


class SyncResult(Record):
    """What one sync did: the fact rows new or changed, the observations stored (ids), and the
    user tier's items stored (the chat's personal preferences, ids in the user's store)."""

    facts: list[int]
    observations: list[int]
    personal: list[int] = field(default_factory=list)


def sync_chat_memory(
    memory: ProjectMemory,
    cmap: CorrelationMap,
    *,
    cwd: str | Path | None,
    agent: str | None = None,
    now: float | None = None,
    prompts: Mapping[int, str] | None = None,
    offline: bool = False,
) -> SyncResult:
    """Sync one chat map into the project's fact index and promote its new standing facts
    (prompts: the user's prompt by turn, the context of the facts of that turn; offline: the
    local extractor made the map, see capture.offline_kind): the user's own preferences to the
    user tier (see personal.py), the rest to the project."""
    stamp = time.time() if now is None else now
    place = fact_place(cwd)
    changed = memory.store.write(
        lambda c: sync_chat(c, cmap, kind_of=kind_of_fact, now=stamp, place=place)
    )
    if not changed:
        return SyncResult([], [])
    candidates = observations_from_map(
        cmap,
        kinds=STANDING_KINDS,
        fact_ids=[fact_id for _row, fact_id in changed],
        prompts=prompts,
        offline=offline,
    )
    candidates, personal = split_personal(candidates)
    outcomes = capture_with_outcomes(
        memory.store, candidates, session=cmap.session_id, agent=agent, cwd=cwd, now=stamp
    )
    stored = [o.id for o in outcomes if o.status != "duplicate"]
    memory.store.write(lambda c: retire_promoted(c, [row for row, _fact in changed]))
    mine = capture_personal(personal, session=cmap.session_id, agent=agent, now=stamp)
    memory.store.write(tidy_text_indexes)
    return SyncResult(
        [row for row, _fact in changed], stored, [o.id for o in mine if o.status != "duplicate"]
    )


def retire_promoted(conn: Any, rows: list[int]) -> int:
    """Mark superseded the observations promoted from the facts that the fact rows `rows`
    superseded in the index, by the observation promoted from the superseding fact, when there
    is one on the same branch (a fact carries no branch: an observation of another branch is
    left alone). What is no longer in force as a fact is then no longer pushed as a rule, even
    where the observations' own comparison saw no relation. Returns how many were marked."""
    if not rows:
        return 0
    marks = ",".join("?" * len(rows))
    pairs = conn.execute(  # (promoted from the older fact, promoted from the newer)
        "SELECT old.id, new.id FROM facts f "
        "JOIN facts s ON s.id = f.superseded_by "
        "JOIN observations old ON old.source = f.session || '/' || f.fact_id "
        "JOIN observations new ON new.source = s.session || '/' || s.fact_id "
        f"WHERE f.superseded_by IN ({marks}) AND old.superseded_by IS NULL "
        "AND new.superseded_by IS NULL AND old.id < new.id "
        "AND coalesce(old.branch, '') = coalesce(new.branch, '')",
        rows,
    ).fetchall()
    count = 0
    for old, new in pairs:
        count += conn.execute(
            "UPDATE observations SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL",
            (new, old),
        ).rowcount
    return count


def related_in_force(
    memory: ProjectMemory, session: str, text: str, *, limit: int = 8
) -> dict[str, str]:
    """{id: text} of the facts of other chats and the observations in force most related to
    text: what an update model is offered to supersede (no passages: they are not items)."""
    from cms.search.project import search_project

    hits = search_project(memory, text, k=2 * limit, passages=False, other_than=session)
    chosen = [h for h in hits if h.chat != session][:limit]  # its observations too
    return {h.id: h.text for h in chosen}


def successor(conn: Any, text: str, candidates: list[int]) -> int:
    """Of the facts this turn stored, the one that best restates the retired text's subject,
    else the first; 0 when the turn stored none (the item was retracted)."""
    from cms.language.subject import relation

    rows = (
        conn.execute(
            f"SELECT id, text FROM facts WHERE id IN ({','.join('?' * len(candidates))})",
            candidates,
        ).fetchall()
        if candidates
        else []
    )
    related = [row_id for row_id, new in rows if relation(new, text) is not None]
    return related[0] if related else (candidates[0] if candidates else 0)


def retire_items(memory: ProjectMemory, ids: list[str], result: SyncResult) -> int:
    """Mark items an update model superseded: facts by the fact this turn stored that restates
    them (see successor), observations by the first observation stored (archived when none); an
    observation of another branch than the chat's is overridden for the chat's branch only
    (never retired: a branch supersedes only its own). Returns how many were marked."""
    from cms.observations.facts import find_facts
    from cms.observations.overrides import record_overrides

    by_observation = result.observations[0] if result.observations else None
    facts = [f for key in ids if "/" in key for f in find_facts(memory.store, key)]
    observations = [int(key[1:]) for key in ids if "/" not in key and key[1:].isdigit()]
    sources = [f"{f.session}/{f.fact_id}" for f in facts]  # and what was promoted from them
    if sources:
        marks = ",".join("?" * len(sources))
        observations += memory.store.read(
            lambda c: [
                row[0]
                for row in c.execute(
                    f"SELECT id FROM observations WHERE source IN ({marks}) "
                    "AND superseded_by IS NULL",
                    sources,
                )
            ]
        )
    stamp = time.time()

    def run(conn: Any) -> int:
        count = 0
        for fact in facts:
            count += conn.execute(
                "UPDATE facts SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL",
                (successor(conn, fact.text, result.facts), fact.id),
            ).rowcount
        here = memory.scope.branch  # the chat's branch, where its observations are captured
        for obs in observations:
            args: tuple[float, int]
            there = _branch_of(conn, obs)
            if there is not None and here is not None and there != here:  # another branch's:
                if by_observation is not None:  # changed for this branch only, never retired
                    record_overrides(conn, by_observation, [obs])
                    count += 1
                continue
            if by_observation is not None and by_observation != obs:
                sql, args = "superseded_by = ?", (by_observation, obs)
            else:
                sql, args = "archived_at = ?", (stamp, obs)
            count += conn.execute(
                f"UPDATE observations SET {sql} WHERE id = ? AND superseded_by IS NULL", args
            ).rowcount
        return count

    return int(memory.store.write(run))


def retire_edited(
    memory: ProjectMemory,
    session: str,
    turn: int,
    replaced: Sequence[tuple[str, str]],
    result: SyncResult,
    place: Place = NOWHERE,
) -> int:
    """Mark the items said before this turn that its edits made outdated (a value the agent
    replaced in the code: cms.observations.edited) as retire_items does; how many were marked."""
    from cms.observations.edited import changes_of, outdated_items, record_changes

    changes = changes_of(replaced)
    if not changes:
        return 0
    stamp = time.time()

    def run(conn: Any) -> list[str]:
        record_changes(conn, changes, branch=place[0], session=session, turn=turn, now=stamp)
        return outdated_items(conn, changes, branch=place[0], session=session, turn=turn)

    keys = memory.store.write(run)
    return retire_items(memory, keys, result) if keys else 0


def retire_edited_again(memory: ProjectMemory) -> int:
    """After a rebuild of the fact index: mark again, turn by turn, what recorded value changes
    outdated (retire_edited); how many were marked."""
    from cms.observations.edited import outdated_items, recorded_changes

    marked = 0
    for session, turn, branch, changes in memory.store.read(recorded_changes):
        keys = memory.store.read(
            lambda c, s=session, t=turn, b=branch, ch=changes: outdated_items(  # type: ignore[misc]
                c, ch, branch=b, session=s, turn=t
            )
        )
        marked += retire_items(memory, keys, SyncResult([], [])) if keys else 0
    return marked


def _branch_of(conn: Any, obs: int) -> str | None:
    row = conn.execute("SELECT branch FROM observations WHERE id = ?", (obs,)).fetchone()
    return None if row is None else row[0]


def fact_place(cwd: str | Path | None) -> Place:
    """The branch, commit and shared flag facts and passages said in cwd are recorded with (the
    same as observations: capture.capture_place, one git run)."""
    where = capture_place(cwd)
    return (where.branch, where.commit, where.shared_commit)


def index_exchange(
    memory: ProjectMemory,
    session: str,
    turn: int,
    passages: list[tuple[str, str]],
    place: Place = NOWHERE,
) -> int:
    """Index the (speaker, text) passages of one turn of a chat (already redacted), said on
    place (fact_place)."""
    stamp = time.time()
    return memory.store.write(
        lambda c: index_passages(c, session, turn, passages, now=stamp, place=place)
    )


def index_summaries(
    memory: ProjectMemory, session: str, summaries: list[list[str]], place: Place = NOWHERE
) -> int:
    """Index the passages of each compaction summary of a chat (already redacted), numbered in
    order from 1; indexing them again replaces them. Returns how many passages were indexed."""
    stamp = time.time()

    def run(conn: Any) -> int:
        return sum(
            index_passages(
                conn,
                session,
                0,
                [("summary", p) for p in texts],
                now=stamp,
                summary=number,
                place=place,
            )
            for number, texts in enumerate(summaries, start=1)
        )

    return int(memory.store.write(run))


def rebuild_fact_index(memory: ProjectMemory, maps: Iterable[CorrelationMap]) -> int:
    """Rebuild the project's fact index from its chat maps, oldest chat first (so that later
    statements supersede earlier ones), and the observations' text index; returns the number of
    facts indexed. Passages (not in
    the maps) stay, their marks recomputed; what an update model retired stays retired."""
    ordered = sorted(maps, key=lambda m: (m.created_at, m.session_id))
    stamp = time.time()
    retired = memory.store.write(clear_index)
    total = 0
    for cmap in ordered:
        changed = memory.store.write(
            lambda c, m=cmap: sync_chat(c, m, kind_of=kind_of_fact, now=stamp)  # type: ignore[misc]
        )
        total += len(changed)
    memory.store.write(lambda c: retire_again(c, retired))
    retire_edited_again(memory)
    memory.store.write(rebuild_observation_text_index)
    memory.store.write(lambda c: tidy_text_indexes(c, force=True))
    return total


def rebuild_observation_text_index(conn: Any) -> None:
    """Rebuild the observations' FTS5 index from their rows (title, body, files, context)."""
    conn.execute("INSERT INTO observations_fts (observations_fts) VALUES ('rebuild')")
