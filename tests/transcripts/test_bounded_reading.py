"""Transcripts are opened only as regular files and read from the end in bounded work (issue 13,
item 5): a FIFO never blocks, a 100 MB line without a newline or a 2 GB sparse file is walked in
bounded chunks, and a turn of thousands of tool calls is read as its start and its end."""

from __future__ import annotations

import os
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from bench.stop_bench import earlier_turns, write_agentic_turn
from cms.errors import TranscriptError
from cms.transcripts import claude_code, cleanup, codex, jsonl, reader, turns

from .builders import codex_event, codex_message, codex_meta, turn, write_jsonl

MB = 1024 * 1024
# what one call may read at most: the cold search, one overlong line, the head and the window
READ_BOUND = turns.COLD_SCAN + jsonl.MAX_LINE + turns.HEAD_WINDOW + turns.TAIL_WINDOW + MB


class CountingFile:
    """A transcript file that counts the bytes read through it."""

    total = 0

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def read(self, size: int = -1) -> bytes:
        data: bytes = self.handle.read(size)
        CountingFile.total += len(data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.handle, name)

    def __enter__(self) -> CountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> type[CountingFile]:
    opener = jsonl.open_transcript
    monkeypatch.setattr(jsonl, "open_transcript", lambda path: CountingFile(opener(path)))
    CountingFile.total = 0
    return CountingFile


