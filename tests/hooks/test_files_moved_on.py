"""Memory that knows the code moved on (issue 33 item 2): an observation that names files records
each file's git blob at capture; when a file changed or vanished since, SessionStart, the prompt
hook, PreToolUse and `cms search` mark its line, and `cms audit` lists it. A file touched but not
changed is not marked. Hooks in process; commands through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cms.hooks.runner import handle_hook
from tests.observations.gitrepo import commit_file, make_repo

ROOT = Path(__file__).resolve().parents[2]


def cms(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )


def hook(event: str, repo: Path, session: str, **fields: object) -> str:
    payload = {"hook_event_name": event, "session_id": session, "cwd": str(repo), **fields}
    reply = handle_hook(event, json.dumps(payload).encode())
    if not reply:
        return ""
    return str(json.loads(reply).get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_items_about_files_that_changed_or_vanished_are_marked_everywhere(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    (repo / "src").mkdir()
    for name in ("db.py", "pay.py", "upload.py"):
        commit_file(repo, f"src/{name}", f"# {name}\nVALUE = 1\n", name)
    for title, kind, name in (
        ("The database port lives in src/db.py", "decision", "db.py"),
        ("Payments are computed in integer cents", "decision", "pay.py"),
        ("Uploads retry three times on a 503", "bugfix", "upload.py"),
    ):
        done = cms("remember", "--kind", kind, "--title", title, "--files", f"src/{name}", cwd=repo)
        assert done.returncode == 0, done.stderr
    (repo / "src" / "db.py").write_text("# db.py\nVALUE = 2\n", encoding="utf-8")
    (repo / "src" / "pay.py").unlink()
    upload = repo / "src" / "upload.py"
    os.utime(upload, (upload.stat().st_atime + 5, upload.stat().st_mtime + 5))  # touched only

    opening = hook("SessionStart", repo, "chat-1", source="startup")
    assert "O1 The database port lives in src/db.py (file changed since: src/db.py)" in opening
    assert "(file gone: src/pay.py)" in opening
    assert "Uploads retry" in opening and "upload.py)" not in opening
    asked = hook("UserPromptSubmit", repo, "chat-2", prompt="which file holds the database port?")
    assert "(file changed since: src/db.py)" in asked
    searched = cms("search", "database port", cwd=repo).stdout
    assert "(file changed since: src/db.py)" in searched

    upload.write_text("# upload.py\nVALUE = 3\n", encoding="utf-8")
    before = hook(
        "PreToolUse", repo, "chat-3", tool_name="Read", tool_input={"file_path": str(upload)}
    )
    assert "Uploads retry" in before and "(file changed since: src/upload.py)" in before

    audit = cms("audit", cwd=repo)
    assert audit.returncode == 1
    assert "file: O1: src/db.py changed since it was stored" in audit.stdout
    assert "file: O2: names src/pay.py, gone" in audit.stdout
    assert "file: O3: src/upload.py changed since it was stored" in audit.stdout
