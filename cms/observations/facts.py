"""The project's index of chat facts (FTS5): every fact and passage of every chat of a project.

Owns the rows (IndexedFact), reading and searching them, and the ids (<chat tag>/F7) shown to
agents; the writing side (syncing a map, supersession) is cms.observations.factsync. Knows
nothing of hooks, the CLI or providers; runs inside the caller's store transactions.
"""

from __future__ import annotations

from cms.observations.ids import chat_tag, fact_key
from cms.observations.matching import (
    match_condition,
    plan_matches,
    query_terms,
    text_relevance,
)
from cms.observations.store import ObservationStore
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence
    from typing import Any

    from cms.observations.scope import BranchScope


FACT_COLUMNS = (
    "id, session, fact_id, sun, planet, text, kind, turn, created_at, updated_at, archived, "
    'superseded_by, branch, "commit", shared_commit'
)
PASSAGE = "passage"  # the kind of a row that holds a chat's own words rather than a map fact
PASSAGE_WEIGHT = 0.8  # a passage ranks below a fact that matches as well
SEARCH_POOL = 200  # FTS5 hits rescored per search, at most (4 per result asked for)
BM25_HALF = 4.0


class IndexedFact(Record):
    """One row of the fact index."""

    id: int
    session: str
    fact_id: str
    sun: str
    planet: str
    text: str
    kind: str
    turn: int
    created_at: float
    updated_at: float
    archived: bool
    superseded_by: int | None
    branch: str | None = None  # where its chat ran (None: no git, or indexed before 016)
    commit: str | None = None
    shared_commit: bool = False

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> IndexedFact:
        """From a row of FACT_COLUMNS (the fields, in their order; archived stored as 0 or 1)."""
        row_id, session, fact_id, sun, planet, text, kind, turn, created, updated, archived, by = (
            row[:12]
        )
        branch, commit, shared = row[12:15]
        return cls(
            row_id,
            session,
            fact_id,
            sun,
            planet,
            text,
            kind,
            turn,
            created,
            updated,
            bool(archived),
            by,
            branch,
            commit,
            bool(shared),
        )

    @property
    def key(self) -> str:
        """The id shown to agents and accepted by `cms get`: <chat tag>/<fact id>."""
        return fact_key(self.session, self.fact_id)

    @property
    def path(self) -> str:
        return f"{self.sun} > {self.planet}"


def superseded_in_chat(store: ObservationStore, session: str) -> dict[str, str]:
    """The fact ids of one chat that a later statement superseded (or a model retired), each
    with the id of the item that replaced it ("" when retired without one)."""
    rows = store.read(
        lambda c: c.execute(
            "SELECT old.fact_id, new.session, new.fact_id FROM facts AS old "
            "LEFT JOIN facts AS new ON new.id = old.superseded_by "
            "WHERE old.session = ? AND old.superseded_by IS NOT NULL",
            (session,),
        ).fetchall()
    )
    return {old: fact_key(chat, new) if chat is not None else "" for old, chat, new in rows}


def iso_stamp(iso: str, default: float = 0.0) -> float:
    """Unix seconds of a map's ISO 8601 time (default when unreadable)."""
    from datetime import datetime  # ~2 ms: only where map times are read, off the prompt path

    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except (ValueError, AttributeError):
        return default


def indexed_digest(store: ObservationStore, session: str) -> str | None:
    """The fingerprint of the map the index last synced this chat from (see map_digest)."""
    row = store.read(
        lambda c: c.execute("SELECT digest FROM chat_maps WHERE session = ?", (session,)).fetchone()
    )
    return None if row is None else str(row[0])


# -- reading ------------------------------------------------------------------------------


def read_fact(conn: sqlite3.Connection, row_id: int) -> IndexedFact | None:
    row = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE id = ?", (row_id,)).fetchone()
    return None if row is None else IndexedFact.from_row(row)


class FactMatch(Record):
    """A fact found for a query, with its relevance (0..1)."""

    fact: IndexedFact
    relevance: float


