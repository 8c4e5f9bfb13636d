"""Recall and fact search do bounded work however large the store: only the newest matches of
the rarest terms are ranked, and when every query term is common the rows holding most of them
are drawn first, newest first and ranked in Python (bm25() would read every posting of a common
term), so an old row that answers the whole query is still found."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from cms.observations import matching
from cms.observations.matching import conjunction, local_bm25, match_expressions, plan_matches
from cms.observations.model import NewObservation
from cms.observations.recall import recall
from cms.observations.scope import BranchScope
from cms.observations.store import ObservationStore

TERMS = ("postgres", "migration", "retry", "staging", "deploy")
NOW = 1_800_000_000.0


@pytest.fixture
def store(tmp_path: Path) -> ObservationStore:
    return ObservationStore(tmp_path / "o.db", "p")


def add(store: ObservationStore, title: str, body: str, created_at: float) -> int:
    return store.add(NewObservation("learning", title, body, (), 3), created_at=created_at)


def fill_with_partial_matches(store: ObservationStore, rounds: int) -> None:
    """Newer rows that each hold three of the five query terms (every term is common)."""
    combos = list(itertools.combinations(TERMS, 3))
    for n in range(rounds):
        words = combos[n % len(combos)]
        add(store, f"Note {n}", f"entry {n}: {' '.join(words)}", NOW - 1000 + n)


def test_an_old_row_holding_every_common_term_is_found_past_the_newest_matches_bound(
    store: ObservationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matching, "POSTINGS_BUDGET", 10)
    target = add(store, "Staging deploy", "postgres migration retry on staging deploy", NOW - 5000)
    fill_with_partial_matches(store, 60)
    hits = recall(store, " ".join(TERMS), scope=BranchScope.everywhere(), limit=3, now=NOW)
    assert hits[0].observation.id == target


def test_when_every_term_is_common_the_plan_draws_newest_first_without_bm25(
    store: ObservationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matching, "POSTINGS_BUDGET", 10)
    fill_with_partial_matches(store, 60)
    plan = plan_matches(store, list(TERMS))
    assert plan.newest_first and plan.rows == 60
    assert plan.expressions[0].count(" AND ") >= 1 and " OR " not in plan.expressions[0]
    assert " AND " not in plan.expressions[-1]  # then the rarest term(s) alone
    assert plan_matches(store, ["entry", "redis"]).newest_first  # "entry" is in every row
    monkeypatch.setattr(matching, "POSTINGS_BUDGET", 1000)
    assert not plan_matches(store, list(TERMS)).newest_first  # fits the budget: bm25 ranks


def test_the_local_bm25_prefers_more_occurrences_shorter_texts_and_rarer_terms(
    store: ObservationStore,
) -> None:
    fill_with_partial_matches(store, 30)
    plan = plan_matches(store, ["postgres", "retry"])
    plan.frequency.update(postgres=20, retry=2)
    plan.rows = 100
    texts = ["postgres", "postgres postgres", "postgres and many other words here", "retry"]
    counts = [[1, 0], [2, 0], [1, 0], [0, 1]]
    once, twice, longer, rare = local_bm25(texts, counts, None, ["postgres", "retry"], plan)
    assert twice < once < longer < 0  # negative, lower is better, as FTS5's bm25()
    assert rare < once  # the rarer term weighs more
    with_context = local_bm25(texts[:1], [[1, 0]], [[0, 1]], ["postgres", "retry"], plan)
    assert with_context[0] < once  # a term around the text counts too, at CONTEXT_CREDIT


def test_without_a_bound_problem_the_or_of_the_rarest_terms_alone_is_matched(
    store: ObservationStore,
) -> None:
    add(store, "Cache", "the cache uses redis", NOW - 10)
    fill_with_partial_matches(store, 12)
    expressions = match_expressions(store, ["redis", "deploy"])
    assert expressions == ['"redis" OR "deploy"']


def test_the_conjunction_adds_the_rarest_terms_until_their_expected_rows_fit_the_budget() -> None:
    frequency = {"a": 500, "b": 2000, "c": 5000, "d": 9000, "e": 0}
    # 10,000 rows: a alone leaves 500, a and b 100, then c 50 (fits 60)
    assert conjunction(["d", "c", "b", "a", "e"], frequency, 10_000, 60) == ["c", "b", "a"]
    assert conjunction(["d", "a"], frequency, 10_000, 10_000) == ["d", "a"]  # at least two


def test_term_counts_come_from_the_snapshot_taken_when_the_store_grew(
    store: ObservationStore,
) -> None:
    from cms.observations.matching import frequencies_in, refresh_term_counts

    fill_with_partial_matches(store, 40)

    def counts() -> dict[str, int]:
        return store.read(lambda c: frequencies_in(c, ["deploy", "redis"]))

    live = counts()
    assert live["deploy"] > 0 and live["redis"] == 0
    assert store.write(lambda c: refresh_term_counts(c, "observations_vocab", "observations"))
    store.write(lambda c: c.execute("UPDATE term_counts SET doc = 7 WHERE term = 'deploi'"))
    assert counts()["deploy"] == 7  # read from the snapshot, not the postings
    add(store, "Cache", "the cache uses redis", NOW)  # absent at the snapshot: counted live
    assert counts()["redis"] == 1
    assert not store.write(lambda c: refresh_term_counts(c, "observations_vocab", "observations"))
    fill_with_partial_matches(store, 3)  # past REFRESH_GROWTH of new rows
    assert store.write(lambda c: refresh_term_counts(c, "observations_vocab", "observations"))
    assert counts()["deploy"] == live["deploy"] + 1  # one of the three new rows says deploy


def test_a_writer_merges_the_segments_that_pile_up_and_recall_finds_the_same(
    store: ObservationStore,
) -> None:
    """Each write transaction adds an FTS5 segment, which every term lookup then reads:
    tidy_text_indexes merges them once more than SEGMENTS_MAX pile up; results do not change."""
    from cms.observations.matching import SEGMENTS_MAX, merge_segments, tidy_text_indexes

    def segments() -> int:
        sql = "SELECT count(DISTINCT segid) FROM observations_fts_idx"
        return int(store.read(lambda c: c.execute(sql).fetchone()[0]))

    fill_with_partial_matches(store, 12)  # one transaction each
    assert segments() > SEGMENTS_MAX
    scope = BranchScope(None, None, None)
    before = recall(store, "postgres deploy", scope=scope, limit=5, touch=False, now=NOW)
    assert before
    store.write(tidy_text_indexes)
    assert segments() <= SEGMENTS_MAX
    after = recall(store, "postgres deploy", scope=scope, limit=5, touch=False, now=NOW)
    assert [r.observation.id for r in after] == [r.observation.id for r in before]
    assert not store.write(lambda c: merge_segments(c, "observations_fts"))  # nothing to merge
