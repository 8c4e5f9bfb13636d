"""The summarise model's answer (`cms gc`): its JSON Schema and its validation.

Owns the shape of one summary ({"title", "body"}, or {"skip": why} when the observations share
no subject) and its limits: bounded texts, redacted, the group's own kind, no longer than what
it summarises. Judges an answer; never stores anything or calls a model.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from cms.errors import ProviderError
from cms.providers.observe_schema import KINDS
from cms.record import Record
from cms.transcripts.redact import redact_text

MAX_TITLE = 120
MAX_BODY = 1200
MAX_SKIP = 300


class SummaryAnswerError(ProviderError):
    """The model answered, but not with a usable summary: its group is left as it was."""


class ProposedSummary(Record, frozen=True):
    """A validated answer: a summary to store, or skip (the reason) when the model found no
    common subject."""

    title: str = ""
    body: str = ""
    skip: str | None = None


_TEXT = {"type": "string", "minLength": 1, "pattern": r"\S"}
SUMMARY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "the summary of a group of observations",
    "type": "object",
    "required": ["title", "body"],
    "properties": {
        "title": {**_TEXT, "maxLength": MAX_TITLE},
        "body": {**_TEXT, "maxLength": MAX_BODY},
        "kind": {"enum": list(KINDS)},
    },
}
SKIP_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "no common subject",
    "type": "object",
    "required": ["skip"],
    "properties": {"skip": {"type": "string", "maxLength": MAX_SKIP}},
}
_SUMMARY = jsonschema.Draft202012Validator(SUMMARY_SCHEMA)
_SKIP = jsonschema.Draft202012Validator(SKIP_SCHEMA)


def _first_error(validator: jsonschema.Draft202012Validator, answer: Any) -> str | None:
    errors = sorted(validator.iter_errors(answer), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path) or "answer"
    if first.validator == "maxLength":  # its message quotes the whole text
        return f"{where} is longer than {first.validator_value} characters ({len(first.instance)})"
    return f"{where}: {first.message[:160]}"


def validate_summary(answer: Any, *, kind: str, source_chars: int) -> ProposedSummary:
    """The usable summary in a parsed answer for a group of `kind` whose titles and bodies hold
    source_chars characters (its body may not be longer); SummaryAnswerError naming the first
    problem otherwise."""
    if not isinstance(answer, dict):
        raise SummaryAnswerError(f"the answer is not a JSON object but {type(answer).__name__}")
    if "skip" in answer and "title" not in answer:
        problem = _first_error(_SKIP, answer)
        if problem is not None:
            raise SummaryAnswerError(problem)
        return ProposedSummary(skip=" ".join(str(answer["skip"]).split()) or "no reason given")
    problem = _first_error(_SUMMARY, answer)
    if problem is not None:
        raise SummaryAnswerError(problem)
    if answer.get("kind", kind) != kind:
        raise SummaryAnswerError(f"kind {answer['kind']!r} is not the group's kind {kind!r}")
    title = " ".join(redact_text(answer["title"]).split())
    body = redact_text(answer["body"]).strip()
    if len(body) > source_chars:
        raise SummaryAnswerError(
            f"the summary's body ({len(body)} characters) is longer than what it summarises "
            f"({source_chars})"
        )
    return ProposedSummary(title=title, body=body)
