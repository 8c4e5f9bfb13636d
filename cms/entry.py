"""The `cms` console script: routes the hot commands past typer, the rest to the typer CLI.

`cms hook EVENT` runs on every prompt, `cms search` on every lookup of the agent and `cms mcp`
must answer its client's handshake before the first hook, so they go to light entry points (typer alone costs well over 100 ms to import); everything else goes to
the CLI, which is the error boundary for commands.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        from cms.hooks.runner import run_hook, skip_teardown

        code = run_hook(args[1:])
        if argv is None:  # a real hook process, not a caller in Python
            skip_teardown(code)
        sys.exit(code)
    if args[:1] == ["search"] and not {"-h", "--help"} & set(args):
        from cms.search.command import run_search_argv  # the agent's lookups: no typer either

        sys.exit(run_search_argv(args[1:]))
    if args[:1] == ["mcp"] and not {"-h", "--help"} & set(args):
        from cms.mcp_server.launch import main as serve_mcp  # ready for the first hook at once

        sys.exit(serve_mcp(args[1:]))
    from cms.cli import run_cli

    run_cli(args)


if __name__ == "__main__":
    main()
