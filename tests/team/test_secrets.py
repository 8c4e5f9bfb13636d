"""The team database is one more sink of the secret matrix: no shape reaches a row, whether it
came through capture (redacted when stored) or sits in an old local row written before a rule
existed (redacted again on the way out)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg

from tests.secret_shapes import SHAPES, fill
from tests.team.machines import Machine, origin_repository


def test_no_secret_shape_reaches_the_team_database(tmp_path: Path, team_url: str) -> None:
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    a.cms("remember", "--kind", "decision", "--title", "Secrets live in the vault")
    lines = [fill(line, needle) for _name, needle, line in SHAPES]
    a.chat("chat-secrets", [(f"keep this for later: {line}", "Noted.") for line in lines[:10]])
    (store,) = (Path(a.env["CMS_HOME"]) / "projects").glob("*/observations.db")
    with sqlite3.connect(store) as conn:  # rows from before a redaction rule: raw on disk
        for n, line in enumerate(lines):
            conn.execute(
                "INSERT INTO observations (project, kind, title, title_key, body, created_at, "
                "updated_at) VALUES ('p', 'learning', ?, ?, ?, 1, 1)",
                (f"old note {n}", f"old note {n}", line),
            )
            conn.execute(
                "INSERT INTO facts (session, fact_id, text, created_at, updated_at) "
                "VALUES ('old-chat', ?, ?, 1, 1)",
                (f"F{n}", line),
            )
    a.cms("team", "sync")
    with psycopg.connect(team_url) as conn:
        rows = [row[0] for row in conn.execute("SELECT fields FROM cms_items")]
    stored = "\n".join(str(value) for fields in rows for value in fields.values())
    assert stored.count("old note") == len(lines) and "Secrets live in the vault" in stored
    kept = [name for name, needle, _line in SHAPES if needle in stored]
    assert not kept, f"kept in the team database: {kept}"
