"""The typer command line (the only module tree that imports typer) and its error boundary.

Each command group lives in its own module with a `register(app)` function; this module
assembles them and runs them inside the one error boundary (cms.error_handler): a usage error
is click's message and exit 2, Ctrl-C exit 130, a CmsError one line and exit 1, anything else
one line naming the log file with the traceback, exit 3.
"""

from __future__ import annotations

import sys

import typer

from cms.error_handler import run_guarded


def build_app() -> typer.Typer:
    from cms.cli import (
        audit_command,
        doctor_command,
        hook_commands,
        install_command,
        map_commands,
        mcp_command,
        memory_commands,
        project_commands,
        semantic_command,
        team_command,
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
        audit_command,
        doctor_command,
        hook_commands,
        install_command,
        mcp_command,
        memory_commands,
        project_commands,
        semantic_command,
        team_command,
        ui_command,
    ):
        module.register(app)
    _reflow_help(app)
    return app


def _reflow(text: str) -> str:
    """A docstring as help text: each paragraph one line, so the terminal wraps it evenly."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def _reflow_help(app: typer.Typer) -> None:
    """Give every command (and group) whose help is its docstring that docstring reflowed:
    typer keeps a docstring's line breaks, which wrap the help table's cells raggedly."""
    for command in app.registered_commands:
        doc = command.help or (command.callback.__doc__ if command.callback else None)
        if doc:
            command.help = _reflow(doc)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            _reflow_help(group.typer_instance)


def run_cli(args: list[str]) -> None:
    sys.exit(run_guarded(lambda: _run_app(args)))


def _run_app(args: list[str]) -> int:
    """The typer app on args: its exit code; the parser's usage errors printed as it prints them."""
    app = build_app()
    try:
        result = app(args=args, prog_name="cms", standalone_mode=False)
    except typer.Abort as exc:  # Ctrl-C, as the command line parser reports it
        raise KeyboardInterrupt from exc
    except typer.TyperException as exc:  # a usage error: the parser's own message
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            print(f"cms: error: {exc.format_message()}", file=sys.stderr)
        return exc.exit_code
    return result if isinstance(result, int) else 0  # an int: typer.Exit's code
