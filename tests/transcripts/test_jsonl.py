"""JSON-lines access: lenient parsing, reading backwards from the end, unreadable files."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.errors import TranscriptError
from cms.transcripts import jsonl


@pytest.mark.parametrize(
    "line",
    [b"", b"   ", b"not json", b'"text"', b"42", b"[1]", b'{"a": 1', b"\xff\xfe{", b"{" * 5000],
)
def test_bad_lines_parse_to_none(line: bytes) -> None:
    assert jsonl.parse_line(line) is None


def test_object_line_parses() -> None:
    assert jsonl.parse_line(b' {"type": "user", "n": 1}\r') == {"type": "user", "n": 1}


def test_tail_starts_at_the_last_matching_line_with_its_offset(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    body = b"a1\nSTART 1\nb\nSTART 2\nc\nd"  # no newline at the end
    path.write_bytes(body)
    start, lines = jsonl.read_tail(path, lambda line: line.startswith(b"START"))
    assert lines == [b"START 2", b"c", b"d"]
    assert body[start:].startswith(b"START 2")
    start, lines = jsonl.read_tail(path, lambda line: line.startswith(b"START"), end=start)
    assert lines[0] == b"START 1" and body[start:].startswith(b"START 1")
    assert jsonl.read_tail(path, lambda line: False) == (
        0,
        [b"a1", b"START 1", b"b", b"START 2", b"c", b"d"],
    )


def test_tail_handles_lines_longer_than_a_block(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    long = b"START " + b"x" * 300_000
    path.write_bytes(b"head\n" + long + b"\n" + b"y" * 200_000 + b"\n")
    start, lines = jsonl.read_tail(path, lambda line: line.startswith(b"START"))
    assert start == 5 and lines == [long, b"y" * 200_000, b""]


def test_unreadable_file_raises_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError):
        jsonl.read_tail(tmp_path / "missing.jsonl", lambda line: True)
    with pytest.raises(TranscriptError):
        list(jsonl.iter_lines(tmp_path / "missing.jsonl"))
    with pytest.raises(TranscriptError):
        jsonl.check_readable(tmp_path)
