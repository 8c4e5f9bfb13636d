"""Summaries of stale observations (`cms gc` with a model), the store's side: which stale ones
share a subject, and a summary stored with links both ways while its originals are archived,
never deleted."""

from __future__ import annotations

from pathlib import Path

from cms.observations.items import item_records
from cms.observations.model import NewObservation, Observation
from cms.observations.store import ObservationStore
from cms.observations.summaries import (
    MAX_GROUP,
    store_summary,
    summarised_originals,
    summary_candidate,
    summary_groups,
)
from cms.observations.upkeep import stale_observations

NOW = 400 * 86400.0


def stale(store: ObservationStore) -> list[Observation]:
    return stale_observations(store, now=NOW, stale_after_days=90, max_importance=2)


def add(
    store: ObservationStore,
    kind: str,
    title: str,
    body: str = "",
    files: tuple[str, ...] = (),
    *,
    branch: str | None = None,
    importance: int = 1,
) -> int:
    created = float(len(store.list_observations(include_archived=True)) + 1)
    return store.add(
        NewObservation(kind, title, body, files, importance), branch=branch, created_at=created
    )


def release_notes(store: ObservationStore) -> list[int]:
    return [
        add(store, "learning", "Release tagging", "Tags are vX.Y.Z on main.", ("RELEASING.md",)),
        add(store, "learning", "Changelog tool", "git-cliff writes it.", ("RELEASING.md",)),
        add(store, "learning", "Artifact signing", "cosign signs wheels.", ("RELEASING.md",)),
    ]


def group_ids(store: ObservationStore) -> list[list[int]]:
    return [g.ids for g in summary_groups(stale(store))]


def test_stale_ones_sharing_a_file_or_most_title_words_form_one_group(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    release = release_notes(store)
    flaky = [
        add(store, "bugfix", "Flaky tests in CI", "Retry the upload step."),
        add(store, "bugfix", "CI: flaky upload test", "The S3 mock needs a region."),
    ]
    add(store, "bugfix", "Storage: database", "SQLite in WAL mode.")
    add(store, "bugfix", "Storage: maps", "One JSON file per chat.")  # one word of two: apart
    assert group_ids(store) == [release, flaky]


def test_other_kinds_branches_and_important_ones_are_never_grouped(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    add(store, "learning", "Release tagging", "Tags are vX.Y.Z.", ("RELEASING.md",))
    add(store, "bugfix", "Release signing", "cosign broke.", ("RELEASING.md",))
    add(store, "learning", "Release tags", "On main.", ("RELEASING.md",), branch="feature")
    add(store, "learning", "Release notes", "By hand.", ("RELEASING.md",), importance=4)
    assert group_ids(store) == []


def test_a_group_never_grows_past_its_bound(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    ids = [
        add(store, "other", f"Note {n}", f"Detail {n}.", ("notes.md",))
        for n in range(MAX_GROUP + 3)
    ]
    groups = group_ids(store)
    assert sorted(i for g in groups for i in g) == ids
    assert [len(g) for g in groups] == [MAX_GROUP, 3]
    assert group_ids(store) == groups  # the same input, the same groups


def test_a_summary_is_stored_with_links_both_ways_and_the_originals_archived(
    tmp_path: Path,
) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    release = release_notes(store)
    store.mark_recalled([release[0]], now=10.0)  # used once, long ago
    (group,) = summary_groups(stale(store))
    summary = summary_candidate(group, "Release process", "Tags vX.Y.Z, git-cliff, cosign.")
    summary_id = store_summary(store, group, summary, now=NOW)
    assert summary_id is not None
    kept = store.get(summary_id)
    assert kept is not None and kept.archived_at is None and kept.superseded_by is None
    assert (kept.kind, kept.files, kept.importance, kept.use_count) == (
        "learning",
        ("RELEASING.md",),
        1,
        1,
    )
    assert "Release tagging" in kept.context  # findable by the originals' titles
    assert [o.id for o in summarised_originals(store, summary_id)] == release
    everything = store.list_observations(include_archived=True, include_superseded=True)
    assert len(everything) == 4  # nothing deleted
    for original in (o for o in everything if o.id in release):
        assert (original.archived_at, original.summarised_into) == (NOW, summary_id)
    assert stale(store) == []  # the summary is fresh, the originals archived


def test_a_group_that_changed_since_the_plan_is_left_as_it_was(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    release = release_notes(store)
    (group,) = summary_groups(stale(store))
    store.mark_recalled([release[1]], now=NOW)  # recalled while the model was writing
    summary = summary_candidate(group, "Release process", "Tags, git-cliff, cosign.")
    assert store_summary(store, group, summary, now=NOW) is None
    assert [o.id for o in store.list_observations()] == release


def test_get_shows_the_summary_and_its_originals_linked_both_ways(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    release = release_notes(store)
    (group,) = summary_groups(stale(store))
    summary_id = store_summary(
        store, group, summary_candidate(group, "Release process", "Tags, cliff."), now=NOW
    )
    summary, original = item_records(store, [f"O{summary_id}", f"O{release[0]}"])
    assert summary["state"] == "in force" and summary["summarised_into"] is None
    assert [o["id"] for o in summary["summary_of"]] == [f"O{i}" for i in release]
    assert summary["summary_of"][0]["text"] == "Release tagging \u2014 Tags are vX.Y.Z on main."
    assert original["state"] == f"archived, summarised into O{summary_id}"
    assert original["summarised_into"] == f"O{summary_id}" and original["summary_of"] == []


def test_forgetting_a_summary_brings_its_originals_back(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    release = release_notes(store)
    (group,) = summary_groups(stale(store))
    summary_id = store_summary(
        store, group, summary_candidate(group, "Release process", "Tags, cliff."), now=NOW
    )
    assert summary_id is not None
    assert store.forget(ids=[summary_id]) == 1
    back = store.list_observations()
    assert [o.id for o in back] == release
    assert all(o.summarised_into is None for o in back)


def test_the_summary_text_is_redacted_before_it_is_stored(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    release_notes(store)
    (group,) = summary_groups(stale(store))
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    summary_id = store_summary(
        store, group, summary_candidate(group, "Release", f"Push with {secret}."), now=NOW
    )
    assert summary_id is not None
    kept = store.get(summary_id)
    assert kept is not None and secret not in kept.body


def test_forgetting_the_gc_session_undoes_every_summary(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    release = release_notes(store)
    flaky = [
        add(store, "bugfix", "Flaky tests in CI", "Retry the upload step."),
        add(store, "bugfix", "CI: flaky upload test", "The S3 mock needs a region."),
    ]
    for group in summary_groups(stale(store)):
        summary = summary_candidate(group, "Summary", "Short.")
        assert store_summary(store, group, summary, now=NOW) is not None
    assert len(store.list_observations()) == 2
    assert store.forget(session="gc") == 2
    assert [o.id for o in store.list_observations()] == release + flaky
