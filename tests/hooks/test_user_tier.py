"""The user tier through the hook protocol: a preference of the user's own, remembered or said in
one project (a real git repository), reaches the chats of another project at SessionStart and
next to a prompt; a project's rule of the same subject wins; without a user tier the hooks
create and load nothing of it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cms import paths
from cms.observations.access import open_project_memory, open_user_memory
from tests.hooks.helpers import ROOT, hook_context, hook_env, replay_chat_hooks
from tests.hooks.test_imports import HEAVY, modules_after_hook
from tests.observations.gitrepo import make_repo


def env() -> dict[str, str]:
    return hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})


def cms(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        env={**env(), "PYTHONPATH": str(ROOT)},
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def start(session: str, repo: Path) -> str:
    payload = {"session_id": session, "cwd": str(repo), "source": "startup"}
    return hook_context("SessionStart", payload, env())


def prompt(session: str, repo: Path, text: str) -> str:
    payload = {"session_id": session, "cwd": str(repo), "prompt": text}
    return hook_context("UserPromptSubmit", payload, env())


def test_a_preference_remembered_for_the_user_in_one_project_reaches_another_project(
    tmp_path: Path,
) -> None:
    first, second = make_repo(tmp_path / "shop"), make_repo(tmp_path / "blog")
    said = cms(
        "remember", "--scope", "user", "--kind", "preference",
        "--title", "Always answer in French", "--cwd", str(first),
    )  # fmt: skip
    assert said.strip() == "remembered U1 (yours, every project)"
    assert open_project_memory(first, create=False) is None  # nothing went to the project

    opening = start("blog-chat-1", second)
    assert "- U1 Always answer in French (yours, every project)" in opening
    asked = "In which language should you answer me, French or English?"
    assert "U1" not in prompt("blog-chat-1", second, asked)  # shown at start already
    fresh = prompt("blog-chat-2", second, asked)  # a chat that missed SessionStart
    assert "- U1 [preference] (yours, every project, just now) Always answer in French" in fresh

    shown = cms("get", "U1", "--cwd", str(second))
    assert shown.splitlines()[:2] == [
        "U1 [preference, yours, every project] (in force)",
        "Always answer in French",
    ]


def test_the_local_extractor_routes_personal_preferences_to_the_user_and_conventions_here(
    tmp_path: Path,
) -> None:
    shop, blog = make_repo(tmp_path / "shop"), make_repo(tmp_path / "blog")
    replay_chat_hooks(
        tmp_path,
        shop,
        "shop-chat-1",
        [
            (
                "Please always answer in French. What does the parser in src/parser.py do?",
                "Le parser découpe chaque ligne sur les virgules et renvoie des tuples.",
            ),
            (
                "In this repo we always use tabs for indentation.",
                "Noted: tabs for indentation in this repo.",
            ),
            (
                "Never ask me to confirm before running a command.",
                "Understood.",
            ),
        ],
        env(),
    )
    user = open_user_memory()
    assert user is not None
    with user:
        personal = [o.body for o in user.store.list_observations()]
    assert personal == [
        "Please always answer in French.",
        "Never ask me to confirm before running a command.",
    ]
    project = open_project_memory(shop, create=False)
    assert project is not None
    with project:
        rules = [o.body for o in project.store.list_observations()]
    assert "In this repo we always use tabs for indentation." in rules
    assert not any("French" in r or "confirm" in r for r in rules)

    elsewhere = start("blog-chat-1", blog)
    assert "answer in French. (yours, every project)" in elsewhere
    assert "confirm before running a command. (yours, every project)" in elsewhere
    assert "tabs" not in elsewhere  # the shop's convention stays in the shop
    at_home = start("shop-chat-2", shop)
    assert "tabs for indentation" in at_home and "answer in French" in at_home
    assert "U1" in cms("list", "--scope", "user")


def test_the_project_wins_when_it_rules_on_the_same_subject(tmp_path: Path) -> None:
    shop, blog = make_repo(tmp_path / "shop"), make_repo(tmp_path / "blog")
    cms("remember", "--scope", "user", "--kind", "preference", "--title", "Always answer in French")
    cms("remember", "--kind", "preference", "--importance", "2", "--cwd", str(blog),
        "--title", "In this repo, answer in English")  # fmt: skip

    here = start("blog-chat-1", blog)
    assert "- O1 In this repo, answer in English" in here
    assert "U1" not in here and "French" not in here
    asked = prompt("blog-chat-2", blog, "Should you answer in French or in English here?")
    assert "O1" in asked and "U1" not in asked
    searched = cms("search", "answer in French or English", cwd=blog)
    assert "O1" in searched and "U1" not in searched

    there = start("shop-chat-1", shop)  # no rule of its own: the user's holds
    assert "- U1 Always answer in French (yours, every project)" in there


def test_without_a_user_tier_the_hooks_create_and_load_nothing_of_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    cms(
        "remember",
        "--kind",
        "decision",
        "--title",
        "Use Postgres 16 for billing",
        "--cwd",
        str(repo),
    )
    start("chat-1", repo)
    prompt("chat-1", repo, "which postgres version do we use for billing?")
    assert not os.path.exists(paths.user_dir())
    loaded = modules_after_hook(
        "UserPromptSubmit",
        {"session_id": "chat-2", "cwd": str(repo), "prompt": "postgres for billing?"},
        tmp_path / "modules.json",
    )
    assert "cms.search.project" in loaded  # the project's memory was searched ...
    assert "cms.observations.usertier" not in loaded  # ... and nothing of the user tier ran
    assert not os.path.exists(paths.user_dir())


def test_with_a_user_tier_the_injecting_hooks_still_import_nothing_heavy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    cms(
        "remember",
        "--kind",
        "decision",
        "--title",
        "Use Postgres 16 for billing",
        "--cwd",
        str(repo),
    )
    cms("remember", "--scope", "user", "--kind", "preference", "--title", "Always answer in French")
    for event, extra in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "which language for answers, and postgres for billing?"}),
    ):
        payload = {"session_id": f"chat-{event}", "cwd": str(repo), **extra}
        loaded = modules_after_hook(event, payload, tmp_path / f"{event}.json")
        assert "cms.observations.usertier" in loaded  # the user tier was read ...
        assert [m for m in HEAVY if m in loaded] == []  # ... on the fast path


def test_a_broken_user_tier_leaves_the_projects_memory_in_place(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    cms("remember", "--kind", "decision", "--title", "Always use pnpm", "--cwd", str(repo))
    os.makedirs(paths.user_dir(), mode=0o700, exist_ok=True)
    with open(paths.user_observations_db(), "wb") as handle:
        handle.write(b"this is not a database" * 100)
    assert "O1 Always use pnpm" in start("chat-1", repo)
    assert "O1 [decision]" in prompt("chat-2", repo, "should we always use pnpm?")
    log = Path(paths.log_path()).read_text(encoding="utf-8")
    assert "user_tier_unreadable" in log
