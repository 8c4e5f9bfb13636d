"""Real git repositories for observation tests, made with the `git` command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cms.observations.access import ProjectMemory, open_project_memory
from cms.observations.capture import capture_observations
from cms.observations.model import NewObservation
from cms.observations.recall import recall


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.strip()


def make_repo(path: Path, branch: str = "main") -> Path:
    """A repository with one commit on `branch`."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "user.name", "Test")
    commit_file(path, "README.md", "project\n", "first")
    return path


def commit_file(repo: Path, name: str, text: str, message: str) -> str:
    """Write a file, commit it, return the new HEAD."""
    (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def memory(cwd: Path) -> ProjectMemory:
    """The project memory of cwd with a freshly read branch scope."""
    found = open_project_memory(cwd)
    assert found is not None
    return found


def capture(cwd: Path, title: str, body: str = "", kind: str = "decision") -> int:
    with memory(cwd) as mem:
        ids = capture_observations(
            mem.store, [NewObservation(kind, title, body)], session="s1", agent="test", cwd=cwd
        )
    assert len(ids) == 1
    return ids[0]


def recalled_titles(cwd: Path, query: str) -> list[str]:
    with memory(cwd) as mem:
        hits = recall(mem.store, query, scope=mem.scope, limit=10, touch=False)
    return [h.observation.title for h in hits]
