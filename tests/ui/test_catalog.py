"""What the ui reads from a real memory: projects, chats, maps, rules in force, injections."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.ui import catalog
from tests.ui.conftest import BuiltMemory


def test_projects_list_their_own_chats_named_by_first_prompt(memory: BuiltMemory) -> None:
    projects = {p.id: p for p in catalog.list_projects()}
    assert set(projects) == {memory.project, memory.other_project}
    shop = projects[memory.project]
    assert shop.has_store and shop.folder == str(memory.repo)
    firsts = {c.session: c.first_prompt for c in shop.chats}
    assert set(firsts) == {"chat-a-0001", "chat-b-0002"}
    assert firsts["chat-a-0001"].startswith("We decided to use PostgreSQL 16")
    assert all(c.facts > 0 and c.map_bytes > 0 for c in shop.chats)


def test_the_rule_in_force_shows_the_version_it_replaced(memory: BuiltMemory) -> None:
    project = catalog.find_project(memory.project)
    assert project is not None
    opened = catalog.open_memory(project)
    assert opened is not None
    with opened:
        view = catalog.memory_view(opened)
    rules = {r.observation.body or r.observation.title: r for r in view.in_force}
    newest = next(r for text, r in rules.items() if "'j_'" in text)
    assert any("'e_'" in f"{o.title} {o.body}" for o in newest.replaced)
    assert not any("'e_'" in text for text in rules)
    assert view.superseded >= 1 and view.facts > 0


def test_a_chat_view_has_its_map_and_every_injection_with_its_size(memory: BuiltMemory) -> None:
    view = catalog.chat_view("chat-b-0002")
    assert view is not None and view.cmap is not None
    assert view.injections and view.injections[0].at >= view.injections[-1].at
    assert {i.event for i in view.injections} <= {"SessionStart", "UserPromptSubmit"}
    assert all(i.chars > 0 for i in view.injections)
    assert view.latest_prompt.startswith("Remind me")
    assert catalog.chat_view("no-such-chat") is None


def test_an_unreadable_map_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CMS_HOME", str(tmp_path / "broken"))
    folder = tmp_path / "broken" / "chats" / "chat-x"
    folder.mkdir(parents=True)
    (folder / "map.json").write_text("{not json", encoding="utf-8")
    (chat,) = catalog.list_chats()
    assert chat.problem and chat.facts == 0


def test_a_project_page_lists_the_newest_observations_of_each_kind_and_counts_them_all(
    memory: BuiltMemory,
) -> None:
    project = catalog.find_project(memory.project)
    assert project is not None
    opened = catalog.open_memory(project)
    assert opened is not None
    with opened:
        view = catalog.memory_view(opened, per_kind=1)
    assert view.live["bugfix"] == 2 and len(view.by_kind["bugfix"]) == 1
    assert all(len(items) == 1 for items in view.by_kind.values())
