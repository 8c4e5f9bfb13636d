"""The semantic index in the project store: one vector per live item and model (with a digest
of the text it was computed from), the item keys, the text an item is embedded by, and how the
semantic score of a query (cosine and meaning coverage) fuses with a lexical score.

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
# The version of the text items are embedded by (embedded_text): part of the index's name, so
# a change re-embeds every item as a first indexing would (no supersession checks on old items).
TEXT_VERSION = 2


def observation_key(observation_id: int) -> str:
    return f"O{observation_id}"


def fact_row_key(row_id: int) -> str:
    return f"F{row_id}"


def key_number(key: str, prefix: str) -> int | None:
    """The number of an item key of that prefix ("O12" -> 12); None for any other key."""
    digits = key[1:] if key[:1] == prefix else ""
    return int(digits) if digits.isdigit() else None


def index_name(model_id: str) -> str:
    """The name the project's vectors of a model are stored under (model and TEXT_VERSION)."""
    return f"{model_id}:t{TEXT_VERSION}"


def fused_score(lexical: float, best: float, semantic: float, weight: float) -> float:
    """A lexical score (normalised by the best of the query) fused with a semantic score
    (QueryMeaning.scores): in 0..1."""
    return (lexical / (best or 1.0) + weight * max(0.0, semantic)) / (1 + weight)


class QueryMeaning:
    """What the semantic index says of one query: its cosine with every stored item (by key),
    and how far the words of given texts cover the query's words by meaning (coverage: per
    (text, context) pair, 0..1, see Embedder.coverage)."""

    def __init__(
        self,
        cosines: Mapping[str, float],
        coverage: Callable[[Sequence[tuple[str, str]]], list[float]],
    ) -> None:
        self.cosines = cosines
        self.coverage = coverage

    def __bool__(self) -> bool:
        return bool(self.cosines)

    def scores(self, keys: Sequence[str], texts: Sequence[tuple[str, str]]) -> list[float]:
        """Per item (its key, and its text and context): the mean of its cosine with the query
        and the query's coverage by its words. Two views of meaning, each weak alone with a
        static model: the whole text's direction, and each query word's nearest word in it."""
        covered = self.coverage(texts) if texts else []
        return [
            (max(0.0, self.cosines.get(key, 0.0)) + cover) / 2
            for key, cover in zip(keys, covered, strict=True)
        ]


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


def own_text(title: str, body: str) -> str:
    """An observation's own words as the semantic index reads them: its title and body."""
    return f"{title}: {body}" if body else title


def embedded_text(text: str, context: str) -> str:
    """The text an item is embedded by: its own text after the words around it (an
    observation's context: the turn before, sibling facts), the context cut to as many words as
    the item's own so that the item's words weigh at least half of its vector."""
    words = context.split()[: len(text.split())]
    return f"{' '.join(words)}\n{text}" if words else text


def live_texts(conn: sqlite3.Connection) -> dict[str, str]:
    """The text each live item is embedded by: an observation's title and body with its context
    (embedded_text), a fact's subtopic and text (passages: their words)."""
    texts = {
        observation_key(i): embedded_text(own_text(title, body), context or "")
        for i, title, body, context in conn.execute(
            "SELECT id, title, body, context FROM observations "
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
