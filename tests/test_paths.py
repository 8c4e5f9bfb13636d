"""cms.paths: the str forms the hooks use spell every location as its Path form does."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from cms import paths


@pytest.mark.parametrize(
    "raw",
    ["", ".", "/", "//", "///", "a", "a/", "a//b/", "./a/./b", "/a/../b", "//srv/x", "~", "~/x/"],
)
def test_clean_path_spells_a_path_as_pathlib_does(raw: str) -> None:
    assert paths.clean_path(raw) == str(Path(raw).expanduser())


def test_clean_path_agrees_with_pathlib_on_random_paths() -> None:
    rng = random.Random(11)
    parts = ["", ".", "..", "a", "b c", "é", "x.y"]
    for _ in range(2000):
        raw = rng.choice(["", "/", "//", "~/"]) + "/".join(
            rng.choice(parts) for _ in range(rng.randint(0, 5))
        )
        assert paths.clean_path(raw) == str(Path(raw).expanduser()), raw


def test_every_place_is_a_clean_str_under_cms_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CMS_HOME", f"{tmp_path}//home/./")
    home = str(tmp_path / "home")
    assert paths.cms_home() == home
    assert paths.chat_dir("s 1") == os.path.join(home, "chats", paths.safe_name("s 1"))
    assert paths.map_path("abc") == os.path.join(home, "chats", "abc", "map.json")
    assert paths.queue_dir() == os.path.join(home, "queue")
    assert paths.log_path() == os.path.join(home, "logs", "cms.log")
    assert paths.project_dir("p-1") == os.path.join(home, "projects", "p-1")
    assert paths.observations_db("p-1") == os.path.join(paths.project_dir("p-1"), "observations.db")
    assert paths.usage_path() == os.path.join(home, "usage.sqlite3")
    monkeypatch.delenv("CMS_HOME")
    assert paths.cms_home() == str(Path.home() / ".cms")


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("abc-1.x_Y", True),
        ("a" * 100, True),
        ("a" * 101, False),
        (".hidden", False),
        ("a..b", False),
        ("with space", False),
        ("new\nline", False),
        ("", False),
        ("é", False),
    ],
)
def test_odd_session_ids_are_hashed_into_safe_names(raw: str, kept: bool) -> None:
    name = paths.safe_name(raw)
    assert (name == raw) is kept
    assert name and "/" not in name and not name.startswith(".")
