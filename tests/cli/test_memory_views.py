"""`cms export --format claude-md|agents-md` (what is in force, budgeted, in a marked block that
replaces itself in a committed file and imports back) and `cms export --map` (a chat's map as
Markdown), run as a user runs them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.test_map_commands import SAMPLE
from tests.cli.test_memory_commands import cms, ok


def remember(folder: Path, kind: str, title: str, body: str, importance: str) -> None:
    ok("remember", "--kind", kind, "--title", title, "--body", body,
       "--importance", importance, "--cwd", str(folder))  # fmt: skip


def entries(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_claude_md_holds_what_is_in_force_rules_first_within_the_budget(tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    remember(folder, "decision", "Database", "MySQL 8 for orders", "4")
    remember(folder, "decision", "Database", "PostgreSQL 16 via pgbouncer", "4")  # supersedes
    remember(folder, "command", "Run tests", "pytest -q", "5")
    remember(folder, "preference", "Answers", "short, no preambles", "5")
    detail = {n: " ".join([f"a minor finding number {n}"] * 3) for n in range(30)}
    for n, body in detail.items():
        remember(folder, "learning", f"Detail {n}", body, "1")
    text = ok("export", "--format", "claude-md", "--budget", "400", "--cwd", str(folder))
    lines = entries(text)
    assert "- **Answers** — short, no preambles" in lines
    assert "- **Database** — PostgreSQL 16 via pgbouncer" in lines
    assert "- **Run tests** — pytest -q" in lines
    assert "MySQL" not in text
    assert sum(len(line) + 1 for line in lines) <= 400
    details = [line for line in lines if line.startswith("- **Detail")]
    assert 1 <= len(details) < 30
    whole = {f"- **Detail {n}** — {body}" for n, body in detail.items()}
    assert set(details) <= whole  # entries whole, never cut
    assert text.index("## Preferences") < text.index("## Decisions") < text.index("## Commands")
    assert text.index("## Commands") < text.index("## Learnings")


def test_agents_md_section_replaces_its_earlier_version_and_keeps_the_users_text(
    tmp_path: Path,
) -> None:
    folder, other = tmp_path / "shop", tmp_path / "other"
    folder.mkdir()
    other.mkdir()
    agents = folder / "AGENTS.md"
    agents.write_text("# Agents\n\n- Run `make lint` before committing.\n", encoding="utf-8")
    remember(folder, "decision", "Database", "MySQL 8 for orders", "4")
    ok("export", "--format", "agents-md", "--output", str(agents), "--cwd", str(folder))
    remember(folder, "decision", "Database", "PostgreSQL 16 via pgbouncer", "4")
    remember(folder, "bugfix", "Login loop", "cookie domain was wrong; set it from config", "3")
    ok("export", "--format", "agents-md", "--output", str(agents), "--cwd", str(folder))
    text = agents.read_text(encoding="utf-8")
    assert text.startswith("# Agents\n\n- Run `make lint` before committing.\n\n<!-- cms:memory")
    assert text.count("<!-- cms:memory begin") == 1 and text.count("## Memory") == 1
    assert "MySQL" not in text and "PostgreSQL 16 via pgbouncer" in text
    assert "### Decisions" in text and "### Bug fixes" in text
    report = ok("import", str(agents), "--cwd", str(other))
    assert "2 added" in report
    stored = json.loads(ok("list", "--json", "--cwd", str(other)))
    assert sorted((o["kind"], o["title"], o["body"]) for o in stored) == [
        ("bugfix", "Login loop", "cookie domain was wrong; set it from config"),
        ("decision", "Database", "PostgreSQL 16 via pgbouncer"),
    ]  # the user's own bullet outside the block is not memory


def test_claude_md_written_into_memory_md_imports_back_with_files(tmp_path: Path) -> None:
    folder, other = tmp_path / "shop", tmp_path / "other"
    folder.mkdir()
    other.mkdir()
    ok("remember", "--kind", "bugfix", "--title", "Flaky upload", "--body", "retry on 503",
       "--files", "src/upload.py", "--cwd", str(folder))  # fmt: skip
    out = tmp_path / "MEMORY.md"
    assert "exported 1 observations" in ok(
        "export", "--format", "claude-md", "--output", str(out), "--cwd", str(folder)
    )
    assert "- **Flaky upload** — retry on 503 (files: src/upload.py)" in out.read_text("utf-8")
    ok("import", str(out), "--cwd", str(other))
    (stored,) = json.loads(ok("list", "--json", "--cwd", str(other)))
    assert (stored["title"], stored["body"], stored["files"]) == (
        "Flaky upload", "retry on 503", ["src/upload.py"]
    )  # fmt: skip


def test_export_map_writes_the_chat_map_as_markdown() -> None:
    home = Path(os.environ["CMS_HOME"])
    cms("ops", "apply", "--map", str(home / "chats" / "abc-123" / "map.json"), str(SAMPLE))
    text = ok("export", "--map", "--session", "abc-123")
    assert text.startswith("# Chat abc-123\n")
    assert "### Database choice (P2, mass 3)" in text
    assert (
        "- Use Postgres 16, not DynamoDB: we need joins across orders and users (F3, turn" in text
    )
    missing = cms("export", "--map", "--session", "nope")
    assert missing.returncode == 1 and missing.stderr.startswith("cms: error:")
