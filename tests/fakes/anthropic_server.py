"""A scripted fake of the Anthropic Messages API on 127.0.0.1, for the SDK and the real CLI.

Answers `POST /v1/messages` (streaming SSE or plain JSON, as the request asks) from a script:
a queue of replies or a callable. Replies can be HTTP errors, slow, or hang until the server
stops. Every request is recorded (method, path, headers, body). Stdlib only; one thread.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class FakeReply:
    """One scripted answer. `text` becomes one text block unless `blocks` is given."""

    text: str = ""
    status: int = 200
    message: str = ""  # error message for status != 200
    blocks: list[dict[str, Any]] | None = None  # content blocks (text / tool_use)
    raw_body: bytes | None = None  # sent verbatim (any status), e.g. a broken body
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering
    hang: bool = False  # never answer (the connection is dropped when the server stops)
    event_delay: float = 0.0  # seconds between SSE events (a slow stream)
    input_tokens: int | None = None  # default: request size / 4
    output_tokens: int | None = None  # default: text size / 4
    stop_reason: str = "end_turn"
    model: str | None = None  # default: the requested model

    @classmethod
    def error(cls, status: int, message: str = "", **kwargs: Any) -> FakeReply:
        return cls(status=status, message=message or f"fake error {status}", **kwargs)

    @classmethod
    def tool_use(
        cls, name: str, tool_input: dict[str, Any], text: str = "", **kwargs: Any
    ) -> FakeReply:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks.append({"type": "tool_use", "name": name, "input": tool_input})
        return cls(blocks=blocks, stop_reason="tool_use", **kwargs)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    raw: bytes
    body: Any  # parsed JSON, or None
    received: float = field(default_factory=time.monotonic)  # when it arrived (this process)

    @property
    def all_text(self) -> str:
        """The system prompt and every text of every message, joined (for assertions)."""
        if not isinstance(self.body, dict):
            return self.raw.decode("utf-8", "replace")
        parts: list[str] = []
        _collect_text(self.body.get("system"), parts)
        for message in self.body.get("messages") or []:
            if isinstance(message, dict):
                _collect_text(message.get("content"), parts)
        return "\n".join(parts)


def _collect_text(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(value)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                _collect_text(item.get("text"), parts)
                _collect_text(item.get("content"), parts)
            else:
                _collect_text(item, parts)


Script = Iterable[FakeReply | str] | Callable[[RecordedRequest], FakeReply | str | None]


class FakeAnthropicServer:
    """Start with `with FakeAnthropicServer([...]) as server:`; point clients at server.url."""

    def __init__(self, script: Script | None = None, *, default: FakeReply | str | None = None):
        self._lock = threading.Lock()
        self._queue: deque[FakeReply | str] = deque()
        self._callable: Callable[[RecordedRequest], FakeReply | str | None] | None = None
        if callable(script):
            self._callable = script
        elif script is not None:
            self._queue.extend(script)
        self._default = default
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeAnthropicServer:
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- script and records --------------------------------------------------------------------
    def push(self, *replies: FakeReply | str) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def message_requests(self) -> list[RecordedRequest]:
        """Only the model calls (POST /v1/messages, any query string)."""
        return [
            r
            for r in self.requests
            if r.method == "POST" and r.path.split("?", 1)[0] == "/v1/messages"
        ]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_reply(self, request: RecordedRequest) -> FakeReply:
        reply: FakeReply | str | None = None
        if self._callable is not None:
            reply = self._callable(request)
        else:
            with self._lock:
                if self._queue:
                    reply = self._queue.popleft()
        if reply is None:
            reply = self._default
        if reply is None:
            return FakeReply.error(500, "fake server: script exhausted")
        return FakeReply(text=reply) if isinstance(reply, str) else reply

    def next_id(self) -> int:
        return next(self._ids)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeAnthropicServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    # -- plumbing --------------------------------------------------------------------------------
    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _recorded(self) -> RecordedRequest:
        raw = self._read_body() if self.command in ("POST", "PUT", "PATCH") else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
            body=body,
        )
        self.fake._record(request)
        return request

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", f"req_fake_{self.fake.next_id()}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    # -- verbs -----------------------------------------------------------------------------------
    def do_HEAD(self) -> None:
        self._recorded()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._recorded()
        if self.path in ("/", "/api/hello"):
            self._send_json(200, {"ok": True})
        else:
            self._send_json(404, _error_body(404, f"no route {self.path}"))

    def do_POST(self) -> None:
        request = self._recorded()
        route = self.path.split("?", 1)[0]
        try:
            if route == "/v1/messages/count_tokens":
                self._send_json(200, {"input_tokens": max(1, len(request.raw) // 4)})
            elif route == "/v1/messages":
                self._answer_message(request)
            else:
                self._send_json(404, _error_body(404, f"no route {route}"))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _answer_message(self, request: RecordedRequest) -> None:
        reply = self.fake._next_reply(request)
        if reply.hang:
            self.fake.stopping.wait()
            self.close_connection = True
            return
        if reply.delay and self.fake.stopping.wait(reply.delay):
            self.close_connection = True
            return
        if reply.raw_body is not None:
            self._send_json(reply.status, reply.raw_body, reply.headers)
            return
        if reply.status != 200:
            self._send_json(reply.status, _error_body(reply.status, reply.message), reply.headers)
            return
        body = request.body if isinstance(request.body, dict) else {}
        message = self._message(reply, body, request)
        if body.get("stream") is True:
            self._stream(message, reply)
        else:
            self._send_json(200, message, reply.headers)

    def _message(self, reply: FakeReply, body: dict[str, Any], req: RecordedRequest) -> Any:
        blocks = (
            reply.blocks if reply.blocks is not None else [{"type": "text", "text": reply.text}]
        )
        content: list[dict[str, Any]] = []
        for block in blocks:
            block = dict(block)
            if block.get("type") == "tool_use":
                block.setdefault("id", f"toolu_fake_{self.fake.next_id():06d}")
                block.setdefault("input", {})
            content.append(block)
        text_size = sum(
            len(b.get("text", "")) + len(json.dumps(b.get("input", ""))) for b in blocks
        )
        usage = {
            "input_tokens": reply.input_tokens
            if reply.input_tokens is not None
            else max(1, len(req.raw) // 4),
            "output_tokens": reply.output_tokens
            if reply.output_tokens is not None
            else max(1, text_size // 4),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        return {
            "id": f"msg_fake_{self.fake.next_id():06d}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or body.get("model") or "claude-fake",
            "content": content,
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }

    def _stream(self, message: dict[str, Any], reply: FakeReply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", f"req_fake_{self.fake.next_id()}")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        for event in _sse_events(message):
            if reply.event_delay and self.fake.stopping.wait(reply.event_delay):
                return
            name = event["type"]
            self.wfile.write(f"event: {name}\ndata: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _sse_events(message: dict[str, Any]) -> Iterable[dict[str, Any]]:
    """The event sequence of the streaming Messages API for one finished message."""
    usage = message["usage"]
    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    start["usage"] = dict(usage, output_tokens=1)
    yield {"type": "message_start", "message": start}
    yield {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield {"type": "content_block_start", "index": index, "content_block": opening}
            partial = json.dumps(block["input"])
            for piece in _pieces(partial, 3):
                delta = {"type": "input_json_delta", "partial_json": piece}
                yield {"type": "content_block_delta", "index": index, "delta": delta}
        else:
            opening = {"type": "text", "text": ""}
            yield {"type": "content_block_start", "index": index, "content_block": opening}
            for piece in _pieces(block.get("text", ""), 3):
                delta = {"type": "text_delta", "text": piece}
                yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"]},
    }
    yield {"type": "message_stop"}


def _pieces(text: str, count: int) -> list[str]:
    """Split text into at most `count` non-empty pieces (a real stream sends several deltas)."""
    if not text:
        return []
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


def sleep_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll `predicate` until true or `timeout` passes (for tests waiting on the server)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
