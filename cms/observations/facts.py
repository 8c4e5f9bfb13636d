"""The project's index of chat facts (FTS5): every fact and passage of every chat of a project.

Owns syncing a chat map into the `facts` table, marking what a later statement of any chat
supersedes, searching, and the ids (<chat tag>/F7) shown to agents. Knows nothing of hooks,
the CLI or providers; runs inside the caller's store transactions.
"""

from __future__ import annotations

from cms.map.store import dump_map, map_digest
from cms.observations.ids import chat_tag, fact_key
from cms.observations.matching import (
    frequencies_in,
    match_expressions,
    newest_matches,
    or_expression,
    query_terms,
    rarest,
    text_relevance,
)
from cms.observations.store import ObservationStore
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Sequence
    from typing import Any

    from cms.map.model import CorrelationMap

FACT_COLUMNS = (
    "id, session, fact_id, sun, planet, text, kind, turn, created_at, updated_at, archived, "
    "superseded_by"
)
RELATED_LIMIT = 60  # the earlier facts and passages that best share the rarest subject words
PASSAGE = "passage"  # the kind of a row that holds a chat's own words rather than a map fact
PASSAGE_WEIGHT = 0.8  # a passage ranks below a fact that matches as well
SEARCH_POOL = 200  # FTS5 hits rescored per search, at most (4 per result asked for)
BM25_HALF = 4.0


class IndexedFact(Record, frozen=True):
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

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> IndexedFact:
        """From a row of FACT_COLUMNS (the fields, in their order; archived stored as 0 or 1)."""
        values = dict(zip(cls._FIELDS, row, strict=True))
        values["archived"] = bool(values["archived"])
        return cls(**values)

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


def _map_facts(cmap: CorrelationMap) -> list[tuple[str, str, str, str, int, str, str, bool]]:
    """(fact id, sun, planet, text, turn, created, updated, archived) of every fact of a map."""
    return [
        (sat.id, sun, planet.title, sat.text, sat.turn, sat.created_at, sat.updated_at, archived)
        for sun, planet, archived in cmap.all_planets()
        for sat in planet.satellites
    ]


def sync_chat(
    conn: sqlite3.Connection,
    cmap: CorrelationMap,
    *,
    kind_of: Callable[[str], str],
    now: float,
) -> list[tuple[int, str]]:
    """Bring the index rows of one chat in line with its map; returns (row id, fact id) of the
    rows that are new or whose text changed (in map order), after marking what they supersede.
    kind_of gives the kind stored with each row."""
    session = cmap.session_id
    stored = {
        fact_id: (row_id, text, archived)
        for row_id, fact_id, text, archived in conn.execute(
            "SELECT id, fact_id, text, archived FROM facts WHERE session = ? AND kind != ?",
            (session, PASSAGE),
        )
    }
    changed: list[tuple[int, str]] = []
    seen: set[str] = set()
    for fact_id, sun, planet, text, turn, created, updated, archived in _map_facts(cmap):
        seen.add(fact_id)
        old = stored.get(fact_id)
        if old is None:
            values = (
                sun,
                planet,
                text,
                kind_of(text),
                turn,
                iso_stamp(created, now),
                iso_stamp(updated, now),
            )
            cursor = conn.execute(
                "INSERT INTO facts (session, fact_id, sun, planet, text, kind, turn, created_at, "
                "updated_at, archived) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session, fact_id, *values, int(archived)),
            )
            changed.append((int(cursor.lastrowid or 0), fact_id))
        elif old[1] != text:
            conn.execute(
                "UPDATE facts SET text = ?, kind = ?, sun = ?, planet = ?, turn = ?, "
                "updated_at = ?, archived = ? WHERE id = ?",
                (
                    text,
                    kind_of(text),
                    sun,
                    planet,
                    turn,
                    iso_stamp(updated, now),
                    int(archived),
                    old[0],
                ),
            )
            changed.append((old[0], fact_id))
        elif bool(old[2]) != archived:
            conn.execute(
                "UPDATE facts SET archived = ?, sun = ?, planet = ? WHERE id = ?",
                (int(archived), sun, planet, old[0]),
            )
    gone = [row[0] for fid, row in stored.items() if fid not in seen]
    for row_id in gone:  # deleted from the map: no longer true; what it superseded is back
        conn.execute("UPDATE facts SET superseded_by = NULL WHERE superseded_by = ?", (row_id,))
        conn.execute("DELETE FROM facts WHERE id = ?", (row_id,))
    for row_id, _fact_id in changed:
        supersede_related(conn, row_id)
    conn.execute(
        "INSERT OR REPLACE INTO chat_maps (session, digest) VALUES (?, ?)",
        (session, map_digest(dump_map(cmap))),
    )
    return changed


def indexed_digest(store: ObservationStore, session: str) -> str | None:
    """The fingerprint of the map the index last synced this chat from (see map_digest)."""
    row = store.read(
        lambda c: c.execute("SELECT digest FROM chat_maps WHERE session = ?", (session,)).fetchone()
    )
    return None if row is None else str(row[0])


