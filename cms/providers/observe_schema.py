"""The JSON Schema of the observe model's answer and its per-item validation.

Owns the shape of an extracted observation (kind, title, body, files, importance). It judges
each item alone: bad items are dropped with a reason, good ones are normalised. It never stores
anything; the observation store decides about duplicates and persistence.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import jsonschema

from cms.errors import ProviderError

KINDS = ("decision", "learning", "bugfix", "command", "file_summary", "preference", "other")
MAX_OBSERVATIONS = 20
MAX_TITLE = 120
MAX_BODY = 2000
MAX_REPLACES = 5  # offered items one observation may name as replaced

OBSERVATION_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "one observation proposed by the observe model",
    "type": "object",
    "required": ["kind", "title", "body"],
    "properties": {
        "kind": {"enum": list(KINDS)},
        "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE, "pattern": r"\S"},
        "body": {"type": "string", "minLength": 1, "maxLength": MAX_BODY, "pattern": r"\S"},
        "files": {
            "type": "array",
            "maxItems": 50,
            "items": {"type": "string", "minLength": 1, "maxLength": 500},
        },
        "importance": {"type": "integer", "minimum": 1, "maximum": 5},
        "replaces": {
            "type": "array",
            "maxItems": MAX_REPLACES,
            "items": {"type": "string", "minLength": 1, "maxLength": 80},
        },
    },
}

_VALIDATOR = jsonschema.Draft202012Validator(OBSERVATION_SCHEMA)


def _reason(index: int, item: Any) -> str | None:
    errors = sorted(_VALIDATOR.iter_errors(item), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path) or "item"
    return f"observation {index + 1}: {where}: {first.message[:160]}"


def validate_observations(
    answer: Any, offered: Collection[str] = ()
) -> tuple[list[dict[str, Any]], list[str]]:
    """(accepted observations, rejection reasons) from an answer list (or {"observations": [...]}).

    An observation's `replaces` keeps only ids of offered (the items in force the request
    listed), each once; any other id is a reason, never a reason to drop the observation.
    Raises ProviderError when the answer is not a list at all.
    """
    if isinstance(answer, dict) and isinstance(answer.get("observations"), list):
        answer = answer["observations"]
    if not isinstance(answer, list):
        raise ProviderError(f"observe answer is not a JSON list but {type(answer).__name__}")
    accepted: list[dict[str, Any]] = []
    reasons: list[str] = []
    for index, item in enumerate(answer):
        reason = _reason(index, item)
        if reason is None and len(accepted) >= MAX_OBSERVATIONS:
            reason = f"observation {index + 1}: more than {MAX_OBSERVATIONS} in one answer"
        if reason is not None:
            reasons.append(reason)
            continue
        replaces: list[str] = []
        for item_id in item.get("replaces", []):
            if item_id in offered and item_id not in replaces:
                replaces.append(item_id)
            else:
                reasons.append(
                    f"observation {index + 1}: replaces {item_id[:40]!r}, not an item offered"
                )
        accepted.append(
            {
                "replaces": replaces,
                "kind": item["kind"],
                "title": " ".join(item["title"].split()),
                "body": item["body"].strip(),
                "files": list(dict.fromkeys(f.strip() for f in item.get("files", []) if f.strip())),
                "importance": int(item.get("importance", 3)),
            }
        )
    return accepted, reasons
