"""Upkeep (`cms gc`): near-duplicates of one subject fold into the newest with history kept,
stale low-importance observations are archived; nothing is deleted, a plan changes nothing."""

from __future__ import annotations

from pathlib import Path

from cms.observations.model import NewObservation
from cms.observations.store import ObservationStore
from cms.observations.upkeep import (
    apply_folds,
    archive_observations,
    fold_plan,
    stale_observations,
)

FLYWAY = "We run the database migration with 'flyway'."
ALEMBIC = "From now on we run the database migration with 'alembic'."


def live_ids(store: ObservationStore) -> list[int]:
    return [o.id for o in store.list_observations(include_archived=False)]


def test_restatements_and_changes_of_one_subject_fold_into_the_newest(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    first = store.add(NewObservation("decision", "Migrations", FLYWAY, importance=5), created_at=1)
    again = store.add(NewObservation("decision", "Schema", FLYWAY, importance=2), created_at=2)
    newest = store.add(NewObservation("decision", "Tooling", ALEMBIC, importance=3), created_at=3)
    other = store.add(NewObservation("decision", "Deploys", "We deploy with 'helm'."), created_at=4)
    folds = fold_plan(store)
    assert sorted((f.older.id, f.newer.id) for f in folds) == [(first, newest), (again, newest)]
    assert len(live_ids(store)) == 4  # a plan changes nothing
    assert apply_folds(store, folds) == 2
    assert live_ids(store) == [newest, other]
    history = store.list_observations(include_archived=True, include_superseded=True)
    assert {o.id: o.superseded_by for o in history}[first] == newest
    assert fold_plan(store) == []


def test_a_restatement_keeps_the_higher_importance(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    store.add(NewObservation("decision", "Migrations", FLYWAY, importance=5), created_at=1)
    newer = store.add(NewObservation("decision", "Schema", FLYWAY, importance=2), created_at=2)
    apply_folds(store, fold_plan(store))
    (kept,) = store.list_observations(include_archived=False)
    assert (kept.id, kept.importance) == (newer, 5)


def test_other_kinds_branches_and_source_facts_never_fold(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    store.add(NewObservation("decision", "Migrations", FLYWAY), branch="main", created_at=1)
    store.add(NewObservation("decision", "Migrations", ALEMBIC), branch="feature", created_at=2)
    store.add(NewObservation("learning", "Migrations", ALEMBIC), branch="main", created_at=3)
    store.add(
        NewObservation("decision", "Tooling", ALEMBIC, source="chat-a/F3"),
        branch="main",
        created_at=4,
    )
    assert fold_plan(store) == []


def test_stale_low_importance_ones_are_archived_not_deleted(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    trivia = store.add(NewObservation("other", "trivia", "", importance=1), created_at=0)
    store.add(NewObservation("decision", "vital", "", importance=5), created_at=0)
    now = 400 * 86400.0
    stale = stale_observations(store, now=now, stale_after_days=90, max_importance=2)
    assert [o.id for o in stale] == [trivia]
    assert archive_observations(store, [trivia], now) == 1
    assert len(store.list_observations(include_archived=True)) == 2
