"""What commands print besides their results: JSON documents on stdout, config warnings on stderr,
and the config check every command passes before it does anything.

Shared by the typer commands and the light `cms search` entry point, so it must not import typer.
"""

from __future__ import annotations

import functools
import sys

from cms.config import Config, load_config
from cms.jsonio import dump_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])


def print_json(data: object) -> None:
    sys.stdout.write(dump_json(data).decode("utf-8") + "\n")


def print_remembered(status: str, ref: str, note: str = "") -> None:
    """What `cms remember` says of the one observation it stored (or found) as ref."""
    replaces = "replaces the older one with that title" if status == "superseded" else ""
    tail = "; ".join(part for part in (note, replaces) if part)
    if status == "duplicate":
        print(f"already remembered as {ref}" + (f" ({note})" if note else ""))
    else:
        print(f"remembered {ref}" + (f" ({tail})" if tail else ""))


def load_command_config() -> Config:
    """The config, with its unknown-key warnings printed to stderr (ConfigError propagates)."""
    config = load_config()
    for warning in config.warnings:
        print(f"cms: warning: {config.source}: {warning}", file=sys.stderr)
    return config


def config_checked(command: F) -> F:
    """command, stopped with the config's one-line ConfigError before it reads or writes
    anything when cms.toml is broken, whether or not it uses the config (a command that runs on
    the defaults while the user's settings are ignored would hide the problem)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        load_config()
        return command(*args, **kwargs)

    return run  # type: ignore[return-value]