def search_facts(
    store: ObservationStore,
    query: str,
    *,
    limit: int,
    include_superseded: bool = False,
    passages: bool = True,
    skip_session: str | None = None,
    scope: BranchScope | None = None,
) -> list[FactMatch]:
    """The facts of the project (but those of `skip_session`, and, with a scope, those of a
    branch not visible there: DESIGN.md section 5) that best match query, best first; relevance
    combines BM25
    with the share of (rarity-weighted) query terms a fact holds. The cost is bounded: only the
    rarest terms whose postings fit the budget are matched, among their newest matches (see
    matching.match_expressions), and the best BM25 hits (4 per result asked for, at most
    SEARCH_POOL) are rescored with every term."""
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    cols = ", ".join("f." + c.strip() for c in FACT_COLUMNS.split(","))
    live = "" if include_superseded else "AND f.superseded_by IS NULL "
    live += "" if passages else f"AND f.kind != '{PASSAGE}' "
    live += "" if skip_session is None else "AND f.session != ? "
    skipped = () if skip_session is None else (skip_session,)
    pool = min(SEARCH_POOL, max(40, 4 * limit))
    plan = plan_matches(store, terms, "facts_vocab", "facts")

    def hits(conn: sqlite3.Connection) -> dict[int, tuple[Any, ...]]:
        rows: dict[int, tuple[Any, ...]] = {}
        for expr in plan.expressions:  # the rows holding many terms first, then the rarest
            if plan.newest_first:  # every term is common: the newest, BM25 computed below
                matched: tuple[str, ...] = (expr,)
                condition, rank, order = "facts_fts MATCH ?", "0.0", "facts_fts.rowid DESC"
            else:
                condition, matched = match_condition("facts_fts", expr)
                rank, order = "bm25(facts_fts, 1.0, 0.5, 0.75)", "rank"
            sql = (
                f"SELECT {cols}, {rank} AS rank FROM facts_fts "
                f"JOIN facts f ON f.id = facts_fts.rowid WHERE {condition} {live}"
                f"ORDER BY {order} LIMIT ?"
            )
            for row in conn.execute(sql, (*matched, *skipped, pool)):
                rows.setdefault(row[0], row)
            if len(rows) >= pool:
                break
        return rows

    rows = store.read(hits)
    found = [(IndexedFact.from_row(r[:-1]), float(r[-1])) for r in rows.values()]
    if scope is not None:
        found = [(f, b) for f, b in found if scope.is_visible(f.branch, f.commit, f.shared_commit)]
    texts = [f"{f.text} {f.sun} {f.planet}".casefold() for f, _ in found]
    bm25s = None if plan.newest_first else [b for _, b in found]
    relevances = text_relevance(texts, bm25s, terms, BM25_HALF, plan=plan)
    matches = []
    for (fact, _bm25), relevance in zip(found, relevances, strict=True):
        if fact.archived:
            relevance *= 0.9
        if fact.kind == PASSAGE:
            relevance *= PASSAGE_WEIGHT
        matches.append(FactMatch(fact, relevance))
    matches.sort(key=lambda m: (-m.relevance, -m.fact.updated_at, m.fact.id))
    return matches[:limit]


def find_facts(store: ObservationStore, key: str) -> list[IndexedFact]:
    """The facts a key names: "<chat tag>/F7", or a whole chat id before the slash."""
    chat, _, fact_id = key.partition("/")
    if not chat or not fact_id:
        return []
    rows = store.read(
        lambda c: c.execute(
            f"SELECT {FACT_COLUMNS} FROM facts WHERE fact_id = ?", (fact_id,)
        ).fetchall()
    )
    found = [IndexedFact.from_row(r) for r in rows]
    return [f for f in found if chat in (f.session, chat_tag(f.session))]


def fact_by_id(store: ObservationStore, row_id: int) -> IndexedFact | None:
    return store.read(lambda c: read_fact(c, row_id))


def superseded_chain(store: ObservationStore, fact: IndexedFact) -> list[IndexedFact]:
    """The facts this one superseded (older versions, newest first), followed transitively."""

    def run(conn: sqlite3.Connection) -> list[IndexedFact]:
        older: list[IndexedFact] = []
        frontier = [fact.id]
        while frontier and len(older) < 50:
            marks = ",".join("?" * len(frontier))
            rows = conn.execute(
                f"SELECT {FACT_COLUMNS} FROM facts WHERE superseded_by IN ({marks}) "
                "ORDER BY created_at DESC",
                frontier,
            ).fetchall()
            found = [IndexedFact.from_row(r) for r in rows]
            older += found
            frontier = [f.id for f in found]
        return older

    return store.read(run)
