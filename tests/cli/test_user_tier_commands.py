"""`--scope user` of remember, list and forget, and the user tier in get, recall, search and stats,
as a user runs them (subprocesses through the entry point)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cms import paths
from tests.observations.gitrepo import make_repo

ROOT = Path(__file__).resolve().parents[2]


def cms(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=cwd,
        timeout=120,
        check=False,
    )


def ok(*args: str, cwd: Path | None = None) -> str:
    result = cms(*args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_remember_list_and_forget_in_the_user_tier(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    where = ("--cwd", str(repo))
    assert ok("list", "--scope", "user").startswith("no preferences stored in the user tier")
    assert not os.path.exists(paths.user_dir())  # reading never creates it
    said = ok("remember", "--scope", "user", "--kind", "preference", "--title", "Call me Sam")
    assert said.strip() == "remembered U1 (yours, every project)"
    mode = stat.S_IMODE(os.stat(paths.user_observations_db()).st_mode)
    assert mode == 0o600 and stat.S_IMODE(os.stat(paths.user_dir()).st_mode) == 0o700
    again = ok("remember", "--scope", "user", "--kind", "preference", "--title", "Call me Sam")
    assert again.strip() == "already remembered as U1 (yours, every project)"
    ok("remember", "--scope", "user", "--title", "Keep your answers short", "--session", "s7")
    ok("remember", "--title", "Use pnpm", *where)  # the project's, not the user's

    lines = ok("list", "--scope", "user", *where).splitlines()
    assert lines == [
        "U1 [preference \u00b7 just now] Call me Sam (yours, every project)",
        "U2 [other \u00b7 just now] Keep your answers short (yours, every project)",
    ]
    listed = json.loads(ok("list", "--scope", "user", "--json"))
    assert [(d["ref"], d["tier"], d["branch"], d["session"]) for d in listed] == [
        ("U1", "user", None, "cli"),
        ("U2", "user", None, "s7"),
    ]
    assert "Use pnpm" in ok("list", *where) and "Call me Sam" not in ok("list", *where)

    assert ok("forget", "--scope", "user", "--session", "s7").strip() == (
        "forgot 1 item of the user tier"
    )
    assert ok("forget", "--scope", "user", "--id", "U1").strip() == (
        "forgot 1 item of the user tier"
    )
    assert ok("list", "--scope", "user").startswith("no preferences stored")
    assert "Use pnpm" in ok("list", *where)  # the project's memory is untouched


@pytest.mark.parametrize(
    "args",
    [
        ("remember", "--scope", "team", "--title", "x"),
        ("list", "--scope", "team"),
        ("forget", "--scope", "global", "--id", "1"),
    ],
)
def test_a_bad_scope_is_one_line(args: tuple[str, ...]) -> None:
    done = cms(*args)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"cms: error: --scope must be project or user, not {args[2]!r}"
    ]
    assert not os.path.exists(paths.user_dir())


def test_user_ids_and_branches_are_told_apart_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    ok("remember", "--scope", "user", "--title", "Call me Sam")
    wrong = cms("forget", "--id", "U1", "--cwd", str(folder))
    assert wrong.returncode == 1
    assert wrong.stderr.strip() == (
        "cms: error: U1 is not an observation id of this project; add --scope user"
    )
    branch = cms("list", "--scope", "user", "--branch", "main")
    assert branch.returncode == 1 and "the user tier has no branches" in branch.stderr
    foreign = cms("forget", "--scope", "user", "--id", "O3")
    assert foreign.returncode == 1 and "not an id of the user tier" in foreign.stderr
    assert "Call me Sam" in ok("list", "--scope", "user")


def test_get_prints_user_items_from_any_folder_beside_project_items(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    ok("remember", "--scope", "user", "--kind", "preference", "--title", "Answers",
       "--body", "Always answer in French.")  # fmt: skip
    ok("remember", "--scope", "user", "--kind", "preference", "--title", "Answers",
       "--body", "From now on, always answer in English.")  # fmt: skip
    ok("remember", "--kind", "decision", "--title", "Use pnpm", "--cwd", str(repo))

    alone = ok("get", "U2", "--cwd", str(empty))  # no project memory there: U ids still work
    assert alone.splitlines() == [
        "U2 [preference, yours, every project] (in force)",
        "Answers",
        "From now on, always answer in English.",
        *alone.splitlines()[3:5],
        *[line for line in alone.splitlines()[5:] if line.startswith("  was (U1, ")],
    ]
    both = json.loads(ok("get", "O1", "U1", "--cwd", str(repo), "--json"))["items"]
    assert [(i["id"], i.get("tier"), i["state"]) for i in both] == [
        ("O1", None, "in force"),
        ("U1", "user", "superseded by U2"),
    ]
    missing = cms("get", "U9", "--cwd", str(repo))
    assert missing.returncode == 1
    assert missing.stderr.strip() == (
        "cms: error: no item U9 in the user tier (its ids look like U12)"
    )


def test_recall_and_search_include_user_items_unless_the_project_overrules_them(
    tmp_path: Path,
) -> None:
    shop, blog = make_repo(tmp_path / "shop"), make_repo(tmp_path / "blog")
    ok("remember", "--scope", "user", "--kind", "preference",
       "--title", "Always answer in French")  # fmt: skip
    ok("remember", "--kind", "decision", "--title", "Use pnpm for installs", "--cwd", str(shop))
    ok("remember", "--kind", "preference", "--title", "In this repo, answer in English",
       "--cwd", str(blog))  # fmt: skip

    lines = ok("recall", "answer in French", "--cwd", str(shop)).splitlines()
    assert lines == [
        "U1 [preference \u00b7 just now] Always answer in French (yours, every project)"
    ]
    data = json.loads(ok("recall", "answer french pnpm", "--json", "--cwd", str(shop)))
    assert sorted((d["id"], d["tier"]) for d in data) == [(1, "project"), (1, "user")]
    found = ok("search", "answer in French", "--json", cwd=shop)
    assert [(r["id"], r["tier"]) for r in json.loads(found)["results"]] == [("U1", "user")]

    here = ok("recall", "answer in French", "--cwd", str(blog))
    assert "U1" not in here and "O1 [preference" in here  # the project's rule wins


def test_stats_counts_the_user_tier(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    assert "user tier (your preferences, every project): none stored yet" in ok(
        "stats", "--cwd", str(repo)
    )
    ok("remember", "--scope", "user", "--kind", "preference", "--title", "Call me Sam")
    text = ok("stats", "--cwd", str(repo))
    assert "user tier (your preferences, every project): 1 live, 0 archived, 0 superseded" in text
    data = json.loads(ok("stats", "--json", "--cwd", str(repo)))
    assert data["observations"] is None and data["user"]["by_kind"] == {"preference": 1}


def test_a_secret_never_reaches_the_user_tier() -> None:
    secret = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    ok("remember", "--scope", "user", "--title", f"Always sign requests with {secret}")
    raw = b"".join(p.read_bytes() for p in Path(paths.user_dir()).glob("observations.db*"))
    assert raw and secret.encode() not in raw
    assert "[REDACTED:" in ok("list", "--scope", "user")
