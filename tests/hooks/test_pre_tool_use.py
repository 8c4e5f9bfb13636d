"""PreToolUse through the hook protocol: before a tool reads or changes a file, or runs a
command, that stored memory names, those few items are injected once per chat; the file notes
the hook reads are kept by the worker."""

from __future__ import annotations

import json
from pathlib import Path

from cms import paths
from cms.hooks.runner import handle_hook
from cms.map.ops import apply_answer
from cms.map.store import edit_map
from cms.observations.access import open_project_memory
from cms.observations.capture import capture_with_outcomes
from cms.observations.model import NewObservation
from cms.worker.projectsync import sync_project_memory, update_file_notes
from tests.hooks.helpers import context_of
from tests.observations.gitrepo import git, make_repo

BUGFIX = NewObservation(
    "bugfix",
    "Upload retries",
    "uploads failed on 503 from the CDN; fixed by retrying three times with backoff",
    files=("src/upload.py",),
)


def pre_tool(session: str, repo: Path, name: str, tool_input: dict[str, object]) -> str | None:
    payload = {
        "session_id": session,
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": name,
        "tool_input": tool_input,
    }
    reply = handle_hook("PreToolUse", json.dumps(payload).encode("utf-8"))
    return None if reply is None else context_of(json.loads(reply), "PreToolUse")


def remember(repo: Path, *items: NewObservation) -> list[int]:
    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:
        outcomes = capture_with_outcomes(memory.store, items, session=None, agent=None, cwd=repo)
    update_file_notes(str(repo))  # what the worker does after every job
    return [o.id for o in outcomes]


def test_a_read_of_a_file_with_a_stored_bugfix_gets_it_once_per_chat(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    (bugfix,) = remember(repo, BUGFIX)
    text = pre_tool("chat-a", repo, "Read", {"file_path": str(repo / "src" / "upload.py")})
    assert text is not None
    assert "[Stored memory about upload.py]" in text
    assert f"O{bugfix} [bugfix] Upload retries — uploads failed on 503" in text
    assert pre_tool("chat-a", repo, "Edit", {"file_path": str(repo / "src/upload.py")}) is None
    assert pre_tool("chat-b", repo, "Edit", {"file_path": "src/upload.py"}) is not None
    assert pre_tool("chat-c", repo, "Read", {"file_path": str(repo / "src/other.py")}) is None


def test_a_rule_about_a_kind_of_file_and_a_command_note_are_found(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    rule, command = remember(
        repo,
        NewObservation("decision", "SQL style", "All *.sql files use lowercase keywords"),
        NewObservation("command", "Run the tests", "pytest -q --maxfail=1"),
    )
    text = pre_tool("chat-a", repo, "Write", {"file_path": str(repo / "db" / "orders.sql")})
    assert text is not None and f"O{rule} " in text
    ran = pre_tool("chat-a", repo, "Bash", {"command": "PYTHONPATH=. pytest tests/unit"})
    assert ran is not None and f"O{command} " in ran and "pytest -q --maxfail=1" in ran
    assert pre_tool("chat-a", repo, "Bash", {"command": "ls -la"}) is None
    assert pre_tool("chat-a", repo, "Glob", {"pattern": "**/*.sql"}) is None  # no file named


def test_a_stored_command_is_recalled_before_a_bash_call_of_that_program_and_subcommand(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "shop")
    deploy, migrate, lint = remember(
        repo,
        NewObservation("command", "Deploys", "Deploy with: make deploy ENV=prod"),
        NewObservation("command", "Migrations", "Run `alembic upgrade head` after pulling"),
        NewObservation("command", "Lint", "make lint before every push"),
    )
    ran = pre_tool("chat-a", repo, "Bash", {"command": "cd api && make deploy ENV=staging"})
    assert ran is not None and "[Stored memory about make deploy]" in ran
    assert f"O{deploy} [command] Deploys" in ran and f"O{lint} " not in ran
    assert pre_tool("chat-a", repo, "Bash", {"command": "make deploy ENV=prod"}) is None  # once
    upgraded = pre_tool("chat-a", repo, "Bash", {"command": "alembic upgrade +1"})
    assert upgraded is not None and f"O{migrate} " in upgraded
    assert pre_tool("chat-a", repo, "Bash", {"command": "alembic history"}) is None
    assert pre_tool("chat-a", repo, "Bash", {"command": "make test"}) is None


def test_a_chat_fact_that_names_a_path_is_found_by_a_tail_of_the_path(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    fact = "The secret patterns live in transcripts/redact_rules.py and compile on first use"

    def change(cmap):  # type: ignore[no-untyped-def]
        ops = {"ops": [{"op": "add_sun", "title": "Redaction",
                        "planets": [{"title": "Patterns", "sats": [fact]}]}]}  # fmt: skip
        report = apply_answer(cmap, ops)
        return report, report.changed

    edit_map(paths.map_path("chat-a"), change, session_id="chat-a", project="p")
    sync_project_memory("chat-a", str(repo), "claude_code")
    update_file_notes(str(repo))
    path = repo / "cms" / "transcripts" / "redact_rules.py"
    text = pre_tool("chat-b", repo, "Read", {"file_path": str(path)})
    assert text is not None and fact in text and "[Redaction > Patterns]" in text


def test_memory_of_another_branch_and_superseded_items_stay_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    git(repo, "checkout", "-q", "-b", "feature-x")
    remember(repo, BUGFIX)
    git(repo, "checkout", "-q", "main")
    assert pre_tool("chat-a", repo, "Read", {"file_path": "src/upload.py"}) is None
    old, new = remember(
        repo,
        NewObservation("decision", "Upload client", "src/upload.py uses requests"),
        NewObservation("decision", "Upload client", "src/upload.py uses httpx from now on"),
    )
    text = pre_tool("chat-a", repo, "Read", {"file_path": "src/upload.py"})
    assert text is not None and f"O{new} " in text and f"O{old} " not in text


def test_without_notes_or_with_broken_notes_the_hook_says_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    assert pre_tool("chat-a", repo, "Read", {"file_path": "src/upload.py"}) is None
    remember(repo, BUGFIX)
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    notes = Path(paths.project_dir(memory.project.id)) / "file-notes.json"
    memory.close()
    notes.write_text("{not json", encoding="utf-8")
    assert pre_tool("chat-a", repo, "Read", {"file_path": "src/upload.py"}) is None
