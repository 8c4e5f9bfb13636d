"""Summarising stale observations with a model (`cms gc`): the official SDK against the fake
Messages API. A usable answer becomes one observation linked both ways with its originals
archived; a bad one leaves its group as it was; a failed call or a spent budget stops calling."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cms.config import Config, parse_config
from cms.observations.model import NewObservation, Observation
from cms.observations.store import ObservationStore
from cms.observations.summaries import SummaryGroup, summary_groups
from cms.observations.upkeep import stale_observations
from cms.providers.anthropic_api import AnthropicProvider
from cms.providers.usage import record_usage, summarize_usage
from cms.worker.summarise import APART, LEFT, SUMMARISED, GroupOutcome, summarise_groups
from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply

NOW = 400 * 86400.0
RELEASE = [
    ("Release tagging", "Tags are vX.Y.Z on main.", ("RELEASING.md",)),
    (
        "Changelog tool",
        "git-cliff writes it from conventional commits.",
        ("RELEASING.md", "cliff.toml"),
    ),
    ("Artifact signing", "cosign signs every wheel before upload.", ("RELEASING.md",)),
]
FLAKY = [
    ("Flaky tests in CI", "Retry the upload step once.", ()),
    ("CI: flaky upload test", "The S3 mock needs AWS_DEFAULT_REGION.", ()),
]
SUMMARY = {"title": "Release process", "body": "Tags vX.Y.Z on main; git-cliff; cosign."}


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        yield server


def make_config(**provider: Any) -> Config:
    return parse_config({"provider": {"mode": "anthropic", "max_retries": 0, **provider}})


def planned(
    tmp_path: Path, *subjects: list[tuple[str, str, tuple[str, ...]]]
) -> tuple[ObservationStore, list[SummaryGroup]]:
    store = ObservationStore(tmp_path / "o.db", "proj")
    created = 0.0
    for subject in subjects:
        for title, body, files in subject:
            created += 1
            store.add(NewObservation("learning", title, body, files, 1), created_at=created)
    stale = stale_observations(store, now=NOW, stale_after_days=90, max_importance=2)
    return store, summary_groups(stale)


def run(
    store: ObservationStore, groups: list[SummaryGroup], config: Config | None = None
) -> tuple[list[GroupOutcome], list[str]]:
    config = config or make_config()
    lines: list[str] = []
    outcomes = summarise_groups(
        store,
        groups,
        AnthropicProvider(config.provider),
        config,
        project="proj",
        report=lines.append,
    )
    return outcomes, lines


def live(store: ObservationStore) -> list[Observation]:
    return store.list_observations()


def test_a_group_becomes_one_observation_linked_both_ways(
    tmp_path: Path, api: FakeAnthropicServer
) -> None:
    store, groups = planned(tmp_path, RELEASE)
    api.push(FakeReply(json.dumps(SUMMARY), input_tokens=120, output_tokens=30))
    outcomes, lines = run(store, groups, make_config(summarise_model="claude-summary-model"))
    ((group, status, summary_id),) = [(o.group, o.status, o.summary_id) for o in outcomes]
    assert status == SUMMARISED and summary_id is not None
    assert lines == [
        "summarised O1 'Release tagging', O2 'Changelog tool', O3 'Artifact signing' "
        f"into O{summary_id} 'Release process'"
    ]
    (summary,) = live(store)
    assert (summary.id, summary.title, summary.body) == (summary_id, *SUMMARY.values())
    assert summary.files == ("RELEASING.md", "cliff.toml")
    archived = [o for o in store.list_observations(include_archived=True) if o.id != summary_id]
    assert [(o.id, o.summarised_into) for o in archived] == [(i, summary_id) for i in group.ids]
    assert all(o.archived_at is not None for o in archived)
    request = api.message_requests[0]
    assert request.body["model"] == "claude-summary-model"
    assert "You keep the long-term memory of a software project small" in request.all_text
    for title, body, _files in RELEASE:
        assert title in request.all_text and body in request.all_text
    assert "O1 (1970-01-01, importance 1)" in request.all_text


def test_the_token_usage_of_a_summary_is_recorded(tmp_path: Path, api: FakeAnthropicServer) -> None:
    store, groups = planned(tmp_path, RELEASE)
    api.push(FakeReply(json.dumps(SUMMARY), input_tokens=120, output_tokens=30))
    run(store, groups)
    usage = summarize_usage()
    assert usage["total"] == {"calls": 1, "input_tokens": 120, "output_tokens": 30}
    assert [(p["purpose"], p["calls"]) for p in usage["by_purpose"]] == [("summarise", 1)]
    assert [p["project"] for p in usage["by_project"]] == ["proj"]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("I would rather not.", "not JSON"),
        (json.dumps({"title": "Release process"}), "'body' is a required property"),
        (
            json.dumps({"title": "Release", "body": "x" * 1201}),
            "body is longer than 1200 characters",
        ),
        (json.dumps({**SUMMARY, "kind": "decision"}), "is not the group's kind 'learning'"),
        (json.dumps({"title": "Release", "body": "word " * 40}), "longer than what it summarises"),
        (json.dumps(["Release process"]), "not a JSON object"),
    ],
)
def test_a_malformed_answer_leaves_its_group_as_it_was_and_says_why(
    tmp_path: Path, api: FakeAnthropicServer, answer: str, reason: str
) -> None:
    store, groups = planned(tmp_path, FLAKY, RELEASE)
    flaky, _release = groups
    api.push(answer, json.dumps(SUMMARY))  # the next group is still asked
    outcomes, lines = run(store, groups)
    assert [o.status for o in outcomes] == [LEFT, SUMMARISED]
    assert len(lines) == 2 and lines[0].startswith(f"cms: warning: left {flaky.names()} as")
    assert "summarise answer unusable" in lines[0] and reason in lines[0]
    still = [o.id for o in live(store)]
    assert still[: len(flaky.ids)] == flaky.ids  # untouched: live, unlinked
    assert all(o.summarised_into is None for o in live(store))


def test_no_common_subject_keeps_the_group_apart_and_writes_nothing(
    tmp_path: Path, api: FakeAnthropicServer
) -> None:
    store, groups = planned(tmp_path, RELEASE)
    api.push(json.dumps({"skip": "three different release steps"}))
    outcomes, lines = run(store, groups)
    assert [o.status for o in outcomes] == [APART]
    assert lines == [
        "kept O1, O2, O3 apart (the model sees no common subject: three different release "
        "steps); archived one by one"
    ]
    assert [o.id for o in live(store)] == [1, 2, 3]


def test_a_failed_call_stops_calling_and_leaves_every_group_as_it_was(
    tmp_path: Path, api: FakeAnthropicServer
) -> None:
    store, groups = planned(tmp_path, FLAKY, RELEASE)
    api.push(FakeReply.error(500, "upstream broke"), json.dumps(SUMMARY))
    outcomes, lines = run(store, groups)
    assert [o.status for o in outcomes] == [LEFT, LEFT]
    assert len(api.message_requests) == 1
    assert lines == [
        "cms: warning: left O1, O2 as they were: anthropic API HTTP 500: upstream broke",
        "cms: warning: model calls stopped: 1 more group (3 observations) left as they were "
        "for the next gc",
    ]
    assert len(live(store)) == 5


def test_a_spent_daily_budget_calls_nothing(tmp_path: Path, api: FakeAnthropicServer) -> None:
    store, groups = planned(tmp_path, RELEASE)
    record_usage(
        provider="anthropic",
        model="m",
        project="proj",
        purpose="update",
        input_tokens=90,
        output_tokens=20,
        when=datetime.now(UTC),
    )
    outcomes, lines = run(store, groups, make_config(daily_token_budget=100))
    assert [o.status for o in outcomes] == [LEFT]
    assert api.message_requests == []
    assert "daily token budget of 100 spent" in lines[0]
    assert len(live(store)) == 3


def test_a_secret_in_the_answer_is_never_stored(tmp_path: Path, api: FakeAnthropicServer) -> None:
    store, groups = planned(tmp_path, RELEASE)
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    api.push(json.dumps({"title": "Release process", "body": f"Push tags with {secret}."}))
    outcomes, _lines = run(store, groups)
    assert [o.status for o in outcomes] == [SUMMARISED]
    (summary,) = live(store)
    assert secret not in summary.body and summary.body.startswith("Push tags with ")
