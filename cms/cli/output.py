"""How commands print machine-readable results: one JSON document on stdout."""

from __future__ import annotations

import sys

from cms.jsonio import dump_json


def print_json(data: object) -> None:
    sys.stdout.write(dump_json(data).decode("utf-8") + "\n")
