"""The update flow with the real anthropic SDK against a fake Messages API on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from cms.errors import ProviderError
from cms.map.model import new_map
from cms.map.ops import apply_ops
from cms.map.store import load_map, save_map
from cms.providers.anthropic_api import AnthropicProvider
from cms.transcripts.cleanup import LAST_RECORD
from cms.transcripts.exchange import Exchange, ToolCall
from cms.worker.update import update_chat_map
from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply

from .conftest import log_lines, make_config

EXCHANGE = Exchange(user="Use Postgres 16 for storage", assistant="Agreed: Postgres 16.", turn=3)


def _seed(path: Path) -> bytes:
    cmap = new_map("chat", "proj")
    apply_ops(cmap, [{"op": "add_sun", "title": "Storage", "planets": [{"title": "Database"}]}])
    save_map(path, cmap)
    return path.read_bytes()


def _run(path: Path, **provider: object):  # type: ignore[no-untyped-def]
    config = make_config(mode="anthropic", **provider)
    return update_chat_map(
        path,
        EXCHANGE,
        config=config,
        session_id="chat",
        project="proj",
        provider=AnthropicProvider(config.provider),
    )


def _ops(*ops: dict[str, object]) -> str:
    return orjson.dumps({"ops": list(ops)}).decode()


def test_valid_ops_from_the_model_are_applied(tmp_path: Path, api_env: FakeAnthropicServer) -> None:
    path = tmp_path / "map.json"
    _seed(path)
    api_env.push(_ops({"op": "add_sat", "planet": "P2", "text": "Postgres 16 is the database"}))
    report = _run(path)
    assert [o.created for o in report.accepted] == [["F3"]]
    fact = load_map(path).find_satellite("F3")
    assert fact is not None and fact[1].text == "Postgres 16 is the database"
    assert fact[1].turn == 3
    body = api_env.message_requests[0].all_text
    assert "P2 Database" in body and "Use Postgres 16 for storage" in body


def test_an_answer_with_some_bad_ops_applies_the_good_ones(
    tmp_path: Path, api_env: FakeAnthropicServer
) -> None:
    path = tmp_path / "map.json"
    _seed(path)
    api_env.push(
        _ops(
            {"op": "add_sat", "planet": "P99", "text": "lost"},
            {"op": "add_sat", "planet": "P2", "text": "kept"},
        )
    )
    report = _run(path)
    assert len(report.accepted) == 1 and len(report.rejected) == 1
    assert len(api_env.message_requests) == 1
    assert "unknown planet P99" in "\n".join(log_lines("op_rejected"))


def test_degenerate_model_ops_are_refused_each_with_its_reason_in_the_log(
    tmp_path: Path, api_env: FakeAnthropicServer
) -> None:
    path = tmp_path / "map.json"
    _seed(path)
    api_env.push(_ops({"op": "add_sat", "planet": "P2", "text": "Postgres 16 is the database"}))
    _run(path)
    api_env.push(
        _ops(
            {
                "op": "add_sun",
                "title": "Db",
                "planets": [{"title": "Again", "sats": ["postgres 16 is the database"]}],
            },
            {"op": "add_sat", "planet": "P2", "text": "x"},
            {"op": "add_sat", "planet": "P2", "text": " ".join(["ops"] * 21)},
            {"op": "add_sat", "planet": "P2", "text": "Pool size is 20"},
        )
    )
    report = _run(path)
    assert [o.index for o in report.accepted] == [4]
    logged = "\n".join(log_lines("op_rejected"))
    assert "already stored as F3" in logged and "too short" in logged
    assert "'ops' repeated" in logged


@pytest.mark.parametrize(
    "first",
    [
        _ops({"op": "add_sat", "planet": "P99", "text": "x"}, {"op": "bogus"}),
        '{"operations": []}',
    ],
)
def test_an_all_bad_answer_is_retried_exactly_once_with_the_reasons(
    tmp_path: Path, api_env: FakeAnthropicServer, first: str
) -> None:
    path = tmp_path / "map.json"
    _seed(path)
    api_env.push(first, _ops({"op": "add_sat", "planet": "P2", "text": "second try"}))
    report = _run(path)
    assert [o.accepted for o in report.outcomes] == [True]
    requests = api_env.message_requests
    assert len(requests) == 2
    retry = requests[1].all_text
    assert ("unknown planet P99" in retry) or ("not {'ops'" in retry)
    assert "unknown planet P99" not in requests[0].all_text


def test_a_second_bad_answer_leaves_the_map_byte_identical(
    tmp_path: Path, api_env: FakeAnthropicServer
) -> None:
    path = tmp_path / "map.json"
    before = _seed(path)
    bad = _ops({"op": "delete_sat", "sat": "F404"})
    api_env.push(bad, bad, bad)
    report = _run(path)
    assert report.all_rejected
    assert len(api_env.message_requests) == 2
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "reply",
    [
        FakeReply("I think you should use Postgres."),
        FakeReply.error(500),
        FakeReply.error(429),
        FakeReply(_ops(), delay=30),
        FakeReply(hang=True),
    ],
    ids=["not-json", "http-500", "http-429", "timeout", "never-answers"],
)
def test_model_failures_leave_the_map_as_it_was(
    tmp_path: Path, api_env: FakeAnthropicServer, reply: FakeReply
) -> None:
    path = tmp_path / "map.json"
    before = _seed(path)
    api_env.push(reply, reply, reply, reply)
    with pytest.raises(ProviderError):
        _run(path, timeout_seconds=2, max_retries=1)
    assert path.read_bytes() == before
    assert len(log_lines("provider_error")) == 1


def test_a_damaged_map_is_set_aside_never_sent_and_the_chat_goes_on(
    tmp_path: Path, api_env: FakeAnthropicServer
) -> None:
    path = tmp_path / "map.json"
    path.write_bytes(b'{"version": 1, "suns": [Damaged')
    api_env.push(_ops({"op": "add_sun", "title": "Storage", "planets": [{"title": "Db"}]}))
    assert _run(path).accepted
    (aside,) = tmp_path.glob("map.json.corrupt-*")
    assert aside.read_bytes() == b'{"version": 1, "suns": [Damaged'
    assert [s.title for s in load_map(path).suns] == ["Storage"]
    assert api_env.message_requests
    assert all("Damaged" not in r.all_text for r in api_env.message_requests)


def _turn(n: int, user: str, assistant: str) -> Exchange:
    return Exchange(user=user, assistant=assistant, turn=n, extra={LAST_RECORD: f"record-{n}"})


def test_a_trivial_turn_makes_no_model_call_and_goes_with_the_next_one(
    tmp_path: Path, api_env: FakeAnthropicServer
) -> None:
    path = tmp_path / "map.json"
    _seed(path)
    config = make_config(mode="anthropic")
    provider = AnthropicProvider(config.provider)

    def run(exchange: Exchange):  # type: ignore[no-untyped-def]
        return update_chat_map(
            path, exchange, config=config, session_id="chat", project="proj", provider=provider
        )

    waited = run(_turn(4, "we use bun now", "OK, bun from now on."))
    assert waited.proposed_by == "deferred" and not api_env.message_requests
    assert run(_turn(4, "we use bun now", "OK, bun from now on.")).proposed_by == "deferred"
    api_env.push(_ops({"op": "add_sat", "planet": "P2", "text": "bun is the package manager"}))
    long_answer = "I looked at the lockfiles and the CI config. " * 8
    report = run(_turn(5, "check the lockfiles and the CI config for leftovers", long_answer))
    assert len(report.accepted) == 1 and len(api_env.message_requests) == 1
    sent = api_env.message_requests[0].all_text
    assert sent.count("we use bun now") == 1 and "THE LATEST TURN" in sent
    assert not (tmp_path / "deferred.json").exists()
    again = run(_turn(4, "we use bun now", "OK, bun from now on."))  # a repeated Stop
    assert again.accepted == [] and len(api_env.message_requests) == 1
    assert "trivial_turn_deferred" in "\n".join(log_lines())


def test_a_short_turn_with_a_tool_call_is_not_trivial(
    tmp_path: Path, api_env: FakeAnthropicServer
) -> None:
    path = tmp_path / "map.json"
    _seed(path)
    config = make_config(mode="anthropic")
    api_env.push(_ops({"op": "add_sat", "planet": "P2", "text": "Tests pass on main"}))
    turn = _turn(2, "run the tests", "All green.")
    turn = Exchange(
        user=turn.user,
        assistant=turn.assistant,
        turn=2,
        tools=(ToolCall(name="Bash", input="pytest -q", output="12 passed"),),
        extra=turn.extra,
    )
    report = update_chat_map(
        path,
        turn,
        config=config,
        session_id="chat",
        project="proj",
        provider=AnthropicProvider(config.provider),
    )
    assert len(report.accepted) == 1 and len(api_env.message_requests) == 1
