"""A map update job says how its ops were proposed: by the model, or by the local extractor when
there is none or the daily budget is spent (then the narration rule of offline capture holds)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from cms.config import parse_config
from cms.providers.usage import record_usage
from cms.transcripts.exchange import Exchange, ToolCall
from cms.worker.jobs import exchange_from_dict, exchange_to_dict, run_map_update
from tests.fakes.anthropic_server import FakeAnthropicServer


def test_a_job_run_by_the_local_extractor_because_the_budget_is_spent_is_logged_as_local(
    tmp_path: Path, api: FakeAnthropicServer
) -> None:
    record_usage(
        provider="anthropic",
        model="m",
        project="proj",
        purpose="update",
        input_tokens=90,
        output_tokens=20,
        when=datetime.now(UTC),
    )
    config = parse_config(
        {"provider": {"mode": "anthropic", "max_retries": 0, "daily_token_budget": 100}}
    )
    exchange = Exchange(
        user="We decided to keep sessions in Redis 7. Please note it.",
        assistant="Decision recorded: sessions live in Redis 7; updated src/session.py.",
        turn=1,
    )
    payload = {"exchange": exchange_to_dict(exchange), "project": "proj", "cwd": str(tmp_path)}
    summary = run_map_update("chat-budget-1", payload, config)
    assert "via=local" in summary and "accepted=0" not in summary
    assert api.message_requests == []


def test_a_job_the_model_answered_is_logged_with_the_models_name(
    tmp_path: Path, api: FakeAnthropicServer
) -> None:
    config = parse_config({"provider": {"mode": "anthropic", "max_retries": 0}})
    sats = ["Sessions live in Redis 7."]
    ops = [{"op": "add_sun", "title": "Storage", "planets": [{"title": "Sessions", "sats": sats}]}]
    api.push(json.dumps({"ops": ops}))
    exchange = Exchange(user="Keep sessions in Redis 7.", assistant="Noted.", turn=1)
    payload = {"exchange": exchange_to_dict(exchange), "project": "proj", "cwd": str(tmp_path)}
    assert "via=anthropic" in run_map_update("chat-model-1", payload, config)


def test_what_an_edit_replaced_survives_the_job_and_odd_pairs_are_dropped() -> None:
    tool = ToolCall("Edit", "a.env", replaced=(("port=5433", "port=6543"),))
    stored = exchange_to_dict(Exchange(user="u", assistant="a", tools=(tool,)))
    assert exchange_from_dict(stored).tools[0].replaced == (("port=5433", "port=6543"),)
    stored["tools"][0]["replaced"] = [["only one"], "text", ["a", 1], ["x", "y"]]
    assert exchange_from_dict(stored).tools[0].replaced == (("x", "y"),)
