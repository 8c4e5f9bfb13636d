"""Two versions of one subject on two branches through the hook protocol: SessionStart's rules
in force, the prompt hook and PreToolUse send the feature branch's later version on that branch
and the default branch's one on main, never both (DESIGN.md section 5)."""

from __future__ import annotations

from pathlib import Path

from cms.observations.model import NewObservation
from tests.hooks.helpers import hook_context, hook_env
from tests.hooks.test_pre_tool_use import pre_tool, remember
from tests.observations.gitrepo import commit_file, git, make_repo

OLD = NewObservation(
    "decision",
    "Database",
    "The production database runs PostgreSQL 15; migrations live in db/schema.sql",
    importance=4,
)
NEW = NewObservation(
    "decision",
    "Database",
    "The production database runs PostgreSQL 16; migrations live in db/schema.sql",
    importance=4,
)
PROMPT = "Which PostgreSQL version does the production database run?"


def env() -> dict[str, str]:
    return hook_env({"CMS_PROVIDER": "local"})


def start(repo: Path, session: str) -> str:
    payload = {"session_id": session, "cwd": str(repo), "source": "startup"}
    return hook_context("SessionStart", payload, env())


def prompt(repo: Path, session: str) -> str:
    payload = {"session_id": session, "cwd": str(repo), "prompt": PROMPT}
    return hook_context("UserPromptSubmit", payload, env())


def two_versions(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "shop")
    remember(repo, OLD)
    git(repo, "checkout", "-q", "-b", "feat-pg16")
    commit_file(repo, "db.txt", "16\n", "upgrade the database")
    remember(repo, NEW)
    return repo


def test_session_start_and_the_prompt_send_only_the_branchs_version_on_the_branch(
    tmp_path: Path,
) -> None:
    repo = two_versions(tmp_path)
    opening = start(repo, "chat-feat-1")
    assert "PostgreSQL 16" in opening and "PostgreSQL 15" not in opening
    asked = prompt(repo, "chat-feat-2")  # a chat that was shown nothing yet
    assert "PostgreSQL 16" in asked and "PostgreSQL 15" not in asked
    tool = pre_tool("chat-feat-3", repo, "Edit", {"file_path": str(repo / "db" / "schema.sql")})
    assert tool is not None and "PostgreSQL 16" in tool and "PostgreSQL 15" not in tool


def test_main_keeps_its_version_until_the_branch_is_merged(tmp_path: Path) -> None:
    repo = two_versions(tmp_path)
    git(repo, "checkout", "-q", "main")
    opening = start(repo, "chat-main-1")
    assert "PostgreSQL 15" in opening and "PostgreSQL 16" not in opening
    asked = prompt(repo, "chat-main-2")
    assert "PostgreSQL 15" in asked and "PostgreSQL 16" not in asked
    tool = pre_tool("chat-main-3", repo, "Edit", {"file_path": str(repo / "db" / "schema.sql")})
    assert tool is not None and "PostgreSQL 15" in tool and "PostgreSQL 16" not in tool

    git(repo, "merge", "-q", "--no-ff", "-m", "merge feat-pg16", "feat-pg16")
    opening = start(repo, "chat-main-4")
    assert "PostgreSQL 16" in opening and "PostgreSQL 15" not in opening
    asked = prompt(repo, "chat-main-5")
    assert "PostgreSQL 16" in asked and "PostgreSQL 15" not in asked
