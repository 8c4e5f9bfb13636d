"""The semantic index's rows in the project store: one vector per live fact and observation and
model, with a digest of the text it was computed from, so changed texts are computed again.

Owns the `vectors` table (migration 011) and the text each item is embedded by. Stores vectors
as opaque bytes: it never computes one and imports nothing outside the standard library.
"""

from __future__ import annotations

import zlib

from cms.observations.facts import PASSAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Sequence

    from cms.observations.store import ObservationStore

    Encoder = Callable[[Sequence[str]], Sequence[bytes]]

BATCH = 256  # texts encoded per call


def observation_key(observation_id: int) -> str:
    return f"O{observation_id}"


def fact_row_key(row_id: int) -> str:
    return f"F{row_id}"


def _digest(text: str) -> str:
    return f"{len(text)}:{zlib.crc32(text.encode('utf-8')):08x}"


def live_texts(conn: sqlite3.Connection) -> dict[str, str]:
    """The text each live item is embedded by: an observation's title and body, a fact's
    subtopic and text (passages: their words)."""
    texts = {
        observation_key(i): f"{title}: {body}" if body else title
        for i, title, body in conn.execute(
            "SELECT id, title, body FROM observations "
            "WHERE archived_at IS NULL AND superseded_by IS NULL"
        )
    }
    for row_id, planet, text, kind in conn.execute(
        "SELECT id, planet, text, kind FROM facts WHERE superseded_by IS NULL"
    ):
        texts[fact_row_key(row_id)] = text if kind == PASSAGE or not planet else f"{planet}: {text}"
    return texts


def embed_pending(store: ObservationStore, model: str, encode: Encoder) -> int:
    """Compute the vectors of live items that lack one for model (or whose text changed since),
    drop those of items no longer live; returns how many were computed."""
    texts, known = store.read(
        lambda c: (
            live_texts(c),
            dict(c.execute("SELECT item, digest FROM vectors WHERE model = ?", (model,))),
        )
    )
    wanted = {key: _digest(text) for key, text in texts.items()}
    pending = [key for key, digest in wanted.items() if known.get(key) != digest]
    gone = [key for key in known if key not in wanted]
    for start in range(0, len(pending), BATCH):
        keys = pending[start : start + BATCH]
        vectors = encode([texts[k] for k in keys])
        _save(store, [(k, model, wanted[k], v) for k, v in zip(keys, vectors, strict=True)])
    if gone:
        store.write(
            lambda c: c.executemany(
                "DELETE FROM vectors WHERE model = ? AND item = ?", [(model, k) for k in gone]
            )
        )
    return len(pending)


def _save(store: ObservationStore, rows: list[tuple[str, str, str, bytes]]) -> None:
    store.write(
        lambda c: c.executemany(
            "INSERT OR REPLACE INTO vectors (item, model, digest, vec) VALUES (?, ?, ?, ?)", rows
        )
    )


def stored_vectors(store: ObservationStore, model: str) -> tuple[list[str], list[bytes]]:
    """Every stored vector of model: the item keys and their bytes, in one order."""
    rows = store.read(
        lambda c: c.execute("SELECT item, vec FROM vectors WHERE model = ?", (model,)).fetchall()
    )
    return [r[0] for r in rows], [bytes(r[1]) for r in rows]


def clear_vectors(conn: sqlite3.Connection) -> None:
    """Forget every vector (`cms reindex` computes them again)."""
    conn.execute("DELETE FROM vectors")
