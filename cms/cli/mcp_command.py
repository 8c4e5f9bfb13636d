"""`cms mcp`: run the MCP server over stdio for Claude Code, Codex, Cursor and other clients.

Loads the config, points logging at the cms log file and hands stdin/stdout to the server built
by cms.mcp_server. Prints nothing on stdout itself: stdout carries the protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cms.console import load_command_config
from cms.log import configure_log, log_event


def mcp(
    cwd: Annotated[
        Path | None,
        typer.Option(
            "--cwd", help="Project folder for observation tools (default: the current folder)."
        ),
    ] = None,
) -> None:
    """Serve chat maps and project observations as MCP tools over stdin/stdout."""
    config = load_command_config()
    configure_log(config.log.max_bytes, config.log.backups, config.log.level)
    from cms.mcp_server import build_server  # mcp and pydantic load only for this command

    folder = (cwd or Path.cwd()).expanduser().resolve()
    server = build_server(config=config, cwd=folder)
    log_event("info", "mcp_start", cwd=str(folder))
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        log_event("info", "mcp_stop")


def register(app: typer.Typer) -> None:
    app.command()(mcp)
