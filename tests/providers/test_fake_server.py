"""The fake Messages API server speaks the protocol the SDK and the real CLI expect."""

from __future__ import annotations

import http.client
import json
import threading

import anthropic

from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply


def _raw_post(server: FakeAnthropicServer, body: dict[str, object]) -> tuple[int, str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request(
        "POST",
        "/v1/messages?beta=true",
        json.dumps(body),
        {"content-type": "application/json", "x-api-key": "k"},
    )
    response = conn.getresponse()
    data = response.read().decode("utf-8")
    kind = response.getheader("content-type") or ""
    conn.close()
    return response.status, kind, data


def test_stream_sends_the_message_events_in_protocol_order() -> None:
    with FakeAnthropicServer(["hello streaming world"]) as server:
        status, kind, data = _raw_post(
            server, {"model": "m", "max_tokens": 5, "stream": True, "messages": []}
        )
    assert status == 200
    assert kind.startswith("text/event-stream")
    events = [line[len("event: ") :] for line in data.splitlines() if line.startswith("event: ")]
    payloads = [
        json.loads(line[len("data: ") :]) for line in data.splitlines() if line.startswith("data: ")
    ]
    assert [p["type"] for p in payloads] == events
    assert events[0] == "message_start"
    assert events[-2:] == ["message_delta", "message_stop"]
    core = [e for e in events if e != "ping"]
    assert core[1] == "content_block_start" and core[-3] == "content_block_stop"
    text = "".join(p["delta"]["text"] for p in payloads if p["type"] == "content_block_delta")
    assert text == "hello streaming world"


def test_sdk_reads_plain_and_streamed_answers_with_usage() -> None:
    replies = [FakeReply("plain", input_tokens=12, output_tokens=3), FakeReply("streamed")]
    with FakeAnthropicServer(replies) as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0, timeout=5)
        plain = client.messages.create(
            model="claude-x", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
        with client.messages.stream(
            model="claude-y",
            max_tokens=10,
            system="sys",
            messages=[{"role": "user", "content": "there"}],
        ) as stream:
            streamed = stream.get_final_message()
        recorded = server.message_requests
    assert plain.content[0].type == "text" and plain.content[0].text == "plain"
    assert (plain.usage.input_tokens, plain.usage.output_tokens) == (12, 3)
    assert plain.model == "claude-x"
    assert streamed.content[0].type == "text" and streamed.content[0].text == "streamed"
    assert streamed.model == "claude-y"
    assert recorded[1].body["stream"] is True
    headers = recorded[1].headers
    assert headers.get("x-api-key") == "k" or headers.get("authorization") == "Bearer k"
    assert "sys" in recorded[1].all_text and "there" in recorded[1].all_text


def test_tool_use_blocks_stream_as_input_json_deltas() -> None:
    reply = FakeReply.tool_use("Bash", {"command": "echo hi"}, text="running it")
    with FakeAnthropicServer([reply]) as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0, timeout=5)
        with client.messages.stream(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        ) as stream:
            message = stream.get_final_message()
    assert message.stop_reason == "tool_use"
    tool = message.content[1]
    assert tool.type == "tool_use" and tool.name == "Bash" and tool.input == {"command": "echo hi"}


def test_head_probes_answer_200_and_are_recorded() -> None:
    with FakeAnthropicServer() as server:
        for path in ("/", "/api/hello"):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            conn.request("HEAD", path)
            assert conn.getresponse().status == 200
            conn.close()
        assert [(r.method, r.path) for r in server.requests] == [
            ("HEAD", "/"),
            ("HEAD", "/api/hello"),
        ]
        assert server.message_requests == []


def test_error_replies_carry_the_api_error_shape_and_headers() -> None:
    with FakeAnthropicServer(
        [FakeReply.error(429, "slow down", headers={"retry-after": "7"})]
    ) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("POST", "/v1/messages", "{}", {"content-type": "application/json"})
        response = conn.getresponse()
        body = json.loads(response.read())
        conn.close()
    assert response.status == 429
    assert response.getheader("retry-after") == "7"
    assert body == {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}


def test_an_exhausted_script_answers_500_and_a_callable_script_sees_the_request() -> None:
    with FakeAnthropicServer() as server:
        status, _, data = _raw_post(server, {"model": "m", "messages": []})
    assert status == 500 and "script exhausted" in data

    seen: list[str] = []

    def script(request):  # type: ignore[no-untyped-def]
        seen.append(request.body["model"])
        return f"echo {request.body['model']}"

    with FakeAnthropicServer(script) as server:
        status, _, data = _raw_post(server, {"model": "abc", "messages": []})
    assert status == 200 and json.loads(data)["content"][0]["text"] == "echo abc"
    assert seen == ["abc"]


def test_a_hanging_reply_is_released_when_the_server_stops() -> None:
    server = FakeAnthropicServer([FakeReply(hang=True)]).start()
    outcome: list[str] = []

    def call() -> None:
        try:
            _raw_post(server, {"model": "m", "messages": []})
            outcome.append("answered")
        except (OSError, http.client.HTTPException):
            outcome.append("dropped")

    worker = threading.Thread(target=call)
    worker.start()
    worker.join(0.5)
    assert worker.is_alive(), "the hanging reply answered"
    server.stop()
    worker.join(10)
    assert outcome == ["dropped"]
