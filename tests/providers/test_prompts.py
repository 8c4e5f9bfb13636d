"""Prompts: the user's copy first, then the packaged one, then a built-in text."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from cms import paths
from cms.providers import prompts
from cms.providers.prompts import PROMPT_NAMES, load_prompt, prompt_source

from .conftest import make_config


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_each_prompt_ships_in_the_package(name: str) -> None:
    packaged = (resources.files("cms") / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    assert load_prompt(name) == packaged
    assert prompt_source(name) == f"package:{name}.md"


def test_the_update_prompt_names_every_op_and_the_answer_shape() -> None:
    text = load_prompt("update")
    for op in ("add_sun", "add_planet", "add_sat", "replace_sat", "delete_sat", "inc_mass"):
        assert f"`{op}`" in text
    assert '{"ops": [...]}' in text and "200 characters" in text and "10 operations" in text


def test_a_prompt_in_cms_home_overrides_the_package() -> None:
    folder = paths.cms_home() / "prompts"
    folder.mkdir()
    (folder / "search.md").write_text("my own search prompt", encoding="utf-8")
    assert load_prompt("search") == "my own search prompt"
    assert load_prompt("update") != "my own search prompt"


def test_the_configured_prompts_dir_comes_first(tmp_path: Path) -> None:
    (paths.cms_home() / "prompts").mkdir()
    (paths.cms_home() / "prompts" / "update.md").write_text("home copy", encoding="utf-8")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "update.md").write_text("configured copy", encoding="utf-8")
    config = make_config(prompts_dir=str(mine))
    assert load_prompt("update", config) == "configured copy"
    assert prompt_source("update", config) == str(mine / "update.md")


def test_unreadable_or_empty_copies_fall_through_to_the_builtin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = paths.cms_home() / "prompts"
    folder.mkdir()
    (folder / "observe.md").write_text("   \n", encoding="utf-8")
    (folder / "update.md").write_bytes(b"\xff\xfe broken")
    monkeypatch.setattr(prompts, "_packaged", lambda name: None)
    assert "kind" in load_prompt("observe") and "JSON list" in load_prompt("observe")
    assert '{"ops": [...]}' in load_prompt("update")
    assert prompt_source("update") == "built-in"


def test_unknown_prompt_names_are_refused() -> None:
    with pytest.raises(ValueError):
        load_prompt("../../etc/passwd")
