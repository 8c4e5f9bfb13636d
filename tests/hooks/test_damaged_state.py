"""A truncated state file never silences memory (issue 32): each JSON file of a chat and of its
project is cut in half in turn; SessionStart and UserPromptSubmit still inject the project's
decision, and the commands a user would try print one line at most, never a traceback. Hooks
and commands run in process (the process adds nothing here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cms import paths
from cms.entry import main
from cms.hooks.runner import handle_hook
from tests.hooks.helpers import turn_lines, write_transcript
from tests.observations.gitrepo import make_repo

SESSION = "chat-damaged"
DECISION = "Deploys go through make deploy ENV=staging first"


def hook(event: str, repo: Path, **fields: object) -> str:
    payload = {"hook_event_name": event, "session_id": SESSION, "cwd": str(repo), **fields}
    reply = handle_hook(event, json.dumps(payload).encode())
    if not reply:
        return ""
    return str(json.loads(reply).get("hookSpecificOutput", {}).get("additionalContext", ""))


def command(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


def state_files() -> list[Path]:
    folders = [Path(paths.chat_dir(SESSION)), Path(paths.cms_home()) / "projects"]
    return sorted(p for f in folders for p in f.rglob("*.json") if p.is_file())


def test_each_truncated_state_file_leaves_the_projects_memory_reaching_the_chat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CMS_SYNC", "1")
    repo = make_repo(tmp_path / "shop")
    monkeypatch.chdir(repo)
    assert command(capsys, "remember", "--kind", "decision", "--title", DECISION)[0] == 0
    hook("SessionStart", repo, source="startup")
    hook("UserPromptSubmit", repo, prompt="how do we deploy the api?")
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [
            turn_lines(
                SESSION,
                1,
                "We use PostgreSQL 16 on port 5433 for the orders database. How do we deploy?",
                "Noted: PostgreSQL 16 on port 5433. Deploys run `make deploy ENV=staging` first, "
                "then production after the smoke tests pass.",
            )
        ],
    )
    hook("Stop", repo, transcript_path=str(transcript), stop_hook_active=False)
    files = state_files()
    names = {p.name for p in files}
    assert {"map.json"} <= names and len(files) >= 3, names
    for path in files:
        whole = path.read_bytes()
        path.write_bytes(whole[: len(whole) // 2])
        opening = hook("SessionStart", repo, source="resume")
        asked = hook("UserPromptSubmit", repo, prompt="which make target deploys to staging?")
        assert DECISION in opening + asked, f"{path.name} cut in half silenced the memory"
        for args in (
            ("show", "--session", SESSION),
            ("search", "make deploy staging"),
            ("search", "--session", SESSION, "deploy"),
            ("list",),
        ):
            code, printed = command(capsys, *args)
            assert "Traceback" not in printed, (path.name, args, printed)
            assert code == 0 or len(printed.strip().splitlines()) == 1, (path.name, args, printed)
        path.write_bytes(whole)
