"""Team sync under faults: the server down (hooks unaffected, nothing lost, caught up later),
a sync cut between the server's commit and the local one (nothing duplicated), a pull applied
twice, a server schema newer than this cms, and two machines superseding one item at once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import psycopg
import pytest

from cms.observations.access import open_project_memory
from cms.team import local
from cms.team.identity import machine_id, project_key
from cms.team.server import TeamServer
from tests.team.machines import Machine, origin_repository
from tests.team.pgserver import PostgresServer


def server_rows(url: str) -> list[tuple[str, bool, str | None]]:
    with psycopg.connect(url) as conn:
        found = conn.execute(
            "SELECT uid, deleted, superseded_by FROM cms_items WHERE sort <> 'branches' ORDER BY uid"
        )
        return [(str(u), bool(d), s) for u, d, s in found]


def test_with_the_server_down_hooks_answer_sync_fails_in_one_line_and_catches_up_later(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    url = postgres.new_database()
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, url)
    b = Machine(tmp_path / "b", origin, url)
    a.cms("remember", "--kind", "decision", "--title", "Staging runs behind pgbouncer on 6543")
    a.cms("team", "sync")
    postgres.stop()
    try:
        a.cms("remember", "--kind", "decision", "--title", "Releases are cut on Thursdays")
        failed = a.cms("team", "sync", check=False)
        assert failed.returncode == 1
        assert len(failed.stderr.strip().splitlines()) == 1 and "Traceback" not in failed.stderr
        assert "pw-" not in failed.stderr + failed.stdout
        status = a.cms("team", "status").stdout
        assert "pending: 1 item(s)" in status and "last error" in status
        assert "6543" in a.start("chat-a-down")  # the hook reads the local store only
    finally:
        postgres.start()
    a.cms("team", "sync")
    b.cms("team", "sync")
    start = b.start("chat-b-0001")
    assert "6543" in start and "Thursdays" in start
    assert "pending: 0 item(s)" in a.cms("team", "status").stdout


def test_a_push_repeated_after_a_cut_sync_and_a_pull_applied_twice_duplicate_nothing(
    tmp_path: Path, team_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    b = Machine(tmp_path / "b", origin, team_url)
    for n in range(5):
        a.cms("remember", "--kind", "decision", "--title", f"Service {n} listens on port 70{n}0")
    monkeypatch.setenv("CMS_HOME", a.env["CMS_HOME"])
    memory, key, machine = open_project_memory(a.repo), project_key(str(a.repo)), machine_id()
    assert memory is not None and key is not None
    with memory, TeamServer(team_url) as server:
        server.prepare()
        memory.store.write(lambda c: local.enable(c, machine, key))
        sent = memory.store.write(lambda c: local.collect(c, machine, 100))
        assert len(sent.items) == 5
        server.push(key, machine, sent.items)  # committed there; the local side never heard
    assert "pushed 5" in a.cms("team", "sync").stdout  # the same items again
    rows = server_rows(team_url)
    assert len(rows) == len({uid for uid, _, _ in rows}) == 5
    b.cms("team", "sync")
    titles = listed_titles(b)
    assert len(titles) == 5
    reset_cursor(b)
    assert "pulled 5" in b.cms("team", "sync").stdout
    assert listed_titles(b) == titles


def listed_titles(machine: Machine) -> list[str]:
    """The titles of a machine's live observations (`cms list --json` under its CMS_HOME)."""
    return sorted(str(item["title"]) for item in json.loads(machine.cms("list", "--json").stdout))


def reset_cursor(machine: Machine) -> None:
    stores = list((machine.folder / "cms-home" / "projects").glob("*/observations.db"))
    assert len(stores) == 1
    with sqlite3.connect(stores[0]) as conn:
        conn.execute("DELETE FROM team_state WHERE key = 'cursor'")


def test_a_server_with_a_newer_schema_is_named_and_left_alone(
    tmp_path: Path, team_url: str
) -> None:
    with TeamServer(team_url) as server:
        server.prepare()
    with psycopg.connect(team_url) as conn:
        conn.execute("INSERT INTO cms_team_migrations (name) VALUES ('999_from_the_future')")
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    a.cms("remember", "--kind", "decision", "--title", "Use ruff for linting")
    failed = a.cms("team", "sync", check=False)
    assert failed.returncode == 1
    assert "999_from_the_future" in failed.stderr and "upgrade cms" in failed.stderr
    assert "never synced" in a.cms("team", "status").stdout


def test_two_machines_superseding_one_item_at_once_end_alike(tmp_path: Path, team_url: str) -> None:
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    b = Machine(tmp_path / "b", origin, team_url)
    a.cms("remember", "--kind", "decision", "--title", "The cache TTL is 60 seconds")
    a.cms("team", "sync")
    b.cms("team", "sync")
    old = [line for line in b.cms("list").stdout.splitlines() if "TTL" in line]
    assert len(old) == 1
    old_id = old[0].split()[0]
    a.cms("edit", a_id(a, "TTL is 60"), "--title", "The cache TTL is 90 seconds")
    b.cms("edit", old_id, "--title", "The cache TTL is 120 seconds")  # later
    a.cms("team", "sync")
    b.cms("team", "sync")
    a.cms("team", "sync")
    links = {link for _, _, link in server_rows(team_url) if link}
    assert len(links) == 1  # both older versions point at the newest one on the server
    for machine in (a, b):
        in_force = [x for x in machine.cms("list").stdout.splitlines() if "TTL" in x]
        assert len(in_force) == 1 and "120 seconds" in in_force[0], in_force


def a_id(machine: Machine, words: str) -> str:
    line = next(x for x in machine.cms("list").stdout.splitlines() if words in x)
    return line.split()[0]
