"""The observe model names what a new observation replaces, among the related items in force it
was offered; code checks the ids and marks the old ones superseded (the official SDK against the
fake Messages API, a real store and git repository)."""

from __future__ import annotations

import json
from pathlib import Path

from cms.config import parse_config
from cms.observations.access import open_project_memory
from cms.observations.capture import capture_observations
from cms.observations.model import NewObservation
from cms.worker.capture import run_capture
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.hooks.helpers import turn_lines, write_transcript
from tests.observations.gitrepo import make_repo

SESSION = "chat-replace-0002"


def project_with_rules(tmp_path: Path) -> tuple[Path, list[int]]:
    repo = make_repo(tmp_path / "ledger")
    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:
        ids = capture_observations(
            memory.store,
            [
                NewObservation("decision", "Staging database port", "Staging Postgres: 5433."),
                NewObservation("decision", "Reporting database port", "Reporting DB: 5440."),
            ],
            session="chat-replace-0001",
            agent=None,
            cwd=repo,
        )
    return repo, ids


def capture(tmp_path: Path, repo: Path, api: FakeAnthropicServer, answer: object) -> str:
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [
            turn_lines(
                SESSION,
                1,
                "ops put the staging database port behind pgbouncer, it's 6543 now",
                "Updated config/staging.env to port 6543.",
            )
        ],
    )
    api.push(json.dumps(answer))
    config = parse_config({"provider": {"mode": "anthropic", "max_retries": 0}})
    return run_capture(SESSION, {"cwd": str(repo), "transcript": str(transcript)}, config)


def test_an_observation_that_names_an_offered_rule_supersedes_it(
    tmp_path: Path, api: FakeAnthropicServer
) -> None:
    repo, (staging, reporting) = project_with_rules(tmp_path)
    answer = [
        {
            "kind": "decision",
            "title": "Pgbouncer in front of staging Postgres",
            "body": "Connections go through pgbouncer on 6543 now.",
            "replaces": [f"O{staging}"],
        }
    ]
    summary = capture(tmp_path, repo, api, answer)
    assert "replaced=1" in summary
    assert f"O{staging}: " in api.message_requests[0].all_text  # offered by id
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        old, other = memory.store.get(staging), memory.store.get(reporting)
        assert old is not None and other is not None
        new = memory.store.get(old.superseded_by or 0)
        assert new is not None and "6543" in new.body
        assert other.superseded_by is None  # a distinct subject stays in force


def test_an_id_that_was_not_offered_retires_nothing(
    tmp_path: Path, api: FakeAnthropicServer
) -> None:
    repo, (staging, reporting) = project_with_rules(tmp_path)
    answer = [
        {
            "kind": "decision",
            "title": "Pgbouncer in front of staging Postgres",
            "body": "Connections go through pgbouncer on 6543 now.",
            "replaces": ["O999", "somechat/F1"],
        }
    ]
    assert "replaced=0" in capture(tmp_path, repo, api, answer)
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        assert all(memory.store.get(i).superseded_by is None for i in (staging, reporting))  # type: ignore[union-attr]
