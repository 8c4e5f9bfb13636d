"""The server package: descriptions come from the tool methods' docstrings, refusals are logged,
and mcp and pydantic are each imported by one module."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import anyio

from cms import paths
from cms.mcp_server.front import HOOK_TOOLS
from cms.mcp_server.map_tools import MapTools
from cms.mcp_server.memory_tools import MemoryTools
from cms.mcp_server.observation_tools import ObservationTools
from tests.mcp_server.helpers import ROOT, TOOLS, memory_client


def list_tools(cwd: Path) -> list[Any]:
    async def run() -> list[Any]:
        async with memory_client(cwd) as client:
            return list((await client.list_tools()).tools)

    return anyio.run(run)


def test_each_description_is_the_tool_methods_docstring(tmp_path: Path) -> None:
    tools = list_tools(tmp_path)
    assert tuple(t.name for t in tools) == TOOLS + tuple(HOOK_TOOLS)
    for tool in tools[: len(TOOLS)]:
        method = (
            getattr(MapTools, tool.name, None)
            or getattr(ObservationTools, tool.name, None)
            or getattr(MemoryTools, tool.name)
        )
        assert method.__doc__, tool.name
        assert tool.description == " ".join(method.__doc__.split())


def test_a_refused_call_is_a_tool_error_and_is_logged(tmp_path: Path) -> None:
    async def run() -> Any:
        async with memory_client(tmp_path) as client:
            return await client.call_tool("forget", {"id": 7})

    result = anyio.run(run)
    assert result.is_error
    assert "no stored observations" in result.content[0].text
    log = Path(paths.log_path()).read_text(encoding="utf-8")
    assert "mcp_tool_refused" in log and "tool=forget" in log


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = {
        a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    roots |= {
        n.module.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module and n.level == 0
    }
    return roots


def test_mcp_and_pydantic_are_each_imported_by_one_module() -> None:
    users: dict[str, list[str]] = {"mcp": [], "pydantic": []}
    for path in sorted((ROOT / "cms").rglob("*.py")):
        for root in imported_roots(path) & set(users):
            users[root].append(path.relative_to(ROOT).as_posix())
    assert users == {"mcp": ["cms/mcp_server/server.py"], "pydantic": ["cms/mcp_server/args.py"]}
