"""Numbering turns: counting without a split, a count kept between calls on a growing file."""

from __future__ import annotations

import random
from pathlib import Path

from cms.transcripts import turns


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
    assert turns.count_lines(path, size, is_prompt) == expected
    assert turns.count_lines(path, size, is_prompt, b" user ") == expected
    half = len(b"\n".join(lines[:3000])) + 1
    assert turns.count_lines(path, half, is_prompt, b" user ") == sum(
        1 for line in lines[:3000] if is_prompt(line)
    )


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
    memo = turns.LineCount("prompts")
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
        counted = turns.count_lines(path, end, watched, b" user ", memo=memo)
        assert counted == turns.count_lines(path, end, _is_user_prompt, b" user ")
        assert counted == sum(1 for line in lines[:written] if _is_user_prompt(line))
        new = lines[written - step : written]
        assert all(line in new for line in seen)  # nothing before the kept offset was read
        assert memo.offset == end and memo.count == counted


def test_a_rewritten_file_is_counted_afresh(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in _prompt_lines(500, seed=1)))
    memo = turns.LineCount("prompts")
    turns.count_lines(path, path.stat().st_size, _is_user_prompt, memo=memo)
    other = _prompt_lines(700, seed=2)
    path.write_bytes(b"".join(line + b"\n" for line in other))  # same inode, new content
    size = path.stat().st_size
    expected = sum(1 for line in other if _is_user_prompt(line))
    assert turns.count_lines(path, size, _is_user_prompt, memo=memo) == expected
    replaced = tmp_path / "new.jsonl"
    replaced.write_bytes(b"1 user a\n2 user b\n")
    replaced.replace(path)  # another file at the same path
    assert turns.count_lines(path, path.stat().st_size, _is_user_prompt, memo=memo) == 2


def test_a_count_kept_for_another_predicate_starts_over_and_survives_json(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"1 user a\n2 user b\n3 assistant c\n")
    memo = turns.LineCount("prompts")
    assert turns.count_lines(path, path.stat().st_size, _is_user_prompt, memo=memo) == 2
    stored = turns.LineCount.from_json(memo.to_json())
    assert stored.to_json() == memo.to_json()
    other = stored.use_for("answers")
    assert other.offset == 0 and other.count == 0
    assert (
        turns.count_lines(path, path.stat().st_size, lambda x: b"assistant" in x, memo=other) == 1
    )
    for junk in (None, [], {"tag": 1}, {"tag": "x", "file_id": "ab", "probe": "zz"}):
        assert turns.LineCount.from_json(junk).offset == 0
