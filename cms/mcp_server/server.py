"""The MCP server (`cms mcp`): the map and observation tools registered on one MCPServer.

The only module that imports mcp. build_server() assembles a server over injected readers and
stores (no state in module globals); tool errors are logged to the cms log, never to stdout
(the protocol), and a CmsError becomes a tool error whose text tells the model what to do next.
"""

from __future__ import annotations

import inspect
import os
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from cms import chats
from cms.config import Config
from cms.errors import CmsError, StoreError
from cms.log import log_event
from cms.map.model import CorrelationMap
from cms.markup import neutralise_tags
from cms.mcp_server.front import (
    HOOK_FUNCTIONS,
    HOOK_TOOL_NOTE,
    HOOK_TOOLS,
    INSTRUCTIONS,
    SERVER_NAME,
    package_version,
)
from cms.mcp_server.map_tools import MapResolver, MapTools, SelectorFactory
from cms.mcp_server.memory_tools import MemoryTools
from cms.mcp_server.observation_tools import MemoryOpener, ObservationTools
from cms.mcp_server.results import ToolRefusedError, ToolResult
from cms.observations.access import ProjectMemory, open_project_memory
from cms.search.facts import Selector

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

# The tools in the order clients list them, with their hints; descriptions are the docstrings.
TOOL_HINTS: dict[str, ToolAnnotations] = {
    "search_map": READ_ONLY,
    "show_map": READ_ONLY,
    "recall": READ_ONLY,
    "remember": ToolAnnotations(open_world_hint=False),
    "update": ToolAnnotations(idempotent_hint=True, open_world_hint=False),
    "supersede": ToolAnnotations(open_world_hint=False),
    "correct": ToolAnnotations(open_world_hint=False),
    "search": READ_ONLY,
    "get": READ_ONLY,
    "forget": ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
    "stats": READ_ONLY,
}


def tool_description(body: Callable[..., ToolResult]) -> str:
    """A tool body's docstring as one paragraph: the description the model reads."""
    return " ".join((body.__doc__ or "").split())


def _plain(value: Any) -> Any:
    """value with the harness tags of every string in it made plain (cms.markup)."""
    if isinstance(value, str):
        return neutralise_tags(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def wrap_tool(name: str, body: Callable[..., ToolResult]) -> Callable[..., CallToolResult]:
    """The tool as the server calls it: the body's arguments and schema, its ToolResult as a
    CallToolResult, ToolRefusedError and CmsError as a ToolError; every failure is logged."""

    def run(**kwargs: Any) -> CallToolResult:
        try:
            result = body(**kwargs)
        except ToolRefusedError as exc:
            log_event("info", "mcp_tool_refused", str(exc), tool=name)
            raise ToolError(str(exc)) from exc
        except CmsError as exc:
            log_event("warning", "mcp_tool_failed", str(exc), tool=name)
            raise ToolError(str(exc)) from exc
        except Exception as exc:
            log_event("error", "mcp_tool_crashed", f"{type(exc).__name__}: {exc}", tool=name)
            raise
        return CallToolResult(
            content=[TextContent(type="text", text=neutralise_tags(result.text))],
            structured_content=_plain(result.data),
        )

    hints = typing.get_type_hints(body, include_extras=True)
    signature = inspect.signature(body, eval_str=True)
    run.__name__ = run.__qualname__ = name
    run.__doc__ = body.__doc__
    run.__annotations__ = {**hints, "return": CallToolResult}
    run.__signature__ = signature.replace(  # type: ignore[attr-defined]
        return_annotation=CallToolResult
    )
    return run


def _default_selector(config: Config) -> SelectorFactory:
    def make(cmap: CorrelationMap) -> Selector | None:
        try:
            from cms.providers.select import make_search_selector
        except ImportError:
            return None
        try:
            return make_search_selector(config, project=cmap.project)
        except CmsError as exc:
            log_event("warning", "mcp_selector_unavailable", str(exc))
            return None

    return make


def _open_memory(cwd: Path, create: bool) -> ProjectMemory | None:
    try:
        return open_project_memory(cwd, create=create)
    except OSError as exc:
        raise StoreError(f"cannot open the observation store of {cwd}: {exc}") from exc


def build_server(
    *,
    config: Config,
    map_resolver: MapResolver | None = None,
    memory_opener: MemoryOpener | None = None,
    selector_factory: SelectorFactory | None = None,
    cwd: Path | None = None,
) -> MCPServer[Any]:
    """An MCP server whose tools read and write cms memory; run it with .run("stdio")."""
    map_tools = MapTools(
        resolve_map=map_resolver or _project_chats(cwd or Path.cwd()),
        make_selector=selector_factory or _default_selector(config),
    )
    observation_tools = ObservationTools(
        config=config,
        open_memory=memory_opener or _open_memory,
        default_cwd=cwd or Path.cwd(),
    )
    memory_tools = MemoryTools(
        config=config, open_memory=memory_opener or _open_memory, default_cwd=cwd or Path.cwd()
    )
    server: MCPServer[Any] = MCPServer(
        SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING", version=package_version()
    )
    for name, hints in TOOL_HINTS.items():
        body = (
            getattr(map_tools, name, None)
            or getattr(observation_tools, name, None)
            or getattr(memory_tools, name)
        )
        server.add_tool(
            wrap_tool(name, body),
            name=name,
            description=tool_description(body),
            annotations=hints,
        )
    for hook in HOOK_FUNCTIONS:  # listed; their calls are answered by the front (front.py)
        server.add_tool(
            hook,
            name=hook.__name__,
            description=HOOK_TOOL_NOTE.format(event=HOOK_TOOLS[hook.__name__]),
            annotations=READ_ONLY,
            structured_output=False,  # text only: Claude Code refuses a hook tool's answer
        )  # without structured content when the tool declares an output schema
    return server


def run_behind_front(
    server: MCPServer[Any], read_fd: int, write_line: Callable[[str], None]
) -> None:
    """Serve the messages the front passes on (a pipe) and give each answer line to it."""
    import io

    import anyio
    from mcp.server.stdio import stdio_server

    class Lines(io.TextIOBase):
        def __init__(self) -> None:
            self.pending = ""

        def write(self, text: str) -> int:
            self.pending += text
            while "\n" in self.pending:
                line, self.pending = self.pending.split("\n", 1)
                write_line(line)
            return len(text)

    async def main() -> None:
        stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(read_fd, "rb"), encoding="utf-8"))
        stdout = anyio.wrap_file(typing.cast("typing.IO[str]", Lines()))
        lowlevel = server._lowlevel_server  # as the SDK's own run_stdio_async does
        async with stdio_server(stdin=stdin, stdout=stdout) as (reads, writes):
            await lowlevel.run(reads, writes, lowlevel.create_initialization_options())

    anyio.run(main)


def _project_chats(folder: Path) -> MapResolver:
    """The map of a given session, else the chat of the server's project updated last (never
    another project's)."""
    from cms.project import identify_project

    project = identify_project(folder).id
    return lambda session: chats.locate_map(session, None, project)
