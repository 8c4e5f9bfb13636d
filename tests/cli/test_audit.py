"""`cms audit` through the real CLI on a real git repository and its SQLite store: a sound store
passes; dangling and circular links, a file that is gone, a duplicate and a damaged database
are each reported on one line, exit 1; --quiet prints nothing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from cms import paths
from cms.project import identify_project
from tests.observations.gitrepo import commit_file, make_repo

ROOT = Path(__file__).resolve().parents[2]


def cms(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )


def remember(repo: Path, title: str, *files: str) -> None:
    extra = [a for f in files for a in ("--files", f)]
    done = cms("remember", "--kind", "decision", "--title", title, *extra, cwd=repo)
    assert done.returncode == 0, done.stderr


def test_a_sound_store_passes_and_each_problem_is_one_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    (repo / "src").mkdir()
    commit_file(repo, "src/db.py", "PORT = 6543\n", "db")
    remember(repo, "The database port is 6543", "src/db.py")
    remember(repo, "Deploys go through make deploy")
    remember(repo, "Payments live in src/pay.py", "src/pay.py")
    remember(repo, "Retries back off exponentially")
    ok = cms("audit", cwd=repo)
    assert ok.returncode == 1 and ok.stdout.splitlines() == [
        "file: O3: names src/pay.py, gone",
        "1 problem found",
    ]
    (repo / "src" / "pay.py").write_text("x = 1\n", encoding="utf-8")
    assert cms("audit", cwd=repo).stdout == "no problems found\n"
    db = paths.observations_db(identify_project(repo).id)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE observations SET superseded_by = 99 WHERE id = 2")
        conn.execute("UPDATE observations SET superseded_by = 4 WHERE id = 3")
        conn.execute("UPDATE observations SET superseded_by = 3 WHERE id = 4")
        conn.execute(
            "INSERT INTO observations (project, kind, title, title_key, body, branch, created_at, "
            "updated_at) SELECT project, kind, title, title_key, body, branch, created_at, updated_at "
            "FROM observations WHERE id = 1"
        )
    bad = cms("audit", cwd=repo)
    assert bad.returncode == 1
    assert bad.stdout.splitlines() == [
        "link: O2: superseded by O99, which is gone",
        "link: O3: its chain of newer versions loops",
        "link: O4: its chain of newer versions loops",
        "duplicate: O5: says what O1 says",
        "4 problems found",
    ]
    quiet = cms("audit", "--quiet", cwd=repo)
    assert quiet.returncode == 1 and quiet.stdout == "" and quiet.stderr == ""


def test_a_damaged_database_fails_the_audit_in_one_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    remember(repo, "The database port is 6543")
    db = Path(paths.observations_db(identify_project(repo).id))
    for extra in db.parent.glob(db.name + "-*"):
        extra.unlink()
    data = bytearray(db.read_bytes())
    data[4096:8192] = b"\x00garbage" * 512  # a page of the table overwritten
    db.write_bytes(bytes(data))
    done = cms("audit", cwd=repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("integrity: ") and "Traceback" not in done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].endswith("found")


def test_a_project_without_a_store_has_no_problems(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "empty")
    done = cms("audit", cwd=repo)
    assert (done.returncode, done.stdout) == (0, "no problems found\n")
