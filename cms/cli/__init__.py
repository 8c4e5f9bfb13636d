"""The typer command line (the only module tree that imports typer) and its error boundary.

Each command group lives in its own module with a `register(app)` function; this module
assembles them and turns CmsError into a one-line message and exit code 1.
"""

from __future__ import annotations

import sys

import typer

from cms.errors import CmsError


def build_app() -> typer.Typer:
    from cms.cli import (
        doctor_command,
        hook_commands,
        install_command,
        map_commands,
        mcp_command,
        memory_commands,
        project_commands,
        semantic_command,
        ui_command,
    )

    app = typer.Typer(
        name="cms",
        help="Memory for coding agents: per-chat correlation maps and per-project observations.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    for module in (
        map_commands,
        doctor_command,
        hook_commands,
        install_command,
        mcp_command,
        memory_commands,
        project_commands,
        semantic_command,
        ui_command,
    ):
        module.register(app)
    return app


def run_cli(args: list[str]) -> None:
    app = build_app()
    try:
        app(args=args, prog_name="cms", standalone_mode=True)
    except CmsError as exc:
        print(f"cms: error: {exc}", file=sys.stderr)
        sys.exit(1)
