"""JSON in and out as bytes: the only module that imports orjson.

Map files, index caches and the CLI's --json output go through here, so they share one encoder
(stable key order, two-space indent, UTF-8) and one decode error. Reading uses the standard
library: orjson parses faster but costs ~15 ms to import, more than it saves on the read-only
paths (`cms search`, the prompt hook); writers import it on first use.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

JSONDecodeError = json.JSONDecodeError


def parse_json(raw: bytes | str) -> Any:
    """Decode JSON; raise JSONDecodeError (a ValueError) when it is not JSON."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONDecodeError(f"not UTF-8 ({exc.reason})", "", 0) from exc
    return json.loads(raw)


def dump_json(data: Any) -> bytes:
    """Encode as indented UTF-8 JSON without a trailing newline."""
    import orjson

    return orjson.dumps(data, option=orjson.OPT_INDENT_2)
