"""A scripted fake of the OpenAI Responses API (`POST /v1/responses`, SSE) for the Codex CLI.

Answers each request with one assistant message (queued texts, else "ECHO: <last user text>")
as the event stream Codex reads (response.created, output_item.added, output_text.delta,
output_item.done, response.completed), and records every request. Stdlib only, 127.0.0.1.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ResponsesRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any

    def input_texts(self, role: str | None = None) -> list[str]:
        """The texts of the request's input messages (optionally of one role), in order."""
        texts: list[str] = []
        items = self.body.get("input") if isinstance(self.body, dict) else None
        for item in items or []:
            if not isinstance(item, dict) or item.get("type") != "message":
                continue
            if role is not None and item.get("role") != role:
                continue
            content = item.get("content")
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                texts += [c.get("text", "") for c in content if isinstance(c, dict)]
        return texts

    @property
    def all_text(self) -> str:
        instructions = self.body.get("instructions") if isinstance(self.body, dict) else None
        return "\n".join([instructions or "", *self.input_texts()])


class FakeResponsesServer:
    """`with FakeResponsesServer() as fake:`; point a Codex model provider at fake.base_url."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._replies: deque[str] = deque()
        self._requests: list[ResponsesRequest] = []
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> FakeResponsesServer:
        handler = type("_BoundResponsesHandler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def push(self, *texts: str) -> None:
        with self._lock:
            self._replies.extend(texts)

    @property
    def requests(self) -> list[ResponsesRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def response_requests(self) -> list[ResponsesRequest]:
        return [r for r in self.requests if r.method == "POST" and r.path.endswith("/responses")]

    def _record(self, request: ResponsesRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_text(self, request: ResponsesRequest) -> str:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        users = request.input_texts("user")
        return f"ECHO: {users[-1][-200:] if users else ''}"

    def next_id(self) -> int:
        return next(self._ids)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeResponsesServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _record(self) -> ResponsesRequest:
        raw = self._body() if self.command == "POST" else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = ResponsesRequest(
            self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
        )
        self.fake._record(request)
        return request

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._record()
        if self.path.split("?", 1)[0].endswith("/models"):
            self._send_json(200, {"object": "list", "data": [], "models": []})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        request = self._record()
        if not self.path.split("?", 1)[0].endswith("/responses"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        text = self.fake._next_text(request)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for event in _events(self.fake.next_id(), text):
                data = json.dumps(event)
                self.wfile.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def _events(number: int, text: str) -> list[dict[str, Any]]:
    response_id = f"resp_fake_{number:06d}"
    item_id = f"msg_fake_{number:06d}"
    done_item = {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": max(1, len(text) // 4),
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 100 + max(1, len(text) // 4),
    }
    response = {"id": response_id, "object": "response", "status": "in_progress", "output": []}
    return [
        {"type": "response.created", "response": response},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**done_item, "status": "in_progress", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": item_id,
            "output_index": 0,
            "content_index": 0,
            "delta": text,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [done_item], "usage": usage},
        },
    ]
