"""Each item's meaning, stored once when it is written: the vector of the packaged static model
(cms.language.meaning) in the `meaning` column of facts and observations (migration 015), set
to NULL again by a trigger when the text changes.

Finds the items still without one (a partial index: the cost does not grow with the store),
saves vectors and reads those of given items. Stores bytes: it never computes a vector (the
worker does) and imports nothing outside the standard library.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable, Sequence

    from cms.observations.store import ObservationStore

    Encoder = Callable[[Sequence[str]], Sequence[bytes]]

BATCH = 500  # items given a meaning per step; the rest wait for the next job


def pending(store: ObservationStore, limit: int = BATCH) -> list[tuple[str, int, str]]:
    """Up to limit items without a meaning: ("F" or "O", id, the text it is read by)."""

    def run(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
        execute = conn.execute
        facts = execute(
            "SELECT id, text FROM facts INDEXED BY facts_meaning_pending "
            "WHERE meaning IS NULL LIMIT ?",
            (limit,),
        ).fetchall()
        found = [("F", int(i), str(t)) for i, t in facts]
        observations = execute(
            "SELECT id, title, body FROM observations INDEXED BY observations_meaning_pending "
            "WHERE meaning IS NULL LIMIT ?",
            (max(0, limit - len(found)),),
        ).fetchall()
        found += [("O", int(i), f"{t}: {b}" if b else str(t)) for i, t, b in observations]
        return found

    return store.read(run)


def give_meanings(store: ObservationStore, encode: Encoder) -> int:
    """Store the meaning of up to BATCH items that lack one; how many were stored."""
    todo = pending(store)
    if not todo:
        return 0
    vectors = encode([text for _, _, text in todo])
    facts = [(v, i) for (table, i, _), v in zip(todo, vectors, strict=True) if table == "F"]
    observations = [(v, i) for (table, i, _), v in zip(todo, vectors, strict=True) if table == "O"]

    def run(conn: sqlite3.Connection) -> None:
        execute = conn.executemany
        execute("UPDATE facts SET meaning = ? WHERE id = ?", facts)
        execute("UPDATE observations SET meaning = ? WHERE id = ?", observations)

    store.write(run)
    return len(todo)


def stored_meanings(
    store: ObservationStore, facts: Iterable[int], observations: Iterable[int]
) -> tuple[dict[int, bytes], dict[int, bytes]]:
    """The stored meanings of the given fact rows and observations ({id: bytes}; an item
    without one is left out)."""
    fact_ids, observation_ids = list(facts), list(observations)

    def run(conn: sqlite3.Connection) -> tuple[dict[int, bytes], dict[int, bytes]]:
        execute = conn.execute
        found: list[dict[int, bytes]] = []
        for table, ids in (("facts", fact_ids), ("observations", observation_ids)):
            rows = (
                execute(
                    f"SELECT id, meaning FROM {table} WHERE meaning IS NOT NULL "
                    f"AND id IN ({','.join('?' * len(ids))})",
                    ids,
                ).fetchall()
                if ids
                else []
            )
            found.append({int(i): bytes(v) for i, v in rows})
        return found[0], found[1]

    return store.read(run)


def newest_meanings(store: ObservationStore, limit: int) -> tuple[list[str], list[bytes]]:
    """The stored meanings of up to limit of the project's newest live items, keyed as the
    semantic index keys them (O<id>, F<row>): observations first (at most half), then facts
    and the chats' passages but those of tools (code and logs, whose meaning a sentence model
    does not read: they are found by their words)."""
    from cms.observations.facts import PASSAGE
    from cms.observations.factsync import TOOL_PLACES

    def run(conn: sqlite3.Connection) -> tuple[list[str], list[bytes]]:
        execute = conn.execute
        rows = [
            (f"O{i}", v)
            for i, v in execute(
                "SELECT id, meaning FROM observations WHERE meaning IS NOT NULL "
                "AND archived_at IS NULL AND superseded_by IS NULL ORDER BY id DESC LIMIT ?",
                (limit // 2,),
            )
        ]
        rows += [
            (f"F{i}", v)
            for i, v in execute(
                "SELECT id, meaning FROM facts WHERE meaning IS NOT NULL "
                "AND archived = 0 AND superseded_by IS NULL "
                "AND NOT (kind = ? AND planet LIKE ?) ORDER BY id DESC LIMIT ?",
                (PASSAGE, TOOL_PLACES, limit - len(rows)),
            )
        ]
        kept = [(key, bytes(v)) for key, v in rows if isinstance(v, bytes)]
        return [key for key, _ in kept], [v for _, v in kept]

    return store.read(run)
