"""The team settings: [team] in cms.toml, CMS_TEAM_URL over it, the password never shown, a
project's key the same in every clone and none before the first commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cms.config import parse_config, team_url
from cms.errors import ConfigError
from cms.team.identity import project_key
from tests.hooks.helpers import hook_env
from tests.observations.gitrepo import git, make_repo


def test_the_environment_url_wins_over_the_file_and_bad_values_are_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = parse_config({"team": {"url": "postgresql://file@h/db", "share_user": True}})
    assert team_url(config) == "postgresql://file@h/db" and config.team.share_user
    monkeypatch.setenv("CMS_TEAM_URL", "postgresql://env@h/db")
    assert team_url(config) == "postgresql://env@h/db"
    with pytest.raises(ConfigError, match=r"team\.sync_interval_seconds"):
        parse_config({"team": {"sync_interval_seconds": -1}})


def test_doctor_and_status_show_the_server_without_its_password(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    env = hook_env({"CMS_TEAM_URL": "postgresql://cms:s3cr3t-Pw@db.example.com/cms"})
    for args in (["doctor"], ["team", "status"]):
        done = subprocess.run(
            [sys.executable, "-m", "cms", *args],
            capture_output=True, text=True, env=env, cwd=repo, check=False,
        )  # fmt: skip
        assert "postgresql://cms:***@db.example.com/cms" in done.stdout or args == [
            "team",
            "status",
        ]
        assert "s3cr3t" not in done.stdout + done.stderr


def test_every_clone_has_the_same_key_and_a_repository_without_commits_has_none(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    clone = tmp_path / "elsewhere" / "renamed"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    key = project_key(str(repo))
    assert key is not None and key == project_key(str(clone))
    assert key == f"git:{git(repo, 'rev-list', '--max-parents=0', 'HEAD')}"
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert project_key(str(empty)) is None
    assert project_key(str(tmp_path)) is None