def sparse_file(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def in_thread(call: Any) -> Any:
    """Run `call` in a thread; a call that blocks fails the test instead of hanging it."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the call blocked"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_transcript_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(TranscriptError, match="not a regular file"):
        in_thread(lambda: reader.read_latest_exchange(fifo))
    with pytest.raises(TranscriptError, match="not a regular file"):
        in_thread(lambda: jsonl.check_readable(fifo))
    exchange = in_thread(lambda: reader.read_latest_exchange(fifo, "Decided: Postgres 16."))
    assert exchange.assistant == "Decided: Postgres 16."
    assert exchange.extra["transcript"] == "missing"


def test_a_folder_as_transcript_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="not a regular file"):
        reader.read_latest_exchange(tmp_path)


def test_a_100_mb_line_without_newline_is_walked_in_bounded_memory(tmp_path: Path) -> None:
    path = sparse_file(tmp_path / "one-line.jsonl", 100 * MB)  # zeros: no newline anywhere
    tracemalloc.start()
    try:
        start, lines = jsonl.read_tail(path, lambda line: True)
        counted = turns.count_lines(path, 100 * MB, lambda line: True)
        every = list(jsonl.iter_lines(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (start, lines, counted, every) == (0, [], 0, [])  # an overlong line is skipped
    assert peak < 2 * jsonl.MAX_LINE + 4 * MB  # never the whole line in memory


def test_the_stop_reader_reads_a_bounded_part_of_a_huge_file_without_newlines(
    tmp_path: Path, bytes_read: type[CountingFile]
) -> None:
    for name, size in (("one-line.jsonl", 100 * MB), ("sparse.jsonl", 2048 * MB)):
        path = sparse_file(tmp_path / name, size)
        memo = turns.LineCount()
        for _ in range(2):  # the first Stop of a chat, then one with the count it kept
            bytes_read.total = 0
            exchange = reader.read_latest_exchange(path, "Done.", memo=memo)
            assert exchange is not None and exchange.assistant == "Done."
            assert exchange.user == "" and exchange.turn == 0
            assert bytes_read.total < READ_BOUND


def test_an_overlong_line_is_skipped_and_the_lines_around_it_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    long = b"x" * (jsonl.MAX_LINE + 10)
    path.write_bytes(b"START a\n" + long + b"\nb\nSTART c\n" + long + b"\nd\n")
    assert list(jsonl.iter_lines(path)) == [b"START a", b"b", b"START c", b"d"]
    _, lines = jsonl.read_tail(path, lambda line: line.startswith(b"START"))
    assert lines == [b"START c", b"d", b""]
    assert turns.count_lines(path, path.stat().st_size, lambda line: line.startswith(b"START")) == 2


def agentic_transcript(path: Path, calls: int) -> Path:
    """An earlier short turn, then one prompt followed by `calls` tool calls and an answer."""
    with path.open("wb") as handle:
        handle.write(earlier_turns())
        write_agentic_turn(handle, calls)
    return path


def test_a_turn_of_thousands_of_tool_calls_is_read_as_its_start_and_end(
    tmp_path: Path, bytes_read: type[CountingFile]
) -> None:
    path = tmp_path / "agentic.jsonl"
    path.write_bytes(earlier_turns())
    memo = turns.LineCount()
    before = claude_code.read_latest_exchange(path, memo=memo)  # the Stop before the turn
    assert before is not None and before.turn == 1
    agentic_transcript(tmp_path / "full.jsonl", 4000)
    with path.open("ab") as handle:  # the same file grows by one long turn
        handle.write((tmp_path / "full.jsonl").read_bytes()[len(earlier_turns()) :])
    size = path.stat().st_size
    assert size > 8 * MB

    bytes_read.total = 0
    tracemalloc.start()
    try:
        exchange = claude_code.read_latest_exchange(path, memo=memo)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert exchange is not None
    assert exchange.user.startswith("Port the billing service") and exchange.turn == 2
    assert exchange.assistant == "Done: billing runs on Postgres 16; all tests pass."
    assert exchange.tools[0].input == "make t0" and exchange.tools[-1].input == "make t3999"
    assert len(exchange.tools) == 80 and int(exchange.extra["transcript_skipped_bytes"]) > 0
    assert bytes_read.total < 4 * (turns.HEAD_WINDOW + turns.TAIL_WINDOW)
    assert peak < 8 * MB

    again = claude_code.read_latest_exchange(path, memo=memo)  # a repeated Stop: same turn
    assert again == exchange


def test_without_a_kept_count_a_prompt_beyond_reach_is_reported_lost(tmp_path: Path) -> None:
    path = agentic_transcript(tmp_path / "agentic.jsonl", 4000)
    assert path.stat().st_size > turns.COLD_SCAN + turns.TAIL_WINDOW
    exchange = claude_code.read_latest_exchange(path, memo=turns.LineCount())
    assert exchange is not None
    assert exchange.user == "" and exchange.extra["prompt"] == "beyond reach"
    assert exchange.assistant == "Done: billing runs on Postgres 16; all tests pass."


def test_a_turn_within_the_cold_search_is_found_and_numbered_without_a_kept_count(
    tmp_path: Path,
) -> None:
    path = agentic_transcript(tmp_path / "agentic.jsonl", 400)
    assert turns.TAIL_WINDOW < path.stat().st_size < turns.COLD_SCAN
    exchange = claude_code.read_latest_exchange(path, memo=turns.LineCount())
    assert exchange is not None and exchange.turn == 2
    assert exchange.user.startswith("Port the billing service")
    assert exchange.tools[-1].input == "make t399"


def test_turns_added_after_a_kept_count_are_numbered_on(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", turn("one", "reply one"))
    memo = turns.LineCount()
    numbers = []
    for n in range(2, 6):
        first = claude_code.read_latest_exchange(path, memo=memo)
        assert first is not None
        numbers.append(first.turn)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(write_jsonl(tmp_path / "x.jsonl", turn(f"p{n}", f"r{n}")).read_text())
    assert numbers == [1, 2, 3, 4]


def test_a_codex_rollout_is_read_within_the_same_bounds(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [codex_meta()]
    for n in range(1, 4):
        records += [
            codex_message("user", f"prompt {n}"),
            codex_event("user_message", message=f"prompt {n}"),
            codex_message("assistant", f"answer {n}"),
        ]
    path = write_jsonl(tmp_path / "rollout-x.jsonl", records)
    memo = turns.LineCount()
    for _ in range(2):
        exchange = codex.read_latest_exchange(path, memo=memo)
        assert exchange is not None
        assert (exchange.user, exchange.turn, exchange.assistant) == ("prompt 3", 3, "answer 3")
        assert exchange.extra["session_id"] == "thread-1"


def test_a_long_text_is_cut_between_words_before_redaction_so_no_half_secret_survives() -> None:
    secret = "ghp_" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4cD6"
    key = "-----BEGIN PRIVATE KEY-----\n" + "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n" * 6
    key += "-----END PRIVATE KEY-----\n"  # redacted to a short marker: the kept head shrinks
    head = cleanup.TOOL_OUTPUT_LIMIT // 2 + cleanup._MARGIN  # where the text is cut first
    for into in (4, 12, 20, 30):  # the first cut falls inside the token
        text = key + "x" * (head - len(key) - into - 1) + " " + secret + " tail" * 400
        cleaned = cleanup.clean_text(text, cleanup.TOOL_OUTPUT_LIMIT)
        assert "PRIVATE KEY" not in cleaned
        assert secret[:into] not in cleaned and secret[into:] not in cleaned
