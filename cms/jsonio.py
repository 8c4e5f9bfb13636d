"""JSON in and out as bytes: the only module that imports orjson.

Map files, index caches and the CLI's --json output go through here, so they share one encoder
(stable key order, two-space indent, UTF-8) and one decode error.
"""

from __future__ import annotations

from typing import Any

import orjson

JSONDecodeError = orjson.JSONDecodeError


def parse_json(raw: bytes | str) -> Any:
    """Decode JSON; raise JSONDecodeError (a ValueError) when it is not JSON."""
    return orjson.loads(raw)


def dump_json(data: Any) -> bytes:
    """Encode as indented UTF-8 JSON without a trailing newline."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2)
