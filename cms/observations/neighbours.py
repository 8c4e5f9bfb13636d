"""Supersession among semantic neighbours: a newly stored fact or observation and the earlier
items the semantic index found close to it, judged by the subject rules that capture and the
fact index apply to lexical candidates (cms.language.subject).

Knows nothing of how the neighbours were found: no model, no vectors, only item keys.
"""

from __future__ import annotations

from cms.observations.facts import PASSAGE, read_fact
from cms.observations.factsync import fact_retires
from cms.observations.model import COLUMNS, Observation, row_to_observation
from cms.observations.store import ObservationStore
from cms.observations.upkeep import observation_retires
from cms.observations.vectors import key_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence


def supersede_neighbours(store: ObservationStore, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """For each (new item, neighbour) pair of item keys (F12/F7: facts and passages, O3/O1:
    observations), mark the neighbour superseded by the new item when it is still in force, was
    said earlier and is restated or changed by it (a passage, the chat's own words, never
    retires anything; observations by upkeep.observation_retires). Returns the keys marked."""

    def run(conn: sqlite3.Connection) -> list[str]:
        marked = []
        for new_key, old_key in pairs:
            for prefix, retire in (("F", _retire_fact), ("O", _retire_observation)):
                new_id, old_id = key_number(new_key, prefix), key_number(old_key, prefix)
                if new_id is not None and old_id is not None and retire(conn, new_id, old_id):
                    marked.append(old_key)
        return marked

    return store.write(run) if pairs else []


def _retire_fact(conn: sqlite3.Connection, new_id: int, old_id: int) -> bool:
    new, old = read_fact(conn, new_id), read_fact(conn, old_id)
    if new is None or old is None or new.superseded_by is not None or new.kind == PASSAGE:
        return False  # a chat's own words never supersede anything (facts.index_passages)
    if old.superseded_by is not None or not fact_retires(new, old):
        return False
    conn.execute("UPDATE facts SET superseded_by = ? WHERE id = ?", (new.id, old.id))
    return True


def _observation(conn: sqlite3.Connection, obs_id: int) -> Observation | None:
    row = conn.execute(f"SELECT {COLUMNS} FROM observations WHERE id = ?", (obs_id,)).fetchone()
    return None if row is None else row_to_observation(row)


def _retire_observation(conn: sqlite3.Connection, new_id: int, old_id: int) -> bool:
    new, old = _observation(conn, new_id), _observation(conn, old_id)
    if new is None or old is None or new.superseded_by is not None or old.superseded_by is not None:
        return False
    if observation_retires(new, old) is None:
        return False
    conn.execute("UPDATE observations SET superseded_by = ? WHERE id = ?", (new.id, old.id))
    return True
