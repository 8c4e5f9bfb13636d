"""JSON in and out: the one place that picks the codecs, so every caller agrees on them.

`loads`/`dumps` are the standard library's own C scanner and encoder (`_json`) driven directly:
the same results as `json.loads`/`json.dumps`, without importing the `json` package, whose
pure-Python layer compiles six patterns (~5 million instructions, more than a hook's own work
on some events). Files written for people (maps, --json output) go through `dump_json` (orjson,
imported on first use). Another Python without `_json` gets the `json` package.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"  # what JSON allows around a value (json.decoder.WHITESPACE)
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None  # type: ignore[assignment]


class _Decoding:
    """What the C scanner reads from its context (as from a json.JSONDecoder with defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan: Callable[[str, int], tuple[Any, int]] | None = (
    None if _json is None else _json.make_scanner(_Decoding())  # type: ignore[arg-type]
)


def _decode_error(message: str, text: str, position: int) -> ValueError:
    from json import JSONDecodeError  # only on a bad document

    return JSONDecodeError(message, text, position)


def loads(text: str) -> Any:
    """The value of a JSON document, as json.loads gives it; a ValueError (JSONDecodeError)
    naming the position when it is not JSON."""
    if _scan is None:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise _decode_error("Expecting value", text, stop.value) from None
    except SystemError:  # the scanner could not import json.decoder to say what is wrong
        import json  # (an interpreter without site): the package says it, as a ValueError

        return json.loads(text)
    if end != len(text) and text[end:].strip(_WHITESPACE):
        raise _decode_error("Extra data", text, len(text) - len(text[end:].lstrip(_WHITESPACE)))
    return value


def _unserializable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(data: Any, *, ensure_ascii: bool = True) -> str:
    """`json.dumps(data, ensure_ascii=...)` with its other defaults (", " and ": ")."""
    if _json is None:
        import json

        return json.dumps(data, ensure_ascii=ensure_ascii)
    quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    encode = _json.make_encoder({}, _unserializable, quote, None, ": ", ", ", False, False, True)
    return "".join(encode(data, 0))


def parse_json(raw: bytes | str) -> Any:
    """Decode JSON; raise a ValueError (JSONDecodeError) when it is not UTF-8 or not JSON."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _decode_error(f"not UTF-8 ({exc.reason})", "", 0) from exc
    return loads(raw)


def dump_json(data: Any) -> bytes:
    """Encode as indented UTF-8 JSON without a trailing newline."""
    import orjson

    return orjson.dumps(data, option=orjson.OPT_INDENT_2)
