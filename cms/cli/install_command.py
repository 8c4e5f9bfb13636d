"""`cms install`: wire cms into Claude Code or Codex (hooks, --mcp server, `cms` on PATH),
`--status`, `--uninstall`; what `python install.py` runs once the virtual environment exists.

Only parses options and maps results to exit codes; the work is cms.install's.
"""

from __future__ import annotations

from typing import Annotated

import typer

AGENTS = ("claude", "codex")  # cms.install.places.AGENTS; cms.install loads only when it runs


def install(
    agent: Annotated[str, typer.Option(help="claude or codex.")] = "claude",
    project: Annotated[
        bool,
        typer.Option(
            "--project",
            help="The current folder's .claude/settings.json (or .codex/hooks.json) instead of "
            "the user-wide file.",
        ),
    ] = False,
    mcp: Annotated[
        bool,
        typer.Option(
            "--mcp",
            help="Also register (with --uninstall: remove) the `cms mcp` server: ~/.claude.json "
            "or, with --project, .mcp.json; for Codex its config.toml.",
        ),
    ] = False,
    status: Annotated[
        bool, typer.Option("--status", help="Show what is installed and exit.")
    ] = False,
    uninstall: Annotated[
        bool, typer.Option("--uninstall", help="Remove exactly our entries and our `cms` link.")
    ] = False,
    purge: Annotated[
        bool, typer.Option("--purge", help="With --uninstall: delete the data too.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the diff, change nothing.")
    ] = False,
    cms: Annotated[
        str | None, typer.Option(metavar="PATH", help="The hooks call this cms executable.")
    ] = None,
    skip_venv: Annotated[
        bool, typer.Option("--skip-venv", help="The hooks call the `cms` found on PATH.")
    ] = False,
    venv: Annotated[
        str | None,
        typer.Option(metavar="PATH", help="The hooks call this virtual environment's cms."),
    ] = None,
    semantic: Annotated[
        bool,
        typer.Option(
            "--semantic",
            help="Say how to fetch the semantic model (install.py installs the extra).",
        ),
    ] = False,
    command_hooks: Annotated[
        bool,
        typer.Option(
            "--command-hooks",
            help="Every hook a `cms hook` command, also where Claude Code (2.1.118 or later) "
            "could call `cms mcp`'s hook tools (the default there: docs/hooks.md).",
        ),
    ] = False,
) -> None:
    """Merge our hook entries into an agent's settings, idempotently and with a backup; by
    default the hooks call this cms. Exit 3: hooks written but the self-check failed."""
    if agent not in AGENTS:
        raise typer.BadParameter(f"expected one of {', '.join(AGENTS)}", param_hint="--agent")
    if purge and not uninstall:
        raise typer.BadParameter("--purge only goes with --uninstall", param_hint="--purge")
    from cms.install.installer import install as run_install
    from cms.install.options import InstallOptions
    from cms.install.status import show_status
    from cms.install.uninstaller import uninstall as run_uninstall

    options = InstallOptions(
        agent=agent,
        project=project,
        mcp=mcp,
        dry_run=dry_run,
        purge=purge,
        semantic=semantic,
        cms=cms,
        skip_venv=skip_venv,
        venv=venv,
        command_hooks=command_hooks,
    )
    if status:
        code = show_status(options)
    elif uninstall:
        code = run_uninstall(options)
    else:
        code = run_install(options)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command()(install)
