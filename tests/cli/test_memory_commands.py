"""`cms recall/remember/forget/list/stats/export/import/gc` as a user runs them (subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.observations.gitrepo import commit_file, git, make_repo

ROOT = Path(__file__).resolve().parents[2]


def cms(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
    )


def ok(*args: str, env: dict[str, str] | None = None) -> str:
    result = cms(*args, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_remember_then_recall_on_the_branch_it_belongs_to(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    where = ("--cwd", str(repo))
    assert (
        ok(
            "remember",
            "--kind",
            "decision",
            "--title",
            "Use pnpm workspaces",
            "--body",
            "npm hoisting broke shared types",
            "--files",
            "package.json",
            "--importance",
            "4",
            *where,
        ).strip()
        == "remembered O1"
    )
    assert (
        ok(
            "remember",
            "--kind",
            "decision",
            "--title",
            "Use pnpm workspaces",
            "--body",
            "npm hoisting broke shared types",
            *where,
        ).strip()
        == "already remembered as O1"
    )
    line = ok("recall", "why pnpm workspaces", *where).strip()
    assert line.startswith("O1 [decision \u00b7 just now] Use pnpm workspaces \u2014 npm hoisting")
    data = json.loads(ok("recall", "pnpm", "--json", *where))
    assert [(d["id"], d["branch"], d["files"], d["visibility"]) for d in data] == [
        (1, "main", ["package.json"], "current")
    ]
    git(repo, "checkout", "-q", "-b", "feat")
    commit_file(repo, "f.txt", "f", "feature")
    ok(
        "remember",
        "--kind",
        "bugfix",
        "--title",
        "pnpm lockfile conflict",
        "--body",
        "regenerate it",
        *where,
    )
    git(repo, "checkout", "-q", "main")
    assert [d["id"] for d in json.loads(ok("recall", "pnpm lockfile", "--json", *where))] == [1]
    assert [
        d["id"] for d in json.loads(ok("recall", "pnpm", "--json", "--kind", "bugfix", *where))
    ] == []


def test_list_forget_and_argument_errors(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    where = ("--cwd", str(folder))
    assert "no observations stored" in ok("list", *where)
    ok("remember", "--title", "first note", *where)
    ok("remember", "--title", "second note", "--session", "s9", *where)
    listed = json.loads(ok("list", "--json", *where))
    assert [(d["id"], d["title"], d["session"]) for d in listed] == [
        (1, "first note", "cli"),
        (2, "second note", "s9"),
    ]
    assert ok("forget", "--session", "s9", *where).strip() == "forgot 1 observation"
    assert ok("forget", "--id", "1", *where).strip() == "forgot 1 observation"
    assert "no observations stored" in ok("list", *where)
    bad = cms("forget", *where)
    assert bad.returncode == 2 and "exactly one of --id, --branch or --session" in bad.stderr
    bad = cms("remember", "--kind", "wish", "--title", "x", *where)
    assert bad.returncode == 2 and "not one of" in bad.stderr


def test_export_then_import_into_another_project(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    ok(
        "remember",
        "--kind",
        "preference",
        "--title",
        "Short answers",
        "--body",
        "no preambles",
        "--cwd",
        str(first),
    )
    ok(
        "remember",
        "--kind",
        "command",
        "--title",
        "Run tests",
        "--body",
        "pytest -q",
        "--cwd",
        str(first),
    )
    for fmt in ("md", "json"):
        out = tmp_path / f"memory.{fmt}"
        assert "exported 2 observations" in ok(
            "export", "--format", fmt, "--output", str(out), "--cwd", str(first)
        )
        report = ok("import", str(out), "--cwd", str(second))
        assert ("2 added" if fmt == "md" else "2 already known") in report
    assert ok("export", "--cwd", str(first)).startswith("# Project memory: one-")
    titles = [d["title"] for d in json.loads(ok("list", "--json", "--cwd", str(second)))]
    assert sorted(titles) == ["Run tests", "Short answers"]


def test_gc_archives_by_the_configured_age_and_importance(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    doc = {
        "format": "cms-observations",
        "version": 1,
        "observations": [
            {
                "kind": "other",
                "title": "old trivia",
                "importance": 1,
                "created_at": "2020-01-01T00:00:00Z",
            },
            {
                "kind": "decision",
                "title": "old but vital",
                "importance": 5,
                "created_at": "2020-01-01T00:00:00Z",
            },
        ],
    }
    (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    ok("import", str(tmp_path / "old.json"), "--cwd", str(folder))
    config = tmp_path / "cms.toml"
    config.write_text(
        "[observations]\nstale_after_days = 30\nstale_max_importance = 2\n", encoding="utf-8"
    )
    env = {"CMS_CONFIG": str(config)}
    plan = ok("gc", "--dry-run", "--cwd", str(folder), env=env)
    assert plan.splitlines()[0] == "would archive O1 'old trivia'"
    assert len(json.loads(ok("list", "--json", "--cwd", str(folder)))) == 2  # nothing changed
    out = ok("gc", "--cwd", str(folder), env=env)
    assert out.splitlines() == [
        "summarising needs a model (CMS_PROVIDER=local); no stale observations share a subject",
        "archived 1 observation not recalled for 30 days with importance <= 2; "
        "folded 0 near-duplicates",
    ]
    assert [d["title"] for d in json.loads(ok("list", "--json", "--cwd", str(folder)))] == [
        "old but vital"
    ]
    assert len(json.loads(ok("list", "--json", "--all", "--cwd", str(folder)))) == 2


def test_stats_reports_observations_maps_and_usage(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    ok("remember", "--kind", "learning", "--title", "FTS5 bm25 is negative", "--cwd", str(folder))
    data = json.loads(ok("stats", "--json", "--cwd", str(folder)))
    assert data["observations"]["live"] == 1
    assert data["observations"]["by_kind"] == {"learning": 1}
    assert data["maps"]["chats"] == 0
    assert "usage" in data
    text = ok("stats", "--cwd", str(folder))
    assert "observations: 1 live, 0 archived, 0 superseded" in text
    assert "maps: 0 chats" in text


def test_store_errors_reach_the_user_as_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    result = cms("import", str(bad), "--cwd", str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.startswith("cms: error: import: not valid JSON")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_recall_in_a_project_without_memory_says_so_and_creates_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    assert "no stored observation matches" in ok("recall", "anything at all", "--cwd", str(folder))
    assert json.loads(ok("recall", "anything", "--json", "--cwd", str(folder))) == []
    assert not list(Path(os.environ["CMS_HOME"]).glob("projects/*/observations.db"))
