"""`cms gc` summarising stale observations with a model, as a user runs it: the `cms` process
talks to the fake Messages API through the official SDK; `cms get` shows the links both ways;
--dry-run calls and writes nothing; without a model it says summarising needs one."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from cms import paths
from cms.providers.usage import summarize_usage
from tests.cli.test_memory_commands import cms, ok
from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply

OLD = "2020-01-01T00:00:00Z"
STALE = [
    ("learning", "Release tagging", "Tags are vX.Y.Z on main.", ["RELEASING.md"]),
    ("learning", "Changelog tool", "git-cliff writes it.", ["RELEASING.md", "cliff.toml"]),
    ("learning", "Artifact signing", "cosign signs every wheel.", ["RELEASING.md"]),
    ("other", "old trivia", "", []),
]
SUMMARY = {"title": "Release process", "body": "Tags vX.Y.Z on main; git-cliff; cosign."}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder whose store holds three stale notes of one subject and one stale trivia."""
    folder = tmp_path / "plain"
    folder.mkdir()
    records = [
        {"kind": k, "title": t, "body": b, "files": f, "importance": 1, "created_at": OLD}
        for k, t, b, f in STALE
    ]
    doc = {"format": "cms-observations", "version": 1, "observations": records}
    (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    assert "4 added" in ok("import", str(tmp_path / "old.json"), "--cwd", str(folder))
    return folder


@pytest.fixture
def api() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        yield server


def model_env(server: FakeAnthropicServer) -> dict[str, str]:
    return {
        "CMS_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "sk-ant-test-0000",
        "ANTHROPIC_BASE_URL": server.url,
    }


def listed(folder: Path, *flags: str) -> list[dict[str, object]]:
    data: list[dict[str, object]] = json.loads(ok("list", "--json", *flags, "--cwd", str(folder)))
    return data


def test_gc_summarises_a_stale_subject_into_one_linked_observation(
    project: Path, api: FakeAnthropicServer
) -> None:
    api.push(FakeReply(json.dumps(SUMMARY), input_tokens=200, output_tokens=40))
    out = ok("gc", "--cwd", str(project), env=model_env(api))
    assert out.splitlines() == [
        "summarised O1 'Release tagging', O2 'Changelog tool', O3 'Artifact signing' into "
        "O5 'Release process'",
        "archived 4 observations not recalled for 90 days with importance <= 2 (3 of them "
        "summarised into 1 new observation); folded 0 near-duplicates",
    ]
    assert [(d["id"], d["title"]) for d in listed(project)] == [(5, "Release process")]
    everything = {d["id"]: d for d in listed(project, "--all")}
    assert len(everything) == 5  # nothing deleted
    assert [everything[i]["summarised_into"] for i in (1, 2, 3, 4)] == [5, 5, 5, None]
    assert "O1 [learning" in ok("list", "--all", "--cwd", str(project))
    assert "[archived] [summarised into O5]" in ok("list", "--all", "--cwd", str(project))

    summary = ok("get", "O5", "--cwd", str(project)).splitlines()
    assert summary[0] == "O5 [learning] (in force)"
    assert "summary of O1, O2, O3 (archived):" in summary
    assert any(line.startswith("  (O2, ") and "Changelog tool" in line for line in summary)
    original = ok("get", "O2", "--cwd", str(project)).splitlines()
    assert original[0] == "O2 [learning] (archived, summarised into O5)"
    data = json.loads(ok("get", "O1", "--json", "--cwd", str(project)))["items"][0]
    assert data["summarised_into"] == "O5"

    usage = summarize_usage()
    assert usage["total"] == {"calls": 1, "input_tokens": 200, "output_tokens": 40}
    assert [p["purpose"] for p in usage["by_purpose"]] == ["summarise"]
    again = ok("gc", "--cwd", str(project), env=model_env(api))  # nothing stale is left
    assert again.splitlines()[-1].startswith("archived 0 observations")
    assert len(api.message_requests) == 1


def test_a_malformed_answer_leaves_the_group_live_with_a_clear_message(
    project: Path, api: FakeAnthropicServer
) -> None:
    api.push("Sure! Here is a summary: releases are tagged.")
    out = ok("gc", "--cwd", str(project), env=model_env(api)).splitlines()
    assert out[0] == (
        "cms: warning: left O1, O2, O3 as they were: summarise answer unusable: not JSON: "
        "Sure! Here is a summary: releases are tagged."
    )
    assert out[1] == (
        "archived 1 observation not recalled for 90 days with importance <= 2; folded 0 "
        "near-duplicates; 3 stale left as they were (see above)"
    )
    assert [d["id"] for d in listed(project)] == [1, 2, 3]
    assert all(d["summarised_into"] is None for d in listed(project, "--all"))


def test_dry_run_prints_the_plan_and_neither_calls_nor_writes(
    project: Path, api: FakeAnthropicServer
) -> None:
    project_id = json.loads(ok("stats", "--json", "--cwd", str(project)))["project"]
    folder = Path(paths.observations_db(project_id)).parent

    def files() -> dict[str, bytes]:  # a read-only open leaves an empty -wal and its -shm
        return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.endswith("-shm")}

    before = files()
    out = ok("gc", "--dry-run", "--cwd", str(project), env=model_env(api))
    assert out.splitlines() == [
        "would summarise O1 'Release tagging', O2 'Changelog tool', O3 'Artifact signing' "
        "(learning) into one new observation",
        "would archive O4 'old trivia'",
        "would archive 4 observations not recalled for 90 days with importance <= 2 (3 of them "
        "to be summarised into 1 new observation, 1 model call); would fold 0 near-duplicates",
    ]
    assert api.requests == []
    after = files()
    assert after.pop("observations.db-wal", b"") == b""
    assert after == before
    assert not os.path.exists(paths.usage_path())


def test_the_local_provider_archives_as_before_and_says_summarising_needs_a_model(
    project: Path,
) -> None:
    plan = ok("gc", "--dry-run", "--cwd", str(project)).splitlines()
    assert plan[:4] == [f"would archive O{i} {STALE[i - 1][1]!r}" for i in (1, 2, 3, 4)]
    assert plan[4] == (
        "summarising needs a model (CMS_PROVIDER=local): 3 stale observations of 1 shared "
        "subject would be archived as they are"
    )
    out = ok("gc", "--cwd", str(project)).splitlines()
    assert out == [
        "summarising needs a model (CMS_PROVIDER=local): 3 stale observations of 1 shared "
        "subject are archived as they are",
        "archived 4 observations not recalled for 90 days with importance <= 2; folded 0 "
        "near-duplicates",
    ]
    assert listed(project) == []
    assert len(listed(project, "--all")) == 4


def test_no_summarise_archives_as_before_without_a_model_call(
    project: Path, api: FakeAnthropicServer
) -> None:
    out = cms("gc", "--no-summarise", "--cwd", str(project), env=model_env(api))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "archived 4 observations not recalled for 90 days with importance <= 2; folded 0 "
        "near-duplicates"
    ]
    assert api.requests == []
    assert len(listed(project, "--all")) == 4
