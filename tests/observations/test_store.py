"""The SQLite store: migrations, WAL, FTS5 kept in sync, busy handling, forget and gc."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cms.errors import StoreError
from cms.observations.migrations import MIGRATIONS, SCHEMA_VERSION, split_statements
from cms.observations.model import NewObservation
from cms.observations.store import ObservationStore
from cms.observations.upkeep import archive_stale


def fts_ids(store: ObservationStore, expr: str) -> list[int]:
    return store.read(
        lambda c: [
            r[0]
            for r in c.execute(
                "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? ORDER BY rowid",
                (expr,),
            )
        ]
    )


def test_a_new_store_runs_every_named_migration_once_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "p" / "observations.db"
    ObservationStore(path, "p").close()
    ObservationStore(path, "p").close()
    conn = sqlite3.connect(path)
    names = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY rowid")]
    assert names == [name for name, _sql in MIGRATIONS]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_a_store_missing_a_later_migration_gets_only_that_one(tmp_path: Path) -> None:
    path = tmp_path / "observations.db"
    ObservationStore(path, "p").close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE observations_vocab")
    conn.execute("DELETE FROM migrations WHERE name = ?", ("003_observations_vocab",))
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
    with ObservationStore(path, "p") as store:
        store.add(NewObservation("learning", "kept across the upgrade"))
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM migrations")] == [n for n, _ in MIGRATIONS]
    assert conn.execute("SELECT COUNT(*) FROM observations_vocab").fetchone()[0] > 0
    conn.close()


def test_trigger_bodies_stay_whole_when_a_migration_is_split() -> None:
    statements = split_statements(MIGRATIONS[1][1])
    assert len(statements) == 4
    assert all(s.startswith("CREATE") for s in statements)
    assert statements[3].rstrip(";").rstrip().endswith("END")


def test_a_store_from_a_newer_cms_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "observations.db"
    ObservationStore(path, "p").close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this cms"):
        ObservationStore(path, "p")


def test_a_file_that_is_not_a_database_raises_store_error(tmp_path: Path) -> None:
    path = tmp_path / "observations.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="observation store"):
        ObservationStore(path, "p")


def test_full_text_index_follows_inserts_updates_and_deletes(tmp_path: Path) -> None:
    with ObservationStore(tmp_path / "o.db", "p") as store:
        first = store.add(NewObservation("bugfix", "Refresh loop", "token expiry in seconds"))
        store.add(
            NewObservation("decision", "Package manager", "pnpm workspaces", ("package.json",))
        )
        assert fts_ids(store, '"expiry"') == [first]
        assert fts_ids(store, '"package"') == [first + 1]  # the files column is indexed
        assert fts_ids(store, '"running"') == fts_ids(store, '"run"')  # porter stemming
        store.write(
            lambda c: c.execute(
                "UPDATE observations SET body = 'milliseconds were the bug' WHERE id = ?", (first,)
            )
        )
        assert fts_ids(store, '"expiry"') == []
        assert fts_ids(store, '"milliseconds"') == [first]
        store.mark_recalled([first], time.time())  # bookkeeping does not touch the index
        assert fts_ids(store, '"milliseconds"') == [first]
        assert store.forget(ids=[first]) == 1
        assert fts_ids(store, '"milliseconds"') == []


def test_a_write_waits_for_another_process_holding_the_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    holder = (
        "import sqlite3, sys, time\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "print('locked', flush=True)\n"
        "time.sleep(1.0)\n"
        "c.execute('ROLLBACK')\n"
    )
    with ObservationStore(path, "p") as store:
        proc = subprocess.Popen(
            [sys.executable, "-c", holder, str(path)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        new_id = store.add(NewObservation("other", "written after the lock is gone"))
        assert proc.wait(timeout=30) == 0
        assert store.get(new_id) is not None


def test_a_lock_held_past_the_patience_becomes_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    with ObservationStore(path, "p", busy_timeout=0.1, patience=0.3) as store:
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match="write failed"):
            store.add(NewObservation("other", "cannot be written"))
        assert store.mark_recalled([1], time.time(), patience=0.1) is False
        blocker.execute("ROLLBACK")
        blocker.close()


def test_forgetting_a_newer_observation_brings_back_the_one_it_superseded(tmp_path: Path) -> None:
    with ObservationStore(tmp_path / "o.db", "p") as store:
        old = store.add(NewObservation("decision", "Database", "sqlite"), branch="main")
        new = store.add(NewObservation("decision", "Database", "postgres"), branch="main")
        store.write(
            lambda c: c.execute(
                "UPDATE observations SET superseded_by = ? WHERE id = ?", (new, old)
            )
        )
        assert [o.id for o in store.list_observations()] == [new]
        assert store.forget(ids=[new]) == 1
        assert [o.id for o in store.list_observations()] == [old]


def test_forget_by_session_and_by_branch_only_touch_their_rows(tmp_path: Path) -> None:
    with ObservationStore(tmp_path / "o.db", "p") as store:
        a = store.add(NewObservation("other", "a"), branch="x", session="s1")
        b = store.add(NewObservation("other", "b"), branch="y", session="s1")
        c = store.add(NewObservation("other", "c"), branch="x", session="s2")
        assert store.forget(session="s2") == 1
        assert [o.id for o in store.list_observations()] == [a, b]
        assert store.forget(branch="x") == 1
        assert [o.id for o in store.list_observations()] == [b]
        assert store.get(c) is None


def test_gc_archives_only_old_unrecalled_low_importance_observations(tmp_path: Path) -> None:
    now = time.time()
    day = 86400.0
    with ObservationStore(tmp_path / "o.db", "p") as store:
        stale = store.add(
            NewObservation("other", "stale", importance=2), created_at=now - 100 * day
        )
        important = store.add(
            NewObservation("other", "kept", importance=4), created_at=now - 100 * day
        )
        recalled = store.add(
            NewObservation("other", "recalled", importance=1), created_at=now - 100 * day
        )
        fresh = store.add(NewObservation("other", "fresh", importance=1), created_at=now - 5 * day)
        store.mark_recalled([recalled], now - 10 * day)
        assert archive_stale(store, now=now, stale_after_days=90, max_importance=2) == 1
        assert store.get(stale).archived_at == now  # type: ignore[union-attr]
        assert {o.id for o in store.list_observations()} == {important, recalled, fresh}
        assert len(store.list_observations(include_archived=True)) == 4  # nothing deleted
        assert archive_stale(store, now=now, stale_after_days=90, max_importance=2) == 0


def test_kind_and_importance_are_normalised_and_an_empty_title_is_refused(tmp_path: Path) -> None:
    with ObservationStore(tmp_path / "o.db", "p") as store:
        obs_id = store.add(NewObservation("File-Summary", "  spaced   title ", importance=9))
        obs = store.get(obs_id)
        assert obs is not None
        assert (obs.kind, obs.title, obs.importance) == ("file_summary", "spaced title", 5)
        other = store.get(store.add(NewObservation("nonsense", "x", importance=0)))
        assert other is not None and (other.kind, other.importance) == ("other", 1)
        with pytest.raises(StoreError, match="non-empty title"):
            store.add(NewObservation("other", "   "))


def test_stats_count_live_archived_and_superseded_by_kind_and_branch(tmp_path: Path) -> None:
    with ObservationStore(tmp_path / "o.db", "p") as store:
        store.add(NewObservation("decision", "a"), branch="main")
        store.add(NewObservation("bugfix", "b"))
        old = store.add(NewObservation("bugfix", "c", importance=1), created_at=1.0)
        archive_stale(store, now=time.time(), stale_after_days=1, max_importance=1)
        stats = store.stats()
        assert (stats["total"], stats["live"], stats["archived"]) == (3, 2, 1)
        assert stats["by_kind"] == {"decision": 1, "bugfix": 1}
        assert stats["by_branch"] == {"main": 1, "(no git)": 1}
        assert stats["bytes"] > 0 and stats["oldest"] == 1.0
        assert store.get(old) is not None


def test_a_store_from_before_contexts_keeps_its_rows_searchable_after_the_upgrade(
    tmp_path: Path,
) -> None:
    from cms.observations.recall import recall
    from cms.observations.scope import BranchScope

    path = tmp_path / "observations.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for name, sql in MIGRATIONS[:9]:
        for statement in split_statements(sql):
            conn.execute(statement)
        conn.execute("INSERT INTO migrations VALUES (?, 0)", (name,))
    conn.execute(
        "INSERT INTO observations (project, kind, title, title_key, body, created_at, updated_at)"
        " VALUES ('p', 'decision', 'Database', 'database', 'We use PostgreSQL 16', 1, 1)"
    )
    conn.execute("PRAGMA user_version = 9")
    conn.commit()
    conn.close()
    with ObservationStore(path, "p") as store:
        (hit,) = recall(store, "postgresql", scope=BranchScope.everywhere(), touch=False)
        assert hit.observation.body == "We use PostgreSQL 16" and hit.observation.context == ""
