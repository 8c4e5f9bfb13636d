"""Each item's meaning is stored once when it is written, and again only when its text
changes."""

from __future__ import annotations

from pathlib import Path

from cms.language.meaning import load_model, pack, unpack
from cms.observations.factsync import index_passages
from cms.observations.meanings import give_meanings, pending, stored_meanings
from cms.observations.model import NewObservation
from cms.observations.store import ObservationStore


def encode(texts: list[str] | tuple[str, ...]) -> list[bytes]:
    model = load_model()
    return [pack(model.encode(t)) for t in texts]


def test_new_items_get_a_meaning_once_and_a_changed_text_gets_a_new_one(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "observations.db", "p")
    obs_id = store.add(NewObservation("decision", "Staging database", "Port 6543 behind pgbouncer"))
    store.write(lambda c: index_passages(c, "chat-1", 1, [("user", "We use port 5433.")], now=1.0))
    assert len(pending(store)) == 2
    assert give_meanings(store, encode) == 2
    assert pending(store) == [] and give_meanings(store, encode) == 0

    facts, observations = stored_meanings(store, [1], [obs_id])
    assert set(observations) == {obs_id} and len(facts) == 1
    vector = unpack(observations[obs_id])
    assert abs(sum(x * x for x in vector) - 1.0) < 0.01  # a unit vector, float16

    store.write(lambda c: c.execute("UPDATE observations SET body = 'Port 6544' WHERE id = ?",
                                    (obs_id,)))  # fmt: skip
    assert [(table, n) for table, n, _ in pending(store)] == [("O", obs_id)]
    store.close()
