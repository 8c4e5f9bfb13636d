"""File marks: the blob id git gives a file, what a later read says of a changed, touched or
deleted file, and reading the marks of any number of observations."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

from cms.observations.filestate import (
    CHANGED,
    GONE,
    blob_id,
    current_marks,
    file_state,
    record_marks,
    staleness,
    stored_marks,
)
from cms.observations.migrations import MIGRATIONS


def test_the_blob_id_is_the_one_git_gives_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"print('hi')\n\x00binary too\n")
    git = subprocess.run(
        ["git", "hash-object", str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert blob_id(path.read_bytes()) == git


def test_a_file_changed_touched_or_deleted_since_its_mark(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / "src" / name).write_text(f"# {name}\n", encoding="utf-8")
    marks = current_marks(str(tmp_path), ["src/a.py", "src/b.py", "src/c.py", "../x.py", "gone.py"])
    assert [m[0] for m in marks] == ["src/a.py", "src/b.py", "src/c.py"]  # nothing outside
    (tmp_path / "src" / "a.py").write_text("# a.py, changed\n", encoding="utf-8")
    b = tmp_path / "src" / "b.py"
    os.utime(b, (b.stat().st_atime + 9, b.stat().st_mtime + 9))  # touched, same content
    (tmp_path / "src" / "c.py").unlink()
    states = [file_state(str(tmp_path), m) for m in marks]
    assert states == [CHANGED, "", GONE]
    assert staleness(str(tmp_path), marks) == (
        "(file changed since: src/a.py) (file gone: src/c.py)"
    )


def test_marks_of_more_observations_than_sqlite_takes_parameters_are_read() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(dict(MIGRATIONS)["018_file_marks"])
    for obs in range(1, 40_001, 1000):
        record_marks(conn, obs, [("src/a.py", "b" * 40, 10, 1)])
    found = stored_marks(conn, list(range(1, 40_001)))
    assert sorted(found) == list(range(1, 40_001, 1000))