def index_passages(
    conn: sqlite3.Connection,
    session: str,
    turn: int,
    passages: list[tuple[str, str]],
    *,
    now: float,
) -> int:
    """Index what was said in one turn of a chat, as (speaker, text) passages, so that a later
    chat finds it even when no fact was extracted; a turn indexed again replaces its passages.
    Passages never supersede anything; a later fact of the same subject supersedes them. Their
    time is in whole seconds, as map times are, so that order decides within one second."""
    stamp = float(int(now))
    conn.execute(
        "DELETE FROM facts WHERE session = ? AND kind = ? AND fact_id LIKE ?",
        (session, PASSAGE, f"T{turn}.%"),
    )
    for n, (speaker, text) in enumerate(passages, start=1):
        conn.execute(
            "INSERT INTO facts (session, fact_id, sun, planet, text, kind, turn, created_at, "
            "updated_at) VALUES (?, ?, 'chat', ?, ?, ?, ?, ?, ?)",
            (session, f"T{turn}.{n}", f"turn {turn}, {speaker}", text, PASSAGE, turn, stamp, stamp),
        )
    return len(passages)


def fact_retires(new: IndexedFact, old: IndexedFact) -> bool:
    """Whether new, said later, restates or changes old (the same subject, cms.observations.
    subject.relation), so that old leaves what is in force; a poorer restatement does not."""
    from cms.observations.subject import SAME, is_poorer, relation

    if (old.created_at, old.id) >= (new.created_at, new.id):
        return False
    found = relation(new.text, old.text)
    return found is not None and not (found == SAME and is_poorer(new.text, old.text))


def read_fact(conn: sqlite3.Connection, row_id: int) -> IndexedFact | None:
    row = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE id = ?", (row_id,)).fetchone()
    return None if row is None else IndexedFact.from_row(row)


def supersede_related(conn: sqlite3.Connection, row_id: int) -> list[int]:
    """Mark the in-force facts and passages that the fact row_id restates or changes (same
    subject, said earlier) as superseded by it; returns their ids."""
    new = read_fact(conn, row_id)
    if new is None:
        return []
    from cms.observations.subject import subject_words

    words = subject_words(new.text)[:24]
    expr = or_expression(rarest(words, frequencies_in(conn, words, "facts_vocab")))
    if expr is None:
        return []
    rows = conn.execute(  # the rarest words bound the postings ranked (see recall.rarest)
        f"SELECT {', '.join('f.' + c.strip() for c in FACT_COLUMNS.split(','))} FROM facts f "
        "JOIN (SELECT rowid AS id, bm25(facts_fts) AS rank FROM facts_fts WHERE facts_fts "
        "MATCH ? AND rowid < ? ORDER BY rank LIMIT ?) hits ON hits.id = f.id "
        "WHERE f.superseded_by IS NULL ORDER BY hits.rank",
        (expr, row_id, RELATED_LIMIT),
    ).fetchall()
    marked = [old.id for old in map(IndexedFact.from_row, rows) if fact_retires(new, old)]
    if marked:
        marks = ",".join("?" * len(marked))
        conn.execute(f"UPDATE facts SET superseded_by = ? WHERE id IN ({marks})", (row_id, *marked))
    return marked


# -- reading ------------------------------------------------------------------------------


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
) -> list[FactMatch]:
    """The facts of the project (but those of `skip_session`) that best match query, best
    first; relevance combines BM25
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
    sql = (
        f"SELECT {cols}, bm25(facts_fts, 1.0, 0.5, 0.75) AS rank FROM facts_fts "
        f"JOIN facts f ON f.id = facts_fts.rowid WHERE facts_fts MATCH ? "
        f"AND {newest_matches('facts_fts')} {live}ORDER BY rank LIMIT ?"
    )
    pool = min(SEARCH_POOL, max(40, 4 * limit))
    expressions = match_expressions(store, terms, "facts_vocab", "facts")

    def hits(conn: sqlite3.Connection) -> dict[int, tuple[Any, ...]]:
        rows: dict[int, tuple[Any, ...]] = {}
        for expr in expressions:  # the rows holding many terms first, then the rarest terms
            for row in conn.execute(sql, (expr, expr, *skipped, pool)):
                rows.setdefault(row[0], row)
            if len(rows) >= pool:
                break
        return rows

    rows = store.read(hits)
    found = [(IndexedFact.from_row(r[:-1]), float(r[-1])) for r in rows.values()]
    texts = [f"{f.text} {f.sun} {f.planet}".casefold() for f, _ in found]
    relevances = text_relevance(texts, [b for _, b in found], terms, BM25_HALF)
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


def clear_index(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Empty the fact index of map facts (before a rebuild from the maps); returns the
    (session, fact id) an update model retired, which no map records, to retire them again."""
    retired = conn.execute(
        "SELECT session, fact_id FROM facts WHERE superseded_by = 0 AND kind != ?", (PASSAGE,)
    ).fetchall()
    conn.execute(
        "UPDATE facts SET superseded_by = NULL WHERE kind = ? AND superseded_by IS NOT NULL",
        (PASSAGE,),
    )
    conn.execute("DELETE FROM facts WHERE kind != ?", (PASSAGE,))
    conn.execute("DELETE FROM chat_maps")
    return [(str(a), str(b)) for a, b in retired]


def retire_again(conn: sqlite3.Connection, retired: list[tuple[str, str]]) -> None:
    conn.executemany(
        "UPDATE facts SET superseded_by = 0 WHERE session = ? AND fact_id = ?", retired
    )
