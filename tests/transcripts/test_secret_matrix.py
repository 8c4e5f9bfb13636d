"""The secret matrix (issue 32): 75 secret shapes, each in 10 placements, as plain text and as
a JSON document's string, never survive redaction; 61 harmless strings (lockfile hashes, data
URLs, git SHAs, UUIDs, ids, public keys) come out unchanged. The sinks (store, map, queue,
exports, model requests) are covered with the same shapes by tests/test_secrets_everywhere.py."""

from __future__ import annotations

import json

import pytest

from cms.transcripts.redact import redact_obj, redact_text
from tests.secret_shapes import HARMLESS, PLACEMENTS, SHAPES, fill


def test_the_matrix_has_75_distinct_shapes_10_placements_and_61_harmless_strings() -> None:
    assert len(SHAPES) == 75 and len({needle for _, needle, _ in SHAPES}) == 75
    assert len(PLACEMENTS) == 10 and len(set(HARMLESS)) == 61
    assert all(needle in line for _, needle, line in SHAPES)


@pytest.mark.parametrize(("name", "needle", "line"), SHAPES, ids=[s[0] for s in SHAPES])
def test_a_secret_shape_is_masked_in_every_placement(name: str, needle: str, line: str) -> None:
    kept = []
    for placement in PLACEMENTS:
        text = fill(placement, line)
        as_json = json.dumps({"tool_input": {"command": text}, "note": [text]})
        outputs = {
            "text": redact_text(text),
            "json text": redact_text(as_json),
            "json object": json.dumps(redact_obj(json.loads(as_json))),
        }
        kept += [(placement, how) for how, out in outputs.items() if needle in out]
        assert redact_text(outputs["text"]) == outputs["text"]  # idempotent
    assert not kept, f"{name} kept in {kept}"


@pytest.mark.parametrize("harmless", HARMLESS)
def test_a_harmless_string_keeps_its_meaning(harmless: str) -> None:
    assert redact_text(harmless) == harmless
    assert redact_obj({"line": harmless}) == {"line": harmless}


@pytest.mark.parametrize(
    "line",
    ["session_id={}", 'sessionId: "{}"', "csrf_token id {}", "the auth id is {}"],
)
def test_an_id_named_after_a_session_or_a_credential_is_still_masked(line: str) -> None:
    secret = "Xk9fQ2mZ7pLw4RtY8vB3nC6hJ1sD5gE0aQ7zW2eR"
    assert secret not in redact_text(fill(line, secret))
