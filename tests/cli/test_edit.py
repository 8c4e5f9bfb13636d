"""`cms edit` through the real CLI: a corrected version replaces the item, the old one stays as
history marked "corrected by the user", redacted like any input; the editor path uses a real
$EDITOR program; the MCP `correct` tool does the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio

from cms.config import Config
from cms.mcp_server import build_server
from tests.observations.gitrepo import make_repo

ROOT = Path(__file__).resolve().parents[2]
SECRET = "ghp_" + "Q7k2ypojlQI9uOa8Zr4Tn6Wc1Xv5Bm3Ld0Hs"


def cms(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=60,
        check=False,
    )


def test_edit_with_text_stores_a_new_version_and_keeps_the_old_as_history(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    assert (
        cms("remember", "--kind", "decision", "--title", "We use port 5433", cwd=repo).returncode
        == 0
    )
    done = cms(
        "edit",
        "O1",
        "--title",
        "We use port 6543",
        "--text",
        f"pgbouncer, token {SECRET}",
        cwd=repo,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "corrected O1: now O2 (O1 kept as history)"
    item = json.loads(cms("get", "O2", "--json", cwd=repo).stdout)["items"][0]
    assert item["state"] == "in force" and item["title"] == "We use port 6543"
    assert SECRET not in item["body"] and "[REDACTED:" in item["body"]
    assert (
        item["history"][0]["id"] == "O1" and item["history"][0]["reason"] == "corrected by the user"
    )
    old = cms("get", "O1", cwd=repo).stdout
    assert old.startswith("O1 [decision] (superseded by O2 (corrected by the user))")
    recalled = cms("recall", "database port", cwd=repo).stdout
    assert "6543" in recalled and "5433" not in recalled
    again = cms("edit", "O2", "--title", "We use port 6543", cwd=repo)
    assert again.returncode == 1 and "changes nothing" in again.stderr
    gone = cms("edit", "O9", "--text", "x", cwd=repo)
    assert gone.returncode == 1 and gone.stderr.strip() == "cms: error: no item O9 in this memory"


def test_edit_opens_the_users_editor_and_an_emptied_file_stores_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    cms(
        "remember",
        "--kind",
        "preference",
        "--title",
        "Answer in French",
        "--body",
        "always",
        cwd=repo,
    )
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "text = open(path, encoding='utf-8').read()\n"
        "open(path + '.seen', 'w', encoding='utf-8').write(text)\n"
        "open(path, 'w', encoding='utf-8').write(text.replace('French', 'English'))\n",
        encoding="utf-8",
    )
    done = cms("edit", "O1", cwd=repo, env={"VISUAL": f"{sys.executable} {editor}"})
    assert done.returncode == 0, done.stderr
    item = json.loads(cms("get", "O2", "--json", cwd=repo).stdout)["items"][0]
    assert (item["title"], item["body"]) == ("Answer in English", "always")
    emptier = tmp_path / "empty.py"
    emptier.write_text(
        "import sys\nopen(sys.argv[1], 'w').write('# nothing\\n')\n", encoding="utf-8"
    )
    cancelled = cms("edit", "O2", cwd=repo, env={"VISUAL": f"{sys.executable} {emptier}"})
    assert cancelled.returncode == 1 and "nothing stored" in cancelled.stderr
    assert (
        json.loads(cms("get", "O2", "--json", cwd=repo).stdout)["items"][0]["state"] == "in force"
    )


def test_a_preference_of_your_own_is_corrected_in_the_user_tier(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    said = cms(
        "remember", "--scope", "user", "--kind", "preference", "--title", "Call me Sam", cwd=repo
    )
    assert said.returncode == 0, said.stderr
    done = cms("edit", "U1", "--title", "Call me Samantha", cwd=repo)
    assert done.stdout.strip() == "corrected U1: now U2 (U1 kept as history)"
    assert "Call me Samantha" in cms("get", "U2", cwd=tmp_path).stdout


def test_the_mcp_correct_tool_stores_the_users_correction_as_a_new_version(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    cms("remember", "--kind", "decision", "--title", "Deploy with make deploy ENV=prod", cwd=repo)

    async def run() -> tuple[object, object]:
        from mcp import Client

        async with Client(build_server(config=Config(), cwd=repo)) as client:
            empty = await client.call_tool("correct", {"id": 1})
            done = await client.call_tool("correct", {"id": 1, "title": "Deploy with make ship"})
            return empty, done

    empty, done = anyio.run(run)
    assert empty.is_error  # type: ignore[attr-defined]
    assert done.structured_content == {  # type: ignore[attr-defined]
        "project": done.structured_content["project"],  # type: ignore[attr-defined]
        "id": 2,
        "corrected": 1,
        "status": "superseded",
    }
    assert "corrected by the user" in cms("get", "O1", cwd=repo).stdout
