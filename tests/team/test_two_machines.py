"""Done-when of the team memory: one PostgreSQL server, two machines with clones of one origin.
A decision made in a chat on A reaches a new chat on B after a sync; B's later change
supersedes it on A; A's user-tier preference stays on A; a secret said on A is in no row."""

from __future__ import annotations

import secrets
import string
from pathlib import Path

import psycopg

from tests.observations.gitrepo import commit_file, git
from tests.team.machines import Machine, origin_repository

DECISION = (
    "We decided to use PostgreSQL 16 for the orders database because we need JSONB and "
    "row-level locks.",
    "Noted: the orders database is PostgreSQL 16, chosen for JSONB and row-level locks.",
)
RULE = (
    "From now on, always start function argument names with 'e_'.",
    "Understood, function argument names will start with 'e_'.",
)
CHANGE = (
    "From now on, start function argument names with 'j_' instead.",
    "Got it: function argument names start with 'j_' from now on.",
)


def canary_token() -> str:
    alphabet = string.ascii_letters + string.digits
    return "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36))


def server_text(url: str) -> str:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT uid, fields::text, coalesce(superseded_by, '') FROM cms_items")
        return "\n".join(" ".join(row) for row in rows)


def test_a_decision_made_on_one_machine_reaches_the_other_and_its_change_comes_back(
    tmp_path: Path, team_url: str
) -> None:
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    b = Machine(tmp_path / "b", origin, team_url)
    token = canary_token()
    a.chat("chat-a-0001", [DECISION, RULE, (f"the deploy token is {token}, use it", "Okay.")])
    a.cms("remember", "--scope", "user", "--kind", "preference", "--title", "Answer me in French")
    assert "pushed" in a.cms("team", "sync").stdout

    b.cms("team", "sync")
    start = b.start("chat-b-0001")
    assert "'e_'" in start
    assert "PostgreSQL 16" in b.cms("search", "which database for orders").stdout
    assert "French" not in start + b.cms("list", "--scope", "user").stdout

    b.chat("chat-b-0002", [CHANGE])
    b.cms("team", "sync")
    a.cms("team", "sync")
    later = a.start("chat-a-0003")
    assert "'j_'" in later and "'e_'" not in later
    on_b = b.start("chat-b-0004")
    assert "'j_'" in on_b and "'e_'" not in on_b

    stored = server_text(team_url)
    assert "PostgreSQL 16" in stored and "'j_'" in stored
    assert token not in stored and token[4:20] not in stored
    assert "French" not in stored


def test_status_names_the_server_without_its_password_and_counts_what_waits(
    tmp_path: Path, team_url: str
) -> None:
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    a.cms("remember", "--kind", "decision", "--title", "Deploy with make deploy ENV=prod")
    before = a.cms("team", "status").stdout
    assert "never synced" in before or "never" in before
    assert "pw-" not in before and "***" in before
    a.cms("team", "sync")
    after = a.cms("team", "status").stdout
    assert "pending: 0 item(s)" in after and "last sync: " in after and "never" not in after


def test_a_decision_on_an_unmerged_branch_of_one_machine_stays_off_the_others_main(
    tmp_path: Path, team_url: str
) -> None:
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    b = Machine(tmp_path / "b", origin, team_url)
    a.cms("remember", "--kind", "decision", "--title", "Releases are tagged from main")
    git(a.repo, "checkout", "-q", "-b", "spike/grpc")
    spike = commit_file(a.repo, "proto.txt", "grpc\n", "spike")
    a.cms("remember", "--kind", "decision", "--title", "Services talk gRPC to each other")
    a.cms("team", "sync")
    b.cms("team", "sync")
    start = b.start("chat-b-main")
    assert "tagged from main" in start
    assert "gRPC" not in start  # the branch exists on A, unmerged: as on A's own main

    git(a.repo, "checkout", "-q", "main")
    git(a.repo, "merge", "-q", "--ff-only", "spike/grpc")
    git(a.repo, "push", "-q", "origin", "main")
    git(b.repo, "pull", "-q", "--ff-only")
    assert git(b.repo, "rev-parse", "HEAD") == spike
    assert "gRPC" in b.start("chat-b-merged")  # merged: its commit is in B's history


def test_with_share_user_your_own_preferences_follow_you_to_the_other_machine(
    tmp_path: Path, team_url: str
) -> None:
    origin = origin_repository(tmp_path)
    a = Machine(tmp_path / "a", origin, team_url)
    b = Machine(tmp_path / "b", origin, team_url)
    for machine in (a, b):
        config = Path(machine.env["CMS_HOME"]) / "cms.toml"
        config.write_text('[team]\nshare_user = true\nuser = "sam@example.com"\n', encoding="utf-8")
    a.cms("remember", "--scope", "user", "--kind", "preference", "--title", "Answer me in French")
    a.cms("team", "sync")
    b.cms("team", "sync")
    assert "French" in b.cms("list", "--scope", "user").stdout
    assert "French" in b.start("chat-b-0001")
    with psycopg.connect(team_url) as conn:
        keys = {row[0] for row in conn.execute("SELECT DISTINCT project FROM cms_items")}
    assert "user:sam@example.com" in keys
