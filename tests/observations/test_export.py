"""Markdown and JSON export, and importing them (or a hand-written memory file) back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cms.errors import StoreError
from cms.observations.export import (
    export_json,
    export_markdown,
    exported_observations,
    import_records,
    parse_export,
)
from cms.observations.model import NewObservation, Observation
from cms.observations.store import ObservationStore
from cms.observations.upkeep import archive_stale

FIELDS = ("kind", "title", "body", "files", "importance", "branch", "commit", "session", "agent")


def seeded(path: Path) -> ObservationStore:
    store = ObservationStore(path, "proj")
    store.add(
        NewObservation(
            "decision",
            "Use pnpm workspaces",
            "npm hoisting broke types.\n# not a heading\n\\ backslash",
            ("package.json", "pnpm-workspace.yaml"),
            4,
        ),
        branch="main",
        commit="a" * 40,
        session="s1",
        agent="claude",
        created_at=1_700_000_000.0,
    )
    store.add(
        NewObservation("command", "Run tests", "pytest -q", (), 2),
        branch="feat",
        created_at=1_700_000_100.0,
    )
    store.add(
        NewObservation("other", "Old trivia", "Files: `x` looks like a files line", (), 1),
        created_at=1_600_000_000.0,
    )
    archive_stale(store, now=1_700_000_200.0, stale_after_days=30, max_importance=1)
    return store


def same(a: list[Observation], b: list[Observation]) -> None:
    a, b = sorted(a, key=lambda o: o.created_at), sorted(b, key=lambda o: o.created_at)
    assert [tuple(getattr(o, f) for f in FIELDS) for o in a] == [
        tuple(getattr(o, f) for f in FIELDS) for o in b
    ]
    assert [(o.created_at, o.archived_at is None) for o in a] == [
        (o.created_at, o.archived_at is None) for o in b
    ]


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_an_export_imports_back_exactly_and_a_second_import_adds_nothing(
    tmp_path: Path, fmt: str
) -> None:
    source = seeded(tmp_path / "a.db")
    observations = exported_observations(source)
    assert len(observations) == 3
    text = (export_markdown if fmt == "md" else export_json)("proj", observations)
    target = ObservationStore(tmp_path / "b.db", "other")
    report = import_records(target, parse_export(text))
    assert (report.added, report.duplicates) == (3, 0)
    same(exported_observations(target), observations)
    again = import_records(target, parse_export(text))
    assert (again.added, again.duplicates) == (0, 3)
    assert len(target.list_observations(include_archived=True, include_superseded=True)) == 3


def test_markdown_export_reads_like_a_memory_file(tmp_path: Path) -> None:
    text = export_markdown("proj", exported_observations(seeded(tmp_path / "a.db")))
    assert text.startswith("# Project memory: proj\n")
    assert "## Decisions\n\n### Use pnpm workspaces\n<!-- cms: {" in text
    assert "\\# not a heading" in text
    assert "Files: `package.json`, `pnpm-workspace.yaml`" in text
    assert text.index("## Decisions") < text.index("## Commands") < text.index("## Other")


def test_an_import_older_than_what_is_stored_does_not_replace_it(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    newer = store.add(
        NewObservation("decision", "Database", "postgres"), created_at=2_000_000_000.0
    )
    record = {
        "kind": "decision",
        "title": "Database",
        "body": "sqlite",
        "created_at": "2020-01-01T00:00:00Z",
    }
    report = import_records(store, [record])
    assert report.older == 1
    assert [o.id for o in store.list_observations(include_superseded=True)] == [newer]


def test_a_hand_written_memory_file_imports(tmp_path: Path) -> None:
    text = """# Memory

## Preferences
- **Short answers** — the user wants terse replies
- Tabs: never, use four spaces

## Bug fixes

### Flaky CI on Mondays
The cron job overlapped the nightly backup.
"""
    store = ObservationStore(tmp_path / "o.db", "p")
    report = import_records(store, parse_export(text))
    assert report.added == 3
    got = {(o.kind, o.title, o.body) for o in store.list_observations()}
    assert got == {
        ("preference", "Short answers", "the user wants terse replies"),
        ("preference", "Tabs", "never, use four spaces"),
        ("bugfix", "Flaky CI on Mondays", "The cron job overlapped the nightly backup."),
    }


def test_imported_secrets_are_redacted(tmp_path: Path) -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    doc = {
        "format": "cms-observations",
        "version": 1,
        "observations": [{"kind": "other", "title": "token", "body": f"use {secret}"}],
    }
    store = ObservationStore(tmp_path / "o.db", "p")
    import_records(store, parse_export(json.dumps(doc)))
    assert secret not in store.list_observations()[0].body


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "other"}', "not a cms-observations"),
        ('{"format": "cms-observations", "version": 99, "observations": []}', "newer"),
        ('{"format": "cms-observations", "version": 1, "observations": {}}', "list of objects"),
    ],
)
def test_bad_exports_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        parse_export(text)


def test_a_bad_time_in_an_import_is_a_store_error(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    with pytest.raises(StoreError, match="ISO 8601"):
        import_records(store, [{"kind": "other", "title": "t", "created_at": "yesterday"}])
