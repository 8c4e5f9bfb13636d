"""The user tier on the capture side: which statements are the user's own, and where a chat's
standing facts are stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms import paths
from cms.language.factkinds import kind_of_fact
from cms.language.wording import is_personal
from cms.map.model import Planet, Satellite, Sun, new_map
from cms.observations.access import open_user_memory
from cms.observations.chatsync import sync_chat_memory
from cms.observations.model import NewObservation
from cms.observations.personal import capture_personal, is_personal_candidate, split_personal

from .gitrepo import make_repo, memory

PERSONAL = [
    "I prefer short answers without a preamble.",
    "I'd rather you explain the plan before editing anything.",
    "I hate long explanations.",
    "I don't like emojis in answers.",
    "I like it when you show the diff first.",
    "I'm not a fan of one-letter variable names.",
    "My preferred editor is vim.",
    "My name is Sam.",
    "Call me Sam.",
    "Never ask me to confirm before running the tests.",
    "Don't ask me for permission to run read-only commands.",
    "Always tell me which files you changed.",
    "Always answer in French.",
    "Please always reply to me in German.",
    "Respond in Spanish from now on.",
    "Keep your answers short.",
    "Stop apologising in your replies.",
    "Be concise.",
    "The user prefers answers in French.",
]
PROJECT = [
    "We use tabs in this repo.",
    "In this project always run pnpm instead of npm.",
    "I prefer tabs in this repo.",
    "Always use pnpm.",
    "From now on, always start function argument names with 'e_'.",
    "Our convention is snake_case for modules.",
    "Never commit directly to main.",
    "Write commit messages in English.",
    "I prefer Postgres for the orders database.",
    "I'd rather you didn't touch the migrations.",
    "I prefer snake_case for helper names.",
    "I prefer src/util.py to stay small.",
    "Answers here should cite the file.",
    "Always explain your changes in this codebase before making them.",
    "In this session, answer in French.",
]
NOBODYS_RULE = [  # reactions, tasks, questions, courtesy, promises: no standing preference
    "I like that approach.",
    "I love this!",
    "I'd like you to fix the login bug.",
    "Show me the diff.",
    "Let me know if anything breaks.",
    "Do you prefer tabs?",
    "Never hesitate to ask me anything.",
    "I'll always answer in French.",
]


@pytest.mark.parametrize("text", PERSONAL)
def test_a_preference_about_the_user_is_personal(text: str) -> None:
    assert is_personal(text)
    assert kind_of_fact(text) == "preference"


@pytest.mark.parametrize("text", PROJECT + NOBODYS_RULE)
def test_a_rule_of_this_project_or_a_remark_is_not_personal(text: str) -> None:
    assert not is_personal(text)


def test_only_standing_candidates_are_routed_and_a_facts_title_is_only_its_topic() -> None:
    french = NewObservation(
        "preference", "Chat: Language", "Always answer in French.", source="c/F1"
    )
    tabs = NewObservation("preference", "Style: Indent", "We use tabs in this repo.", source="c/F2")
    learned = NewObservation("learning", "Me", "Never ask me to confirm before running the tests.")
    by_model = NewObservation("preference", "Answer language", "The user prefers French.")
    project, personal = split_personal([french, tabs, learned, by_model])
    assert personal == [french.replace(context=""), by_model]
    assert project == [tabs, learned]
    placed = NewObservation("preference", "In this repo", "keep your answers short", source=None)
    assert not is_personal_candidate(placed)  # a title written by hand places it too


def _chat_map(session: str, facts: list[str]) -> None:
    from cms.map.store import save_map

    cmap = new_map(session, "p")
    stamp = cmap.created_at
    planet = Planet(cmap.allocate_id("P"), "How we work", 1, stamp, stamp)
    for text in facts:
        planet.satellites.append(Satellite(cmap.allocate_id("F"), text, stamp, stamp, 1))
    cmap.suns.append(Sun(cmap.allocate_id("S"), "Working together", stamp, [planet]))
    save_map(paths.map_path(session), cmap)


def test_a_chats_personal_preferences_go_to_the_user_tier_and_its_conventions_stay(
    tmp_path: Path,
) -> None:
    from cms.map.store import load_map

    repo = make_repo(tmp_path / "app")
    facts = [
        "Always answer in French.",
        "Never ask me to confirm before running the tests.",
        "Always use tabs for indentation in this repo.",
        "From now on, always start function argument names with 'e_'.",
    ]
    _chat_map("chat-1", facts)
    assert open_user_memory() is None  # nothing written yet: no user store
    with memory(repo) as mem:
        result = sync_chat_memory(mem, load_map(paths.map_path("chat-1")), cwd=repo)
        project = [o.body for o in mem.store.list_observations()]
    assert project == facts[2:]
    assert len(result.personal) == 2 and len(result.observations) == 2
    user = open_user_memory()
    assert user is not None
    with user:
        mine = user.store.list_observations()
    assert [o.body for o in mine] == facts[:2]
    assert {o.branch for o in mine} == {None}  # they hold on every branch of every project
    assert {o.source for o in mine} == {"chat-1/F2", "chat-1/F3"}  # provenance kept


def test_a_personal_preference_said_again_is_folded_and_a_changed_one_supersedes() -> None:
    first = capture_personal(
        [NewObservation("preference", "Answers", "Always answer in French from now on.")],
        session="a",
        agent="cli",
    )
    again = capture_personal(
        [NewObservation("preference", "Answers", "Always answer in French from now on.")],
        session="b",
        agent="cli",
    )
    changed = capture_personal(
        [NewObservation("preference", "Answers", "From now on, always answer in English.")],
        session="c",
        agent="cli",
    )
    assert again[0].status == "duplicate" and again[0].id == first[0].id
    assert changed[0].status == "superseded"
    user = open_user_memory()
    assert user is not None
    with user:
        assert [o.body for o in user.store.list_observations()] == [
            "From now on, always answer in English."
        ]
