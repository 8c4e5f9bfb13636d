"""Which order the search command prints its results in: the k in force newest first (those
about as relevant as the best before the others), each history line still under its newer hit."""

from __future__ import annotations

from cms.search.lines import said_last_first
from cms.search.project import MemoryHit


def hit(row: int, text: str, at: float, relevance: float, replaced_by: str = "") -> MemoryHit:
    return MemoryHit(
        id=f"c/F{row}", label="DB > Port", text=text, chat="c", updated_at=at,
        relevance=relevance, vector=f"F{row}", replaced_by=replaced_by,
    )  # fmt: skip


def test_a_newer_statement_worded_unlike_the_older_is_printed_above_it() -> None:
    old = hit(1, "The staging instance listens on 5433.", at=100.0, relevance=0.9)
    new = hit(2, "ops moved staging postgres behind pgbouncer, it's on 6543 now", 400.0, 0.6)
    assert [h.id for h in said_last_first([old, new])] == ["c/F2", "c/F1"]


def test_history_lines_stay_under_their_hit_and_weak_hits_come_last() -> None:
    current = hit(3, "Staging runs on port 6543.", at=300.0, relevance=1.0)
    history = hit(1, "Staging runs on port 5433.", at=100.0, relevance=0.9, replaced_by="c/F3")
    weak_new = hit(5, "Fixed the effect.", at=500.0, relevance=0.2)
    older = hit(2, "The staging DB is Postgres 16.", at=200.0, relevance=0.7)
    ordered = said_last_first([current, history, older, weak_new])
    assert [h.id for h in ordered] == ["c/F3", "c/F1", "c/F2", "c/F5"]
