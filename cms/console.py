"""What commands print besides their results: JSON documents on stdout, config warnings on stderr.

Shared by the typer commands and the light `cms search` entry point, so it must not import typer.
"""

from __future__ import annotations

import sys

from cms.config import Config, load_config
from cms.jsonio import dump_json


def print_json(data: object) -> None:
    sys.stdout.write(dump_json(data).decode("utf-8") + "\n")


def load_command_config() -> Config:
    """The config, with its unknown-key warnings printed to stderr (ConfigError propagates)."""
    config = load_config()
    for warning in config.warnings:
        print(f"cms: warning: {config.source}: {warning}", file=sys.stderr)
    return config
