"""cms.jsonio reads and writes JSON exactly as the json package does, without importing it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cms import jsonio
from tests.hooks.helpers import ROOT

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(value=VALUES, ascii_only=st.booleans(), pad=st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_values_round_trip_as_with_the_json_package(
    value: object, ascii_only: bool, pad: str
) -> None:
    text = jsonio.dumps(value, ensure_ascii=ascii_only)
    assert text == json.dumps(value, ensure_ascii=ascii_only)
    assert jsonio.loads(pad + text + pad) == json.loads(text)


@pytest.mark.parametrize("bad", ["", "  ", "[1,]", '{"a": 1} x', '{"a" 1}', "[1] [2]", "nul"])
def test_a_bad_document_raises_the_json_package_s_error_and_message(bad: str) -> None:
    with pytest.raises(json.JSONDecodeError) as ours:
        jsonio.loads(bad)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(bad)
    assert str(ours.value) == str(theirs.value)


def test_what_json_cannot_encode_raises_type_error_and_bytes_must_be_utf8() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsonio.dumps({"a": object()})
    with pytest.raises(ValueError, match="not UTF-8"):
        jsonio.parse_json(b"\xff[]")
    assert jsonio.loads("NaN") != jsonio.loads("NaN") and jsonio.loads("-Infinity") < 0


def test_reading_and_writing_never_imports_the_json_package() -> None:
    code = (
        "import sys; from cms import jsonio; "
        "jsonio.loads(jsonio.dumps({'a': [1, 2.5, 'é']})); print('json' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == b"False"


def test_a_truncated_document_is_a_json_error_in_an_interpreter_without_site() -> None:
    code = (
        "from cms import jsonio\n"
        "try:\n"
        "    jsonio.loads('{\"suns\": [1, 2')\n"
        "except ValueError as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == b"JSONDecodeError", done.stderr
