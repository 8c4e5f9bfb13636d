"""The semantic index in the project store: one vector per live item and model (with a digest
of the text it was computed from), the item keys, and how a cosine fuses with a lexical score.

Owns the `vectors` table (migration 011). Stores vectors as opaque bytes: it never computes
one and imports nothing outside the standard library.
"""

from __future__ import annotations

import heapq
import zlib

from cms.observations.facts import PASSAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Container, Mapping, Sequence

    from cms.observations.store import ObservationStore

    Encoder = Callable[[Sequence[str]], Sequence[bytes]]

BATCH = 256  # texts encoded per call


def observation_key(observation_id: int) -> str:
    return f"O{observation_id}"


def fact_row_key(row_id: int) -> str:
    return f"F{row_id}"


def key_number(key: str, prefix: str) -> int | None:
    """The number of an item key of that prefix ("O12" -> 12); None for any other key."""
    digits = key[1:] if key[:1] == prefix else ""
    return int(digits) if digits.isdigit() else None


def fused_score(lexical: float, best: float, cosine: float, weight: float) -> float:
    """A lexical score (normalised by the best of the query) fused with the cosine: in 0..1."""
    return (lexical / (best or 1.0) + weight * max(0.0, cosine)) / (1 + weight)


def nearest(
    similarities: Mapping[str, float], count: int, prefix: str, skip: Container[str]
) -> list[tuple[float, str]]:
    """The count items of that prefix ("" for any) most similar to the query, not in skip."""
    return heapq.nlargest(
        count,
        ((cos, key) for key, cos in similarities.items()
         if key.startswith(prefix) and key not in skip),
    )  # fmt: skip


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


def embed_pending(store: ObservationStore, model: str, encode: Encoder) -> list[str]:
    """Compute the vectors of live items that lack one for model (or whose text changed since),
    drop those of items no longer live and of other models; returns the keys computed."""
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
    store.write(lambda c: c.execute("DELETE FROM vectors WHERE model != ?", (model,)))
    if gone:
        store.write(
            lambda c: c.executemany(
                "DELETE FROM vectors WHERE model = ? AND item = ?", [(model, k) for k in gone]
            )
        )
    return pending


def _save(store: ObservationStore, rows: list[tuple[str, str, str, bytes]]) -> None:
    store.write(
        lambda c: c.executemany(
            "INSERT OR REPLACE INTO vectors (item, model, digest, vec) VALUES (?, ?, ?, ?)", rows
        )
    )


def has_vectors(store: ObservationStore, model: str) -> bool:
    """Whether the project holds any vector of model (else the next indexing is its first)."""
    return (
        store.read(
            lambda c: c.execute(
                "SELECT 1 FROM vectors WHERE model = ? LIMIT 1", (model,)
            ).fetchone()
        )
        is not None
    )


def passage_keys(store: ObservationStore) -> set[str]:
    """The item keys of the chats' passages (their own words, not extracted facts)."""
    rows = store.read(
        lambda c: c.execute("SELECT id FROM facts WHERE kind = ?", (PASSAGE,)).fetchall()
    )
    return {fact_row_key(r[0]) for r in rows}


def stored_vectors(store: ObservationStore, model: str) -> tuple[list[str], list[bytes]]:
    """Every stored vector of model: the item keys and their bytes, in one order."""
    rows = store.read(
        lambda c: c.execute("SELECT item, vec FROM vectors WHERE model = ?", (model,)).fetchall()
    )
    rows = [r for r in rows if isinstance(r[0], str) and isinstance(r[1], bytes)]  # no odd rows
    return [r[0] for r in rows], [r[1] for r in rows]


def clear_vectors(conn: sqlite3.Connection) -> None:
    """Forget every vector (`cms reindex` computes them again)."""
    conn.execute("DELETE FROM vectors")
