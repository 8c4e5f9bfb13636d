"""The `cms` console script: routes `cms hook EVENT` to the light hook runner, the rest to typer.

Hooks run on every prompt, so this module imports nothing heavy and never imports typer for
`cms hook`; everything else goes to the CLI, which is the one error boundary for commands.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        from cms.hooks.runner import run_hook

        sys.exit(run_hook(args[1:]))
    from cms.cli import run_cli

    run_cli(args)


if __name__ == "__main__":
    main()
