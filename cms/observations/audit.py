"""`cms audit`'s checks of one project's store: what is wrong, item by item.

Dangling or circular supersession and summary links, overrides naming missing items, items
whose files are gone from the work tree or changed since they were stored, live duplicates (one kind, one text) and a database
that fails SQLite's integrity check. Reads only: it never repairs (the user decides); knows
nothing of the CLI.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass

from cms.observations.filestate import CHANGED, file_state, stored_marks
from cms.observations.store import ObservationStore


@dataclass(frozen=True)
class Finding:
    check: str  # integrity, link, file, duplicate
    item: str  # "O12", "F3 of <chat>", or "" for the whole store
    message: str

    def line(self) -> str:
        where = f"{self.item}: " if self.item else ""
        return f"{self.check}: {where}{self.message}"


def audit_store(store: ObservationStore, root: str | None) -> list[Finding]:
    """Every problem found in the store, the database's own integrity first; root is the work
    tree that relative file names are checked against (None: files are not checked)."""

    def run(conn: sqlite3.Connection) -> list[Finding]:
        broken = _integrity(conn)
        if broken:
            return broken  # the rows cannot be trusted: nothing else is checked
        found = _links(conn) + _duplicates(conn)
        return found + (_files(conn, root) if root else [])

    return store.read(run)


def _integrity(conn: sqlite3.Connection) -> list[Finding]:
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        return [Finding("integrity", "", f"the database cannot be checked: {exc}")]
    return [Finding("integrity", "", row) for row in rows if row != "ok"]


def _links(conn: sqlite3.Connection) -> list[Finding]:
    ids = {int(r[0]) for r in conn.execute("SELECT id FROM observations")}
    found: list[Finding] = []
    rows = conn.execute("SELECT id, superseded_by, summarised_into FROM observations").fetchall()
    replaced_by = {int(i): s for i, s, _ in rows if s is not None}
    for obs_id, superseded_by, summarised_into in rows:
        for column, target in (
            ("superseded by", superseded_by),
            ("summarised into", summarised_into),
        ):
            if target is None:
                continue
            if target == obs_id:
                found.append(Finding("link", f"O{obs_id}", f"{column} itself"))
            elif target not in ids:
                found.append(Finding("link", f"O{obs_id}", f"{column} O{target}, which is gone"))
    for obs_id in sorted(replaced_by):
        if _in_cycle(obs_id, replaced_by):
            found.append(Finding("link", f"O{obs_id}", "its chain of newer versions loops"))
    for older, newer in conn.execute("SELECT older, newer FROM overrides"):
        missing = [f"O{i}" for i in (older, newer) if i not in ids]
        if missing:
            found.append(
                Finding("link", f"O{older}", f"overridden by O{newer}; {', '.join(missing)} gone")
            )
    facts = {int(r[0]) for r in conn.execute("SELECT id FROM facts")}
    for row_id, fact_id, session, newer in conn.execute(
        "SELECT id, fact_id, session, superseded_by FROM facts WHERE superseded_by IS NOT NULL"
    ):
        if newer not in facts or newer == row_id:
            found.append(
                Finding("link", f"{fact_id} of chat {session}", "superseded by a fact that is gone")
            )
    return found


def _in_cycle(start: int, replaced_by: dict[int, int]) -> bool:
    seen = {start}
    current = replaced_by.get(start)
    while current is not None:
        if current == start:
            return True
        if current in seen:
            return False  # a loop further on; reported from its own members
        seen.add(current)
        current = replaced_by.get(current)
    return False


def _duplicates(conn: sqlite3.Connection) -> list[Finding]:
    rows = conn.execute(
        "SELECT id, kind, title, body, branch FROM observations "
        "WHERE superseded_by IS NULL AND archived_at IS NULL ORDER BY id"
    ).fetchall()
    first: dict[tuple[str, str, str, str], int] = {}
    found: list[Finding] = []
    for obs_id, kind, title, body, branch in rows:
        key = (
            kind,
            " ".join(str(title).casefold().split()),
            " ".join(str(body).casefold().split()),
            branch or "",
        )
        if key in first:
            found.append(Finding("duplicate", f"O{obs_id}", f"says what O{first[key]} says"))
        else:
            first[key] = obs_id
    return found


def _files(conn: sqlite3.Connection, root: str) -> list[Finding]:
    found: list[Finding] = []
    rows = conn.execute(
        "SELECT id, files FROM observations WHERE superseded_by IS NULL AND archived_at IS NULL "
        "AND files != '[]' ORDER BY id"
    ).fetchall()
    marks = stored_marks(conn, [int(r[0]) for r in rows])
    for obs_id, files in rows:
        try:
            names = [n for n in json.loads(files) if isinstance(n, str)]
        except ValueError:
            found.append(Finding("file", f"O{obs_id}", "its file list is not JSON"))
            continue
        gone = [n for n in names if _names_a_path(n) and not os.path.exists(os.path.join(root, n))]
        if gone:
            found.append(Finding("file", f"O{obs_id}", f"names {', '.join(gone)}, gone"))
        changed = [m[0] for m in marks.get(obs_id, []) if file_state(root, m) == CHANGED]
        if changed:
            found.append(
                Finding("file", f"O{obs_id}", f"{', '.join(changed)} changed since it was stored")
            )
    return found


def _names_a_path(name: str) -> bool:
    """A relative path inside the work tree (not a URL, a glob or a redaction marker)."""
    return (
        bool(name)
        and not os.path.isabs(name)
        and "://" not in name
        and not any(ch in name for ch in "*?[")
        and not name.startswith("..")
    )
