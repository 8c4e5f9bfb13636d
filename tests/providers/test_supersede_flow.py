"""The model path of "what is in force wins": the update model is offered the related items of
earlier chats and supersedes them by id, validated like every other op (real SDK, fake API)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from cms.observations.access import open_project_memory
from cms.search.project import search_project
from cms.supersede import split_supersede
from cms.transcripts.exchange import Exchange
from cms.worker.jobs import exchange_to_dict, run_map_update
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.observations.gitrepo import make_repo

from .conftest import log_lines, make_config

RULE_A = "From now on, always start function argument names with 'e_'."


def _job(session: str, repo: Path, exchange: Exchange) -> dict[str, object]:
    return {"exchange": exchange_to_dict(exchange), "project": "p", "cwd": str(repo)}


def test_the_update_model_supersedes_an_earlier_chats_rule_by_its_id(
    tmp_path: Path, api_env: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo")
    local = make_config(mode="local")
    run_map_update(
        "chat-a", _job("chat-a", repo, Exchange(user=RULE_A, assistant="Noted.", turn=1)), local
    )
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        earlier = search_project(memory, "function argument names", k=5)
    rule_id = next(h.id for h in earlier if not h.is_passage and "'e_'" in h.text)

    api_env.push(
        orjson.dumps(
            {
                "ops": [
                    {
                        "op": "add_sun",
                        "title": "Conventions",
                        "planets": [
                            {
                                "title": "Argument names",
                                "sats": ["The team agreed on a new house style at standup"],
                            }
                        ],
                    },
                    {"op": "supersede", "item": rule_id},
                    {"op": "supersede", "item": "O999"},
                ]
            }
        ).decode()
    )
    change = Exchange(
        user="Let's change the argument prefix: use 'j_' for function arguments now.",
        assistant="Switched: function argument names start with 'j_'.",
        turn=1,
    )
    monkeypatch.delenv("CMS_PROVIDER")
    summary = run_map_update("chat-b", _job("chat-b", repo, change), make_config(mode="anthropic"))

    request = api_env.message_requests[0].all_text
    assert rule_id in request and RULE_A in request  # offered by id, with its text
    assert "superseded=" in summary and "superseded=0" not in summary
    assert "'O999' is not one of the earlier items offered" in "\n".join(log_lines("op_rejected"))
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        texts = [h.text for h in search_project(memory, "function argument names prefix", k=10)]
    assert not any("'e_'" in t for t in texts)  # only the supersede op retired it


def test_a_supersede_op_needs_an_offered_id_and_counts_once() -> None:
    answer = {
        "ops": [
            {"op": "supersede", "item": "O1"},
            {"op": "supersede", "item": "O1"},
            {"op": "supersede", "item": "O2", "text": "x"},
            {"op": "add_sat", "planet": "P1", "text": "kept for the map engine"},
        ]
    }
    rest, accepted, reasons = split_supersede(answer, {"O1": "a rule", "O2": "another"})
    assert accepted == ["O1"]
    assert len(reasons) == 2
    assert rest == {"ops": [{"op": "add_sat", "planet": "P1", "text": "kept for the map engine"}]}


def test_the_update_model_reads_the_value_an_edit_replaced(
    tmp_path: Path, api_env: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cms.transcripts.exchange import ToolCall

    repo = make_repo(tmp_path / "repo")
    api_env.push('{"ops": []}')
    edit = ToolCall("Edit", "config/staging.env", replaced=(("port=5433", "port=6543"),))
    change = Exchange(user="it's on 6543 now", assistant="Updated.", tools=(edit,), turn=1)
    monkeypatch.delenv("CMS_PROVIDER")
    run_map_update("chat-c", _job("chat-c", repo, change), make_config(mode="anthropic"))
    request = api_env.message_requests[0].all_text
    assert "TOOL Edit: config/staging.env\n  replaced: port=5433 -> port=6543" in request
    assert "a tool line's `replaced: old ->" in request  # the prompt says what it means
