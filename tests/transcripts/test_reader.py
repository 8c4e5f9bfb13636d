"""The reader entry point: format detection, dispatch, and what happens without a transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.errors import TranscriptError
from cms.transcripts import reader
from tests.transcripts.builders import (
    codex_event,
    codex_message,
    codex_meta,
    turn,
    write_jsonl,
)


def test_format_is_told_by_the_records_not_the_name(tmp_path: Path) -> None:
    claude = write_jsonl(tmp_path / "rollout-looks-like-codex.jsonl", turn("hi", "hello"))
    rollout = write_jsonl(
        tmp_path / "session.jsonl",
        [codex_meta(), codex_event("user_message", message="hi"), codex_message("assistant", "yo")],
    )
    assert reader.detect_format(claude) == "claude_code"
    assert reader.detect_format(rollout) == "codex"
    assert reader.read_exchanges(rollout)[0].agent == "codex"
    assert reader.read_exchanges(claude)[0].agent == "claude_code"
    latest = reader.read_latest_exchange(rollout)
    assert latest is not None and latest.agent == "codex" and latest.user == "hi"


def test_empty_or_foreign_file_has_no_format_and_no_turns(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    foreign = write_jsonl(tmp_path / "other.jsonl", ["not json", {"hello": "world"}])
    assert reader.detect_format(empty) is None
    assert reader.detect_format(foreign) is None
    assert reader.read_latest_exchange(empty) is None
    assert reader.read_exchanges(foreign) == []


def test_missing_transcript_raises_a_one_line_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError) as caught:
        reader.read_latest_exchange(tmp_path / "nope.jsonl")
    assert "\n" not in str(caught.value) and "nope.jsonl" in str(caught.value)
    with pytest.raises(TranscriptError):
        reader.read_exchanges(tmp_path / "nope.jsonl")
    with pytest.raises(TranscriptError):
        reader.read_latest_exchange(tmp_path)  # a directory
    with pytest.raises(TranscriptError):
        reader.read_latest_exchange(None)


def test_missing_transcript_at_stop_still_gives_the_answer(tmp_path: Path) -> None:
    exchange = reader.read_latest_exchange(
        tmp_path / "nope.jsonl", "All done; token=abcd1234", agent="codex"
    )
    assert exchange is not None
    assert (exchange.user, exchange.turn, exchange.agent) == ("", 0, "codex")
    assert exchange.assistant == "All done; token=[REDACTED:secret]"
    assert exchange.extra["transcript"] == "missing"
    assert reader.read_latest_exchange(None, "answer") is not None


def test_the_update_model_reads_what_an_edit_replaced_on_one_line_each() -> None:
    from cms.transcripts.exchange import REPLACED_CHARS, Exchange, ToolCall

    long_old = "x = 1\n" + "word " * 100
    tool = ToolCall(
        "Edit", "config/staging.env", replaced=(("port=5433\nhost=db", "port=6543\nhost=db"),
                                                (long_old, "y = 2")),
    )  # fmt: skip
    text = Exchange(user="it is on 6543 now", assistant="Moved it.", tools=(tool,)).render()
    assert (
        "TOOL Edit: config/staging.env\n  replaced: port=5433 host=db -> port=6543 host=db" in text
    )
    line = next(part for part in text.splitlines() if part.startswith("  replaced: x = 1"))
    assert len(line.split(" -> ")[0]) <= len("  replaced: ") + REPLACED_CHARS
