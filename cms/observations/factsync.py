"""Keeping the project's fact index in line with the chat maps: syncing a map into the `facts`
table, indexing a turn's own words as passages, marking what a later statement supersedes, and
clearing the index for a rebuild. The writing side of cms.observations.facts (which reads and
searches); run by the worker and the commands, never on a hook's fast path.
"""

from __future__ import annotations

from cms.map.store import dump_map, map_digest
from cms.observations.facts import FACT_COLUMNS, PASSAGE, IndexedFact, iso_stamp, read_fact
from cms.observations.matching import frequencies_in, or_expression, rarest, refresh_term_counts

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable

    from cms.map.model import CorrelationMap

RELATED_LIMIT = 60  # the earlier facts and passages that best share the rarest subject words
RELATED_POSTINGS = 200  # index entries one check may score: its rarest words name the subject
BULK = 200  # facts changed at once from which the vocabulary counts are taken again first
TOOL_SPEAKER = "tool"  # the speaker of a passage a tool was called with or printed
TOOL_PLACES = f"turn %, {TOOL_SPEAKER}"  # (SQL LIKE) the place of every such passage


def _map_facts(cmap: CorrelationMap) -> list[tuple[str, str, str, str, int, str, str, bool]]:
    """(fact id, sun, planet, text, turn, created, updated, archived) of every fact of a map."""
    return [
        (sat.id, sun, planet.title, sat.text, sat.turn, sat.created_at, sat.updated_at, archived)
        for sun, planet, archived in cmap.all_planets()
        for sat in planet.satellites
    ]


Place = tuple[str | None, str | None, bool]  # branch, commit, whether the commit is shared
NOWHERE: Place = (None, None, False)  # no git (or unknown): visible on every branch


def _place_rows(conn: sqlite3.Connection, rows: list[int], place: Place) -> None:
    """Record where the rows were said: the branch and commit of their chat."""
    conn.executemany(
        'UPDATE facts SET branch = ?, "commit" = ?, shared_commit = ? WHERE id = ?',
        [(place[0], place[1], int(place[2]), row) for row in rows],
    )


def sync_chat(
    conn: sqlite3.Connection,
    cmap: CorrelationMap,
    *,
    kind_of: Callable[[str], str],
    now: float,
    place: Place = NOWHERE,
) -> list[tuple[int, str]]:
    """Bring the index rows of one chat in line with its map; returns (row id, fact id) of the
    rows that are new or whose text changed (in map order), after marking what they supersede.
    kind_of gives the kind stored with each row; place, the branch and commit new and changed
    rows were said on."""
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
    _place_rows(conn, [row_id for row_id, _fact_id in changed], place)
    if len(changed) >= BULK:  # counts of the words just indexed, read once, not per fact
        refresh_term_counts(conn, "facts_vocab", "facts")
    for row_id, _fact_id in changed:
        supersede_related(conn, row_id)
    conn.execute(
        "INSERT OR REPLACE INTO chat_maps (session, digest) VALUES (?, ?)",
        (session, map_digest(dump_map(cmap))),
    )
    return changed


def index_passages(
    conn: sqlite3.Connection,
    session: str,
    turn: int,
    passages: list[tuple[str, str]],
    *,
    now: float,
    summary: int = 0,
    place: Place = NOWHERE,
) -> int:
    """Index what was said in one turn of a chat, as (speaker, text) passages, so that a later
    chat finds it even when no fact was extracted; a turn indexed again replaces its passages.
    With `summary` (its 1-based number in the chat) they are the passages of a compaction
    summary instead ("S<n>.<k>", replaced alike). Passages never supersede anything; a later
    fact of the same subject supersedes them. Their time is in whole seconds, as map times
    are, so that order decides within one second."""
    stamp = float(int(now))
    prefix = f"S{summary}." if summary else f"T{turn}."
    conn.execute(
        "DELETE FROM facts WHERE session = ? AND kind = ? AND fact_id LIKE ?",
        (session, PASSAGE, f"{prefix}%"),
    )
    for n, (speaker, text) in enumerate(passages, start=1):
        # the place of a turn's passage (TOOL_PLACES matches those of tools)
        where = f"compaction summary {summary}" if summary else f"turn {turn}, {speaker}"
        conn.execute(
            "INSERT INTO facts (session, fact_id, sun, planet, text, kind, turn, created_at, "
            'updated_at, branch, "commit", shared_commit) '
            "VALUES (?, ?, 'chat', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session, f"{prefix}{n}", where, text, PASSAGE, turn, stamp, stamp, place[0],
             place[1], int(place[2])),
        )  # fmt: skip
    return len(passages)


def fact_retires(new: IndexedFact, old: IndexedFact) -> bool:
    """Whether new, said later, restates or changes old (the same subject, cms.observations.
    subject.relation), so that old leaves what is in force; a poorer restatement does not; nor
    does a statement of another branch (old of no known branch, indexed before branches were
    recorded, may be retired from anywhere), nor a rule or decision by a statement of another
    kind (recall.outranks)."""
    from cms.language.kinds import STANDING_KINDS
    from cms.language.subject import SAME, is_poorer, relation
    from cms.observations.recall import outranks

    if (old.created_at, old.id) >= (new.created_at, new.id):
        return False
    if old.branch is not None and old.branch != new.branch:
        return False  # a branch retires only its own (another's shows while it is visible)
    if outranks(old.kind, new.kind):
        return False  # the agent's narration never retires the user's rule or decision
    found = relation(new.text, old.text, by_rule=new.kind in STANDING_KINDS)
    return found is not None and not (found == SAME and is_poorer(new.text, old.text))


def supersede_related(conn: sqlite3.Connection, row_id: int) -> list[int]:
    """Mark the in-force facts and passages that the fact row_id restates or changes (same
    subject, said earlier) as superseded by it; returns their ids."""
    new = read_fact(conn, row_id)
    if new is None:
        return []
    from cms.language.subject import subject_words

    words = subject_words(new.text)[:24]
    counts = frequencies_in(conn, words, "facts_vocab")
    expr = or_expression(rarest(words, counts, RELATED_POSTINGS))
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


def clear_index(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Empty the fact index of this machine's map facts (before a rebuild from the maps; facts
    pulled from the team database stay, no map here holds them); returns the
    (session, fact id) an update model retired, which no map records, to retire them again."""
    retired = conn.execute(
        "SELECT session, fact_id FROM facts WHERE superseded_by = 0 AND kind != ?", (PASSAGE,)
    ).fetchall()
    conn.execute(
        "UPDATE facts SET superseded_by = NULL WHERE kind = ? AND superseded_by IS NOT NULL",
        (PASSAGE,),
    )
    conn.execute("DELETE FROM facts WHERE kind != ? AND origin IS NULL", (PASSAGE,))
    conn.execute("DELETE FROM chat_maps")
    return [(str(a), str(b)) for a, b in retired]


def retire_again(conn: sqlite3.Connection, retired: list[tuple[str, str]]) -> None:
    conn.executemany(
        "UPDATE facts SET superseded_by = 0 WHERE session = ? AND fact_id = ?", retired
    )
