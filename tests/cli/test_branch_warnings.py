"""`cms doctor` and `cms stats` name the deleted branches whose never-merged memory shows on
every branch, each with the `cms forget --branch` line that drops it (subprocesses, real git)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.observations.gitrepo import capture, commit_file, git, make_repo

ROOT = Path(__file__).resolve().parents[2]
FORGET = "cms forget --branch experiment"


def cms(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CMS_PROVIDER": "local"}
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def ok(cwd: Path, *args: str) -> str:
    done = cms(cwd, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def abandoned_and_merged(tmp_path: Path) -> Path:
    """A project with an abandoned branch (two memories) and a merged one, both deleted."""
    repo = make_repo(tmp_path / "app")
    capture(repo, "Main decision", "made on main")
    git(repo, "checkout", "-q", "-b", "experiment")
    commit_file(repo, "x.txt", "x\n", "try x")
    capture(repo, "Use Redis for the cache", "Redis replaces memcached")
    capture(repo, "Cache keys", "keys are prefixed with the tenant id", kind="learning")
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-q", "-D", "experiment")
    git(repo, "checkout", "-q", "-b", "feat-merged")
    commit_file(repo, "m.txt", "m\n", "merged work")
    capture(repo, "Use ruff", "ruff replaces flake8")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "feat-merged")
    git(repo, "commit", "-q", "-m", "Use ruff (#3)")
    git(repo, "branch", "-q", "-D", "feat-merged")
    return repo


def test_doctor_and_stats_name_the_abandoned_branch_with_its_forget_line(tmp_path: Path) -> None:
    repo = abandoned_and_merged(tmp_path)

    doctor = ok(repo, "doctor")  # a warning: the exit code stays 0
    lines = [line.strip() for line in doctor.splitlines()]
    at = lines.index("experiment: 2 observations, last captured just now")
    assert lines[at - 1].endswith(
        "deleted branches never merged (their memory shows on every branch):"
    )
    assert lines[at + 1] == FORGET
    assert "feat-merged" not in doctor

    stats = ok(repo, "stats")
    lines = [line.strip() for line in stats.splitlines()]
    at = lines.index("experiment: 2 observations, last captured just now")
    assert lines[at - 1] == "deleted branches never merged (their memory shows on every branch):"
    assert lines[at + 1] == FORGET
    assert "feat-merged" not in stats.split("by branch:")[1].split("\n", 1)[1]

    for data in (json.loads(ok(repo, "doctor", "--json")), json.loads(ok(repo, "stats", "--json"))):
        (branch,) = data["deleted_branches"]
        assert branch["branch"] == "experiment"
        assert branch["observations"] == 2
        assert branch["status"] == "unmerged"
        assert branch["forget"] == FORGET
    assert any(FORGET in w for w in json.loads(ok(repo, "doctor", "--json"))["warnings"])

    done = subprocess.run(
        ["sh", "-c", FORGET.replace("cms ", f"{sys.executable} -m cms ", 1)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=repo,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "forgot 2 observations", done.stderr
    assert "deleted branches" not in ok(repo, "doctor")
    assert "deleted branches" not in ok(repo, "stats")
    assert json.loads(ok(repo, "stats", "--json"))["deleted_branches"] == []


def test_with_cwd_the_forget_line_names_the_project_folder(tmp_path: Path) -> None:
    repo = abandoned_and_merged(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    line = f"{FORGET} --cwd {repo}"
    assert line in ok(elsewhere, "doctor", "--cwd", str(repo))
    (branch,) = json.loads(ok(elsewhere, "stats", "--json", "--cwd", str(repo)))["deleted_branches"]
    assert branch["forget"] == line
    assert "deleted branches" not in ok(elsewhere, "doctor")  # not a project with memory


def test_doctor_reads_without_writing(tmp_path: Path) -> None:
    repo = abandoned_and_merged(tmp_path)
    home = Path(os.environ["CMS_HOME"])
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()}
    refs = git(repo, "for-each-ref")
    assert "experiment" in ok(repo, "doctor")
    after = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()}
    changed = {p for p in after if before.get(p) != after[p]} - {
        p for p in after if p.name.endswith(("-wal", "-shm"))
    }
    assert changed == set()
    assert git(repo, "for-each-ref") == refs
