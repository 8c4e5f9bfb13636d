"""The anthropic provider with the real SDK against the fake server: answers and every failure."""

from __future__ import annotations

import time

import pytest

from cms.errors import ProviderError
from cms.providers.anthropic_api import AnthropicProvider
from cms.providers.model_calls import ask_for_ops
from cms.providers.usage import summarize_usage
from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply

from .conftest import log_lines, make_config

MAP_VIEW = "S1 Storage\n  P2 Database choice (mass 1)\n    F3 SQLite chosen for the usage file"
EXCHANGE = "User: use WAL mode.\nAssistant: Done; the usage DB now runs in WAL mode."


def _ask(config, reasons=None):  # type: ignore[no-untyped-def]
    provider = AnthropicProvider(config.provider)
    return ask_for_ops(
        provider,
        config,
        map_view=MAP_VIEW,
        exchange_text=EXCHANGE,
        reasons=reasons,
        project="proj-1",
    )


def test_a_valid_answer_is_parsed_and_the_request_carries_map_exchange_and_prompt(
    api_env: FakeAnthropicServer,
) -> None:
    ops = '{"ops": [{"op": "add_sat", "planet": "P2", "text": "Usage DB runs in WAL mode"}]}'
    api_env.push(ops)
    config = make_config(update_model="claude-test-model", max_tokens=512)
    answer = _ask(config)
    assert answer == {
        "ops": [{"op": "add_sat", "planet": "P2", "text": "Usage DB runs in WAL mode"}]
    }
    (request,) = api_env.message_requests
    assert request.body["model"] == "claude-test-model"
    assert request.body["max_tokens"] == 512
    assert "F3 SQLite chosen for the usage file" in request.all_text
    assert "use WAL mode" in request.all_text
    assert "sun" in str(request.body["system"]) and "inc_mass" in str(request.body["system"])


def test_a_prose_wrapped_fenced_answer_is_parsed(api_env: FakeAnthropicServer) -> None:
    api_env.push(
        'Here are the ops:\n```json\n{"ops": [{"op": "inc_mass", "planet": "P2"}]}\n```\nDone.'
    )
    assert _ask(make_config()) == {"ops": [{"op": "inc_mass", "planet": "P2"}]}


def test_the_retry_request_carries_the_rejection_reasons(api_env: FakeAnthropicServer) -> None:
    api_env.push('{"ops": []}')
    reasons = ["op 1 add_sat: unknown planet P99", "op 2 replace_sat: text longer than 200"]
    _ask(make_config(), reasons=reasons)
    text = api_env.message_requests[0].all_text
    assert "unknown planet P99" in text and "text longer than 200" in text


def test_an_auth_token_with_base_url_is_sent_as_bearer(
    server: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-compat-1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    server.push('{"ops": []}')
    assert _ask(make_config()) == {"ops": []}
    assert server.message_requests[0].headers["authorization"] == "Bearer tok-compat-1"


def test_each_call_records_its_usage_per_project(api_env: FakeAnthropicServer) -> None:
    api_env.push(
        FakeReply('{"ops": []}', input_tokens=120, output_tokens=8),
        FakeReply('{"ops": []}', input_tokens=100, output_tokens=5),
    )
    config = make_config()
    _ask(config)
    _ask(config)
    summary = summarize_usage(config)
    assert summary["total"] == {"calls": 2, "input_tokens": 220, "output_tokens": 13}
    assert summary["by_project"][0]["project"] == "proj-1"
    assert summary["by_purpose"][0]["purpose"] == "update"
    assert summary["budget"]["spent_today"] == 233


FAILURES = {
    "not_json": [FakeReply("I could not find anything worth storing.")],
    "http_500": [FakeReply.error(500, "internal trouble")] * 2,
    "http_429": [FakeReply.error(429, "rate limited")] * 2,
    "timeout": [FakeReply('{"ops": []}', delay=4.0)] * 2,
    "never_answers": [FakeReply(hang=True)] * 2,
    "slow_stream": [FakeReply('{"ops": []}', event_delay=0.5)] * 2,
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_every_failure_raises_provider_error_in_time_with_one_log_line(
    api_env: FakeAnthropicServer, case: str
) -> None:
    api_env.push(*FAILURES[case])
    config = make_config(timeout_seconds=1, max_retries=1)
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        _ask(config)
    elapsed = time.monotonic() - started
    # Loose: two attempts of one second plus the SDK's back-off and a busy machine.
    assert elapsed < 1 * (1 + 1) + 10
    assert "\n" not in str(caught.value)
    assert len(log_lines("provider_error")) == 1
    assert str(caught.value) in log_lines("provider_error")[0]


def test_http_errors_are_retried_the_configured_number_of_times(
    api_env: FakeAnthropicServer,
) -> None:
    api_env.push(FakeReply.error(500), FakeReply.error(500), FakeReply('{"ops": []}'))
    assert _ask(make_config(max_retries=2)) == {"ops": []}
    assert len(api_env.message_requests) == 3
    api_env.push(FakeReply.error(500), FakeReply('{"ops": []}'))
    with pytest.raises(ProviderError, match="HTTP 500"):
        _ask(make_config(max_retries=0))


def test_missing_credentials_fail_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = AnthropicProvider(make_config().provider)
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        provider.complete(system="s", prompt="p", model="m", max_tokens=64)


def test_an_unreachable_server_is_a_provider_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeAnthropicServer() as gone:
        url = gone.url
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    with pytest.raises(ProviderError, match="cannot reach"):
        _ask(make_config(max_retries=0))


def test_secrets_in_the_exchange_never_reach_the_model(api_env: FakeAnthropicServer) -> None:
    secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh"
    api_env.push('{"ops": []}')
    config = make_config()
    ask_for_ops(
        AnthropicProvider(config.provider),
        config,
        map_view=MAP_VIEW,
        exchange_text=f"User: my key is {secret}",
        reasons=None,
        project="p",
    )
    request = api_env.message_requests[0]
    assert secret not in request.raw.decode("utf-8")
    assert "my key is" in request.all_text
