"""One fake Anthropic endpoint for both the agent CLI and cms's own model calls, by request kind.

Wraps tests/fakes/anthropic_server.FakeAnthropicServer with a router that tells apart cms's
update, search and observe calls (by their system prompt, prompts/*.md), the CLI's
compaction call (its "summary of the conversation" instruction) and the CLI's main calls, and
answers each from its own script. It only routes and scripts; the HTTP side is the shared fake.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.e2e.clis import REPO
from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply, RecordedRequest

KINDS = ("main", "compact", "update", "search", "observe")
UpdateAnswer = dict[str, Any] | Callable[[RecordedRequest], dict[str, Any]]
COMPACT_SUMMARY = "SUMMARY-MARK-789: the user and the assistant talked about the orders database."


def _first_line(name: str) -> str:
    text = (REPO / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    return next(line.strip() for line in text.splitlines() if line.strip())


PROMPT_MARKS = {name: _first_line(name) for name in ("update", "search", "observe")}


def system_text(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return ""


def message_text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def last_user_text(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return message_text(message)
    return ""


def request_kind(request: RecordedRequest) -> str:
    """main, compact, update, search or observe."""
    system = system_text(request)
    for name, mark in PROMPT_MARKS.items():
        if mark in system:
            return name
    if "summary of the conversation" in last_user_text(request):
        return "compact"
    return "main"


@dataclass
class Routed:
    kind: str
    request: RecordedRequest
    reply: str


class ModelRouter:
    """A FakeAnthropicServer whose answers depend on who is asking.

    main: queued texts, else "ECHO: <last user text>"; compact: an <analysis>/<summary> reply;
    update: queued {"ops": [...]} answers (or callables of the request), else {"ops": []};
    search: queued answers, else "1"; observe: "[]".
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.main: deque[str | FakeReply] = deque()
        self.updates: deque[UpdateAnswer] = deque()
        self.searches: deque[str] = deque()
        self.routed: list[Routed] = []
        self.server = FakeAnthropicServer(self._answer)

    # -- lifecycle ---------------------------------------------------------------------------
    def __enter__(self) -> ModelRouter:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    # -- scripting ---------------------------------------------------------------------------
    def push_main(self, *replies: str | FakeReply) -> None:
        with self._lock:
            self.main.extend(replies)

    def push_update(self, *answers: UpdateAnswer) -> None:
        with self._lock:
            self.updates.extend(answers)

    # -- records -----------------------------------------------------------------------------
    def of(self, kind: str) -> list[RecordedRequest]:
        assert kind in KINDS, kind
        with self._lock:
            return [r.request for r in self.routed if r.kind == kind]

    def kinds(self) -> list[str]:
        with self._lock:
            return [r.kind for r in self.routed]

    def all_bodies(self) -> str:
        """Every recorded request body as text (for "never sent anywhere" checks)."""
        return "\n".join(r.raw.decode("utf-8", "replace") for r in self.server.requests)

    # -- answering -----------------------------------------------------------------------------
    def _answer(self, request: RecordedRequest) -> FakeReply:
        kind = request_kind(request)
        reply = self._reply_for(kind, request)
        text = reply if isinstance(reply, str) else reply.text
        with self._lock:
            self.routed.append(Routed(kind, request, text))
        return FakeReply(text=reply) if isinstance(reply, str) else reply

    def _reply_for(self, kind: str, request: RecordedRequest) -> str | FakeReply:
        queued: str | FakeReply | UpdateAnswer | None = None
        with self._lock:
            queue: deque[Any] | None = {
                "main": self.main,
                "update": self.updates,
                "search": self.searches,
            }.get(kind)
            if queue:
                queued = queue.popleft()
        if kind == "main":
            return queued or f"ECHO: {last_user_text(request)[-200:]}"  # type: ignore[return-value]
        if kind == "compact":
            return f"<analysis>Short chat.</analysis>\n<summary>{COMPACT_SUMMARY}</summary>"
        if kind == "update":
            if queued is None:
                return json.dumps({"ops": []})
            answer = queued(request) if callable(queued) else queued
            return json.dumps(answer)
        if kind == "search":
            return queued or "1"  # type: ignore[return-value]
        return "[]"


def exchange_user_text(request: RecordedRequest) -> str:
    """The USER part of the exchange inside a cms update request (what the model was shown)."""
    prompt = last_user_text(request)
    match = re.search(r"USER:\n(.*?)(?:\n\n(?:TOOL |ASSISTANT:)|</exchange>)", prompt, re.S)
    return match.group(1).strip() if match else ""
