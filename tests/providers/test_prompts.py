"""Prompts: the user's copy first, then the shipped one (the wheel's cms/prompts/, a checkout's
top-level prompts/), then a built-in text."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cms import paths
from cms.providers import prompts
from cms.providers.prompts import PROMPT_NAMES, load_prompt, prompt_source

from .conftest import make_config

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_a_source_checkout_reads_the_top_level_prompts_folder(name: str) -> None:
    top = REPO / "prompts" / f"{name}.md"
    assert Path(prompts.__file__).resolve().parents[2] == REPO  # cms runs from this checkout
    assert load_prompt(name) == top.read_text(encoding="utf-8")
    assert prompt_source(name) == str(top)


def test_the_prompts_have_one_copy_at_the_top_level() -> None:
    assert not (REPO / "cms" / "prompts").exists()
    assert sorted(p.stem for p in (REPO / "prompts").glob("*.md")) == sorted(PROMPT_NAMES)


def test_editing_a_clone_edits_the_prompt_that_runs(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "cms", clone / "cms", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "prompts", clone / "prompts")
    shutil.copy(REPO / "pyproject.toml", clone / "pyproject.toml")
    (clone / "prompts" / "search.md").write_text("edited in the clone", encoding="utf-8")
    script = (
        "from cms.providers.prompts import load_prompt, prompt_source\n"
        "print(load_prompt('search')); print(prompt_source('search'))"
    )
    env = {**os.environ, "PYTHONPATH": str(clone)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["edited in the clone", str(clone / "prompts" / "search.md")]


def test_the_update_prompt_names_every_op_and_the_answer_shape() -> None:
    text = load_prompt("update")
    for op in ("add_sun", "add_planet", "add_sat", "replace_sat", "delete_sat", "inc_mass"):
        assert f"`{op}`" in text
    assert '{"ops": [...]}' in text and "200 characters" in text and "10 operations" in text


def test_a_prompt_in_cms_home_overrides_the_package() -> None:
    folder = Path(paths.cms_home()) / "prompts"
    folder.mkdir()
    (folder / "search.md").write_text("my own search prompt", encoding="utf-8")
    assert load_prompt("search") == "my own search prompt"
    assert load_prompt("update") != "my own search prompt"


def test_the_configured_prompts_dir_comes_first(tmp_path: Path) -> None:
    (Path(paths.cms_home()) / "prompts").mkdir()
    (Path(paths.cms_home()) / "prompts" / "update.md").write_text("home copy", encoding="utf-8")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "update.md").write_text("configured copy", encoding="utf-8")
    config = make_config(prompts_dir=str(mine))
    assert load_prompt("update", config) == "configured copy"
    assert prompt_source("update", config) == str(mine / "update.md")


def test_unreadable_or_empty_copies_fall_through_to_the_builtin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = Path(paths.cms_home()) / "prompts"
    folder.mkdir()
    (folder / "observe.md").write_text("   \n", encoding="utf-8")
    (folder / "update.md").write_bytes(b"\xff\xfe broken")
    monkeypatch.setattr(prompts, "_shipped", lambda name: None)
    assert "kind" in load_prompt("observe") and "JSON list" in load_prompt("observe")
    assert '{"ops": [...]}' in load_prompt("update")
    assert prompt_source("update") == "built-in"


def test_unknown_prompt_names_are_refused() -> None:
    with pytest.raises(ValueError):
        load_prompt("../../etc/passwd")
