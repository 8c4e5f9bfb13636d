"""`cms mcp`: run the MCP server over stdio for Claude Code, Codex, Cursor and other clients.

Checks the config and hands stdin/stdout to the front (cms.mcp_server.front), which answers the
handshake and the hook tools at once and the rest through the SDK's server (`cms mcp` without
--help skips typer: cms.entry). Prints nothing on stdout itself: stdout carries the protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cms.console import load_command_config


def mcp(
    cwd: Annotated[
        Path | None,
        typer.Option(
            "--cwd", help="Project folder for observation tools (default: the current folder)."
        ),
    ] = None,
) -> None:
    """Serve chat maps and project observations as MCP tools over stdin/stdout."""
    load_command_config()  # a broken cms.toml stops the command with one line
    from cms.mcp_server.launch import main

    main(["--cwd", str((cwd or Path.cwd()).expanduser().resolve())])


def register(app: typer.Typer) -> None:
    app.command()(mcp)
