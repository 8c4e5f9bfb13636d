"""The user tier beside a project: which user item a project overrules, how the rules in force
of both tiers merge, and the user tier's ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.observations.access import open_user_memory
from cms.observations.model import NewObservation
from cms.observations.personal import capture_personal
from cms.observations.recall import in_force
from cms.observations.usertier import merge_rules, project_wins, same_subject, user_number

from .gitrepo import make_repo, memory


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ("Always answer in French.", "In this repo, answer in English."),
        ("Always answer in French.", "Answer in English here."),
        ("Never ask me to confirm before running the tests.", "Always ask before running tests."),
        ("I prefer tabs over spaces.", "We use spaces, not tabs, in this project."),
        ("Write commit messages in French.", "Write commit messages in English."),
    ],
)
def test_a_project_rule_of_the_same_subject_overrules_the_users(mine: str, theirs: str) -> None:
    assert same_subject(mine, theirs)
    assert project_wins([mine], [theirs], str) == []


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ("Always answer in French.", "Always use pnpm."),
        ("Call me Sam.", "We use tabs in this repo."),
        ("Keep your answers short.", "Start function argument names with 'e_'."),
    ],
)
def test_a_project_rule_of_another_subject_leaves_the_users_in_force(
    mine: str, theirs: str
) -> None:
    assert not same_subject(mine, theirs)
    assert project_wins([mine], [theirs], str) == [mine]


def test_rules_in_force_merge_by_importance_and_the_project_wins(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    capture_personal(
        [
            NewObservation("preference", "Language", "Always answer in French.", importance=5),
            NewObservation("preference", "Name", "Call me Sam.", importance=2),
        ],
        session="s",
        agent="cli",
    )
    with memory(repo) as mem:
        mem.store.add(
            NewObservation("preference", "Language", "Answer in English here.", importance=3)
        )
        mem.store.add(NewObservation("decision", "Pnpm", "Always use pnpm.", importance=4))
        project = in_force(mem.store, mem.scope)
    user = open_user_memory()
    assert user is not None
    with user:
        merged = merge_rules(project, in_force(user.store, user.scope))
    assert [(r.observation.body, personal) for r, personal in merged] == [
        ("Always use pnpm.", False),
        ("Answer in English here.", False),  # the project's language rule, not the user's
        ("Call me Sam.", True),
    ]


def test_user_ids_are_u_and_a_number() -> None:
    assert [user_number(x) for x in ("U12", "u3", "O12", "12", "U", "Ux")] == [
        12,
        3,
        None,
        None,
        None,
        None,
    ]
