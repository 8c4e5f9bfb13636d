"""Machines for the team tests: each its own CMS_HOME and HOME and its own clone of one origin
repository, running the real hooks (local provider, jobs inline) and `cms` commands."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.hooks.helpers import hook_context, hook_env, replay_chat_hooks
from tests.observations.gitrepo import git, make_repo


def origin_repository(folder: Path) -> Path:
    """A bare origin with one commit on main."""
    work = make_repo(folder / "seed")
    bare = folder / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


class Machine:
    def __init__(self, folder: Path, origin: Path, url: str, *, sync: bool = True) -> None:
        self.folder = folder
        (folder / "home").mkdir(parents=True)
        (folder / "cms-home").mkdir()
        self.repo = folder / "work" / "app"
        subprocess.run(["git", "clone", "-q", str(origin), str(self.repo)], check=True)
        git(self.repo, "config", "user.email", f"{folder.name}@example.com")
        git(self.repo, "config", "user.name", folder.name)
        extra = {
            "CMS_HOME": str(folder / "cms-home"),
            "HOME": str(folder / "home"),
            "CMS_PROVIDER": "local",
            "CMS_TEAM_URL": url,
        }
        if sync:
            extra["CMS_SYNC"] = "1"
        self.env = hook_env(extra)

    def chat(self, session: str, turns: Sequence[tuple[str, str]]) -> None:
        replay_chat_hooks(self.folder, self.repo, session, turns, self.env)

    def start(self, session: str) -> str:
        """A new chat's SessionStart: what it injects."""
        payload = {"session_id": session, "cwd": str(self.repo), "source": "startup"}
        return hook_context("SessionStart", payload, self.env)

    def cms(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "cms", *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.repo,
            check=False,
            timeout=120,
        )
        if check:
            assert done.returncode == 0, done.stderr
        return done
