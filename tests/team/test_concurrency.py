"""4 machines x 3 writers against one PostgreSQL server for a minute (CMS_TEAM_STRESS_SECONDS),
the server stopped and restarted in the middle: the hooks keep answering while it is down, and
after the run every item is on the server once and on every machine once."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from tests.team.machines import Machine, origin_repository
from tests.team.pgserver import PostgresServer

MACHINES = 4


def local_titles(machine: Machine) -> list[str]:
    (store,) = (Path(machine.env["CMS_HOME"]) / "projects").glob("*/observations.db")
    with sqlite3.connect(store) as conn:
        return [row[0] for row in conn.execute("SELECT title FROM observations")]


def sync_until_done(machine: Machine) -> None:
    for _ in range(20):
        if machine.cms("team", "sync", check=False).returncode == 0:
            return
        time.sleep(0.5)
    raise AssertionError("team sync kept failing after the server came back")


@pytest.mark.slow
def test_four_machines_of_three_writers_lose_and_duplicate_nothing_across_a_restart(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    seconds = float(os.environ.get("CMS_TEAM_STRESS_SECONDS", "60"))
    url = postgres.new_database()
    origin = origin_repository(tmp_path)
    machines = [Machine(tmp_path / f"m{n}", origin, url, sync=False) for n in range(MACHINES)]
    for machine in machines:
        machine.cms("remember", "--kind", "decision", "--title", f"{machine.folder.name} joined")
    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.team.writer", str(m.repo), str(seconds), m.folder.name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=m.env,
            cwd=Path(__file__).resolve().parents[2],
        )
        for m in machines
    ]
    time.sleep(seconds / 3)
    postgres.stop()
    try:
        started = machines[0].start("chat-while-down")  # a hook with the server gone
        assert "joined" in started
        time.sleep(seconds / 6)
    finally:
        postgres.start()
    written = 0
    for writer in writers:
        out, err = writer.communicate(timeout=seconds * 4 + 120)
        assert writer.returncode == 0, err
        written += sum(json.loads(out))
    for machine in machines + machines:
        sync_until_done(machine)
    expected = written + MACHINES
    with psycopg.connect(url) as conn:
        uids = [
            row[0]
            for row in conn.execute(
                "SELECT uid FROM cms_items WHERE NOT deleted AND sort <> 'branches'"
            )
        ]
    assert len(uids) == len(set(uids)) == expected
    for machine in machines:
        titles = local_titles(machine)
        assert len(titles) == len(set(titles)) == expected, machine.folder.name
