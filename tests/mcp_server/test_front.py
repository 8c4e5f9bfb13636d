"""The front of `cms mcp`: the handshake and the hook tools are answered without the SDK (a
server whose SDK never loads still answers them), the handshake as the SDK would, and a hook
tool answers what the command hook answers, sharing the chat's injection state with it."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from cms.mcp_server.front import (
    HANDSHAKE_VERSIONS,
    INSTRUCTIONS,
    Front,
    Wire,
    initialize_result,
    package_version,
)
from cms.mcp_server.server import build_server
from tests.hooks.helpers import hook_context, hook_env
from tests.observations.gitrepo import capture, make_repo

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}


class Recorder(Wire):
    def __init__(self) -> None:
        super().__init__(fd=-1)
        self.lines: list[dict[str, Any]] = []

    def line(self, text: str) -> None:
        self.lines.append(json.loads(text))


def call(tool: str, arguments: dict[str, Any], ident: int = 2) -> bytes:
    message = {"jsonrpc": "2.0", "id": ident, "method": "tools/call"}
    return json.dumps({**message, "params": {"name": tool, "arguments": arguments}}).encode()


def test_the_front_answers_the_handshake_and_hooks_while_the_sdk_is_still_loading(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "shop")
    capture(repo, "Orders live in PostgreSQL 16 on port 5433", kind="decision")
    loading = threading.Event()
    replayed: list[str] = []

    def never_ready(read_fd: int, write_line: Callable[[str], None]) -> None:
        with os.fdopen(read_fd, "rb") as pipe:
            replayed.append(pipe.readline().decode())
            loading.wait(10)  # the SDK's import, taking its time

    wire = Recorder()
    front = Front(never_ready, INSTRUCTIONS, "1.0", wire)
    front.handle(json.dumps(INIT).encode())
    front.handle(
        call(
            "hook_user_prompt_submit",
            {"session_id": "chat-f-1", "cwd": str(repo), "prompt": "which port do orders use?"},
        )
    )
    loading.set()
    assert wire.lines[0]["result"]["serverInfo"] == {"name": "cms", "version": "1.0"}
    reply = json.loads(wire.lines[1]["result"]["content"][0]["text"])
    assert "5433" in reply["hookSpecificOutput"]["additionalContext"]
    assert json.loads(replayed[0])["method"] == "initialize"  # the SDK's session starts alike


def test_the_handshake_is_the_sdks_own() -> None:
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    from cms.config import Config

    server = build_server(config=Config())
    options = server._lowlevel_server.create_initialization_options()
    dumped = options.capabilities.model_dump(by_alias=True, exclude_none=True)
    capabilities = {k: v for k, v in dumped.items() if v != {}}  # as the SDK writes it
    for asked, chosen in (("2025-06-18", "2025-06-18"), ("1999-01-01", HANDSHAKE_VERSIONS[-1])):
        request = {**INIT, "params": {**INIT["params"], "protocolVersion": asked}}  # type: ignore[dict-item]
        result = initialize_result(request, INSTRUCTIONS, package_version())["result"]
        assert result["protocolVersion"] == chosen
        assert result["capabilities"] == capabilities
        assert result["instructions"] == options.instructions
        assert result["serverInfo"] == {
            "name": options.server_name,
            "version": options.server_version,
        }


def test_a_hook_tool_answers_as_the_command_hook_and_shares_what_was_injected(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "shop")
    capture(repo, "Orders live in PostgreSQL 16 on port 5433", kind="decision")
    prompt = {"cwd": str(repo), "prompt": "which port do orders use?"}
    wire = Recorder()
    front = Front(lambda fd, write: None, INSTRUCTIONS, "1.0", wire)
    front.handle(call("hook_user_prompt_submit", {"session_id": "chat-m-1", **prompt}))
    by_tool = wire.lines[0]["result"]["content"][0]["text"]
    by_command = hook_context("UserPromptSubmit", {"session_id": "chat-c-1", **prompt}, hook_env())
    context = json.loads(by_tool)["hookSpecificOutput"]["additionalContext"]
    assert context.replace("chat-m-1", "chat-c-1") == by_command
    again = hook_context("UserPromptSubmit", {"session_id": "chat-m-1", **prompt}, hook_env())
    assert "5433" not in again  # the command hook knows what the tool injected in this chat
    front.handle(call("hook_pre_tool_use", {"session_id": "chat-m-1", "cwd": str(repo),
                                            "tool_name": "Bash", "tool_input": '{"command": "ls"}'}, 3))  # fmt: skip
    assert wire.lines[1]["result"]["content"][0]["text"] == "{}"  # a JSON answer with nothing
