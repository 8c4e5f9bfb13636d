"""`python -m cms mcp` as a real subprocess spoken to over stdio by the SDK's client."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from cms import paths
from cms.mcp_server.front import HOOK_TOOLS
from tests.mcp_server.helpers import (
    TOOLS,
    make_git_project,
    seed_map,
    server_env,
    stdio_session,
    storage_ops,
    text_of,
)

pytestmark = pytest.mark.slow


def run_session(cwd: Path, errlog_path: Path, steps: Any) -> Any:
    async def run() -> Any:
        with open(errlog_path, "w", encoding="utf-8") as errlog:
            async with stdio_session(cwd, errlog) as client:
                return await steps(client)

    return anyio.run(run)


def test_every_tool_answers_over_stdio_and_stdout_carries_only_the_protocol(
    tmp_path: Path,
) -> None:
    project = make_git_project(tmp_path / "proj")
    seed_map("chat-stdio", storage_ops(), project)
    errlog = tmp_path / "server-stderr.txt"

    async def steps(client: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": {t.name for t in (await client.list_tools()).tools}}
        remembered = await client.call_tool(
            "remember",
            {
                "kind": "decision",
                "title": "Parser uses a hand-written tokenizer",
                "body": "Regex tokenizing was too slow on large inputs.",
                "files": ["src/parser.py"],
                "importance": 4,
            },
        )
        out["remember"] = remembered
        obs_id = remembered.structured_content["id"]
        out["search_map"] = await client.call_tool("search_map", {"query": "pool size"})
        out["show_map"] = await client.call_tool("show_map", {"session": "chat-stdio"})
        out["recall"] = await client.call_tool("recall", {"query": "tokenizer parser"})
        out["update"] = await client.call_tool("update", {"id": obs_id, "importance": 5})
        out["supersede"] = await client.call_tool(
            "supersede",
            {
                "old_id": obs_id,
                "kind": "decision",
                "title": "Parser uses the tree-sitter tokenizer",
                "body": "Replaced the hand-written tokenizer.",
            },
        )
        out["stats"] = await client.call_tool("stats", {})
        new_id = out["supersede"].structured_content["id"]
        out["forget"] = await client.call_tool("forget", {"id": new_id})
        out["bad"] = await client.call_tool("remember", {"kind": "rumour", "title": "x"})
        return out

    out = run_session(project, errlog, steps)
    assert out["tools"] == {*TOOLS, *HOOK_TOOLS}
    for name in (
        "remember",
        "search_map",
        "show_map",
        "recall",
        "update",
        "supersede",
        "stats",
        "forget",
    ):
        assert not out[name].is_error, (name, text_of(out[name]))
    assert "F4 [Storage > Database] Connection pool size is 20" in text_of(out["search_map"])
    assert "F7 GitHub Actions runs make check" in text_of(out["show_map"])
    assert "Parser uses a hand-written tokenizer" in text_of(out["recall"])
    assert out["stats"].structured_content["chat_maps"] == 1
    assert out["bad"].is_error and "kind" in text_of(out["bad"])
    stderr = errlog.read_text(encoding="utf-8")
    assert "Traceback" not in stderr, stderr
    assert Path(paths.log_path()).exists()


def test_the_server_serves_the_project_of_its_working_folder(tmp_path: Path) -> None:
    first = make_git_project(tmp_path / "first")
    second = make_git_project(tmp_path / "second")

    async def remember_in_first(client: Any) -> Any:
        return await client.call_tool(
            "remember", {"kind": "command", "title": "Run the linter with make lint"}
        )

    async def recall_in_second(client: Any) -> Any:
        here = await client.call_tool("recall", {"query": "linter lint"})
        there = await client.call_tool("recall", {"query": "linter lint", "cwd": str(first)})
        return here, there

    done = run_session(first, tmp_path / "e1.txt", remember_in_first)
    assert not done.is_error, text_of(done)
    here, there = run_session(second, tmp_path / "e2.txt", recall_in_second)
    assert "make lint" not in text_of(here)
    assert "Run the linter with make lint" in text_of(there)


def test_a_client_using_the_initialize_handshake_is_served(tmp_path: Path) -> None:
    """Claude Code and Codex start with `initialize`, not the newer discovery request."""
    project = make_git_project(tmp_path / "proj")
    seed_map("chat-legacy", storage_ops(), project)

    async def run() -> Any:
        with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog:
            async with stdio_session(project, errlog, mode="legacy") as client:
                names = {t.name for t in (await client.list_tools()).tools}
                return names, await client.call_tool("search_map", {"query": "postgres"})

    names, result = anyio.run(run)
    assert "search_map" in names and "remember" in names
    assert "F3 [Storage > Database] Use Postgres 16 with pgvector" in text_of(result)


def test_request_ids_beyond_64_bits_and_garbage_lines_write_nothing_to_stderr(
    tmp_path: Path,
) -> None:
    project = make_git_project(tmp_path / "proj")
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    big = [2**63, 2**64, -(2**70)]
    lines = [
        json.dumps(hello),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "not json at all",
        '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
        *(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list"}) for i in big),
        json.dumps({"jsonrpc": "2.0", "id": 2**63 + 1, "method": "tools/call", "params": {}}),
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
    ]
    server = subprocess.Popen(
        [sys.executable, "-m", "cms", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
        env=server_env(),
    )
    watchdog = threading.Timer(60, server.kill)
    watchdog.start()
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("\n".join(lines) + "\n")
    server.stdin.flush()
    answers: dict[int, Any] = {}
    while 7 not in answers and (line := server.stdout.readline()):
        reply = json.loads(line)
        answers[reply["id"]] = reply
    _, stderr = server.communicate()  # closes stdin: the server ends
    watchdog.cancel()
    assert server.returncode == 0
    assert {1, 7, 2**63 + 1, *big} <= set(answers)
    assert "error" in answers[2**63 + 1]
    assert len(answers[2**63]["result"]["tools"]) == 11 + len(HOOK_TOOLS)
    assert len(stderr.splitlines()) <= 2, stderr  # one line per failure at most
    assert "Traceback" not in stderr and "╭" not in stderr, stderr
