"""The `supersede` op: the update model retires an item of an earlier chat by its id.

Owns the offered items' block of the request, taking `supersede` ops out of an answer and
judging each (an offered id, at most MAX_SUPERSEDE, each once). The caller marks the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_SUPERSEDE = 5


def offered_block(earlier: Mapping[str, str]) -> list[str]:
    """The request's section listing the earlier items the model may supersede."""
    if not earlier:
        return []
    return [
        "# Items in force from earlier chats of this project",
        "When the exchange changes, replaces or retracts one of these (a new value for the same"
        ' rule, choice or fact), add {"op": "supersede", "item": "<id>"} for it, besides the'
        " ops that store the new version in this chat's map.",
        "<earlier>",
        *(f"{item_id}: {' '.join(text.split())}" for item_id, text in earlier.items()),
        "</earlier>",
        "",
    ]


def split_supersede(answer: Any, earlier: Mapping[str, str]) -> tuple[Any, list[str], list[str]]:
    """(the answer without its supersede ops, the accepted ids, reasons for the rejected ones).

    An answer that is not `{"ops": [...]}` comes back unchanged (the map engine rejects it)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("ops"), list):
        return answer, [], []
    kept: list[Any] = []
    accepted: list[str] = []
    reasons: list[str] = []
    for index, op in enumerate(answer["ops"]):
        if not (isinstance(op, dict) and op.get("op") == "supersede"):
            kept.append(op)
            continue
        item = op.get("item")
        if not isinstance(item, str) or set(op) != {"op", "item"}:
            reasons.append(f"op {index} (supersede): needs exactly the field 'item' (an id)")
        elif item not in earlier:
            reasons.append(
                f"op {index} (supersede): {item!r} is not one of the earlier items offered"
            )
        elif item in accepted:
            reasons.append(f"op {index} (supersede): {item} is already superseded by op earlier")
        elif len(accepted) >= MAX_SUPERSEDE:
            reasons.append(f"op {index} (supersede): at most {MAX_SUPERSEDE} per answer")
        else:
            accepted.append(item)
    return {**answer, "ops": kept}, accepted, reasons
