"""JSON Schemas of the map file and of the update model's answer, and their validators.

The only module of the map package that imports jsonschema (slow to import): the ops engine
uses it, the hook fast path must not. Schemas describe shape only; meaning is checked in ops.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from cms.map.model import MAX_FACT, MAX_TITLE

_ID = {"S": "^S[0-9]+$", "P": "^P[0-9]+$", "F": "^F[0-9]+$"}
_TIME = {"type": "string", "minLength": 1}
_TITLE = {"type": "string", "minLength": 1, "maxLength": MAX_TITLE}
_FACT = {"type": "string", "minLength": 1, "maxLength": MAX_FACT}

_SATELLITE = {
    "type": "object",
    "required": ["id", "text", "created_at", "updated_at", "turn"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": _ID["F"]},
        "text": _FACT,
        "created_at": _TIME,
        "updated_at": _TIME,
        "turn": {"type": "integer", "minimum": 0},
    },
}
_PLANET_PROPS: dict[str, Any] = {
    "id": {"type": "string", "pattern": _ID["P"]},
    "title": _TITLE,
    "mass": {"type": "integer", "minimum": 1},
    "created_at": _TIME,
    "updated_at": _TIME,
    "satellites": {"type": "array", "items": _SATELLITE},
}
_PLANET = {
    "type": "object",
    "required": list(_PLANET_PROPS),
    "additionalProperties": False,
    "properties": _PLANET_PROPS,
}
_ARCHIVED_PLANET = {
    "type": "object",
    "required": [*_PLANET_PROPS, "archived_at", "sun", "sun_title"],
    "additionalProperties": False,
    "properties": {
        **_PLANET_PROPS,
        "archived_at": _TIME,
        "sun": {"type": "string", "pattern": _ID["S"]},
        "sun_title": _TITLE,
    },
}

MAP_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cms correlation map, version 1",
    "type": "object",
    "required": [
        "version",
        "session_id",
        "project",
        "next_id",
        "created_at",
        "updated_at",
        "suns",
        "archive",
    ],
    "additionalProperties": False,
    "properties": {
        "version": {"const": 1},
        "session_id": {"type": "string"},
        "project": {"type": "string"},
        "next_id": {"type": "integer", "minimum": 1},
        "created_at": _TIME,
        "updated_at": _TIME,
        "suns": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "title", "created_at", "planets"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": _ID["S"]},
                    "title": _TITLE,
                    "created_at": _TIME,
                    "planets": {"type": "array", "items": _PLANET},
                },
            },
        },
        "archive": {"type": "array", "items": _ARCHIVED_PLANET},
    },
}

# Texts are only typed here (not length-checked) so that the ops engine can give a precise
# reason ("fact is 230 characters, the limit is 200") instead of a schema message.
_TEXT = {"type": "string"}
_SATS = {"type": "array", "items": _TEXT}

OP_SCHEMAS: dict[str, dict[str, Any]] = {
    "add_sun": {
        "type": "object",
        "required": ["op", "title"],
        "additionalProperties": False,
        "properties": {
            "op": {"const": "add_sun"},
            "title": _TEXT,
            "planets": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["title"],
                    "additionalProperties": False,
                    "properties": {"title": _TEXT, "sats": _SATS},
                },
            },
        },
    },
    "add_planet": {
        "type": "object",
        "required": ["op", "sun", "title"],
        "additionalProperties": False,
        "properties": {
            "op": {"const": "add_planet"},
            "sun": {"type": "string"},
            "title": _TEXT,
            "sats": _SATS,
        },
    },
    "add_sat": {
        "type": "object",
        "required": ["op", "planet", "text"],
        "additionalProperties": False,
        "properties": {"op": {"const": "add_sat"}, "planet": {"type": "string"}, "text": _TEXT},
    },
    "replace_sat": {
        "type": "object",
        "required": ["op", "sat", "text"],
        "additionalProperties": False,
        "properties": {"op": {"const": "replace_sat"}, "sat": {"type": "string"}, "text": _TEXT},
    },
    "delete_sat": {
        "type": "object",
        "required": ["op", "sat"],
        "additionalProperties": False,
        "properties": {"op": {"const": "delete_sat"}, "sat": {"type": "string"}},
    },
    "inc_mass": {
        "type": "object",
        "required": ["op", "planet"],
        "additionalProperties": False,
        "properties": {
            "op": {"const": "inc_mass"},
            "planet": {"type": "string"},
            "by": {"type": "integer", "minimum": 1, "maximum": 3},
        },
    },
}

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["ops"],
    "properties": {"ops": {"type": "array"}},
}


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = (
        MAP_SCHEMA if name == "map" else ANSWER_SCHEMA if name == "answer" else OP_SCHEMAS[name]
    )
    return Draft202012Validator(schema)


def _first_error(name: str, instance: Any) -> str | None:
    error = next(iter(sorted(_validator(name).iter_errors(instance), key=str)), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def map_schema_error(data: Any) -> str | None:
    """The first schema violation of a whole map document, or None."""
    return _first_error("map", data)


def answer_shape_error(answer: Any) -> str | None:
    """Why an update answer is not `{"ops": [...]}`, or None."""
    return _first_error("answer", answer)


def op_shape_error(op: Any) -> str | None:
    """Why one op has the wrong shape (unknown name, missing or mistyped field), or None."""
    if not isinstance(op, dict):
        return "an op must be a JSON object"
    name = op.get("op")
    if not isinstance(name, str):
        return "op has no 'op' name"
    if name not in OP_SCHEMAS:
        return f"unknown op {name!r}"
    return _first_error(name, op)
