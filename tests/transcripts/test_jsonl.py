"""JSON-lines access: lenient parsing, reading backwards from the end, counting without a split."""

from __future__ import annotations

import random
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


def test_counting_with_a_needle_matches_counting_every_line(tmp_path: Path) -> None:
    rng = random.Random(7)
    lines = []
    for n in range(6000):
        size = rng.choice([10, 200, 3000, 20_000])
        kind = rng.choice([b"user", b"assistant", b"user tool_use_id"])
        lines.append(b"%d %s " % (n, kind) + b"z" * size)
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    size = path.stat().st_size
    assert size > 9 * 1024 * 1024  # spans several 4 MB chunks

    def is_prompt(line: bytes) -> bool:
        return b" user " in line and b"tool_use_id" not in line

    expected = sum(1 for line in lines if is_prompt(line))
    assert jsonl.count_lines(path, size, is_prompt) == expected
    assert jsonl.count_lines(path, size, is_prompt, b" user ") == expected
    half = len(b"\n".join(lines[:3000])) + 1
    assert jsonl.count_lines(path, half, is_prompt, b" user ") == sum(
        1 for line in lines[:3000] if is_prompt(line)
    )


def test_unreadable_file_raises_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError):
        jsonl.read_tail(tmp_path / "missing.jsonl", lambda line: True)
    with pytest.raises(TranscriptError):
        list(jsonl.iter_lines(tmp_path / "missing.jsonl"))
    with pytest.raises(TranscriptError):
        jsonl.check_readable(tmp_path)


def _prompt_lines(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    return [
        b"%d %s " % (n, rng.choice([b"user", b"assistant", b"user tool_use_id"]))
        + b"z" * rng.choice([5, 80, 2000])
        for n in range(count)
    ]


def _is_user_prompt(line: bytes) -> bool:
    return b" user " in line and b"tool_use_id" not in line


def test_a_kept_count_reads_only_the_new_tail_and_agrees_with_a_full_count(
    tmp_path: Path,
) -> None:
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"")
    lines = _prompt_lines(3000, seed=3)
    memo = jsonl.LineCount("prompts")
    seen: list[bytes] = []

    def watched(line: bytes) -> bool:
        seen.append(line)
        return _is_user_prompt(line)

    written = 0
    rng = random.Random(5)
    while written < len(lines):
        step = rng.randint(1, 400)
        with open(path, "ab") as handle:
            handle.write(b"".join(line + b"\n" for line in lines[written : written + step]))
        written += step
        end = path.stat().st_size
        seen.clear()
        counted = jsonl.count_lines(path, end, watched, b" user ", memo=memo)
        assert counted == jsonl.count_lines(path, end, _is_user_prompt, b" user ")
        assert counted == sum(1 for line in lines[:written] if _is_user_prompt(line))
        new = lines[written - step : written]
        assert all(line in new for line in seen)  # nothing before the kept offset was read
        assert memo.offset == end and memo.count == counted


def test_a_rewritten_file_is_counted_afresh(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in _prompt_lines(500, seed=1)))
    memo = jsonl.LineCount("prompts")
    jsonl.count_lines(path, path.stat().st_size, _is_user_prompt, memo=memo)
    other = _prompt_lines(700, seed=2)
    path.write_bytes(b"".join(line + b"\n" for line in other))  # same inode, new content
    size = path.stat().st_size
    expected = sum(1 for line in other if _is_user_prompt(line))
    assert jsonl.count_lines(path, size, _is_user_prompt, memo=memo) == expected
    replaced = tmp_path / "new.jsonl"
    replaced.write_bytes(b"1 user a\n2 user b\n")
    replaced.replace(path)  # another file at the same path
    assert jsonl.count_lines(path, path.stat().st_size, _is_user_prompt, memo=memo) == 2


def test_a_count_kept_for_another_predicate_starts_over_and_survives_json(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"1 user a\n2 user b\n3 assistant c\n")
    memo = jsonl.LineCount("prompts")
    assert jsonl.count_lines(path, path.stat().st_size, _is_user_prompt, memo=memo) == 2
    stored = jsonl.LineCount.from_json(memo.to_json())
    assert stored.to_json() == memo.to_json()
    other = stored.use_for("answers")
    assert other.offset == 0 and other.count == 0
    assert (
        jsonl.count_lines(path, path.stat().st_size, lambda x: b"assistant" in x, memo=other) == 1
    )
    for junk in (None, [], {"tag": 1}, {"tag": "x", "file_id": "ab", "probe": "zz"}):
        assert jsonl.LineCount.from_json(junk).offset == 0
