"""Compaction summaries are read apart from the turns: the agent's own account of the turns it
was about to forget, without its framing lines, redacted; sidechains and other records ignored."""

from __future__ import annotations

from pathlib import Path

from cms.transcripts.reader import read_exchanges, read_summaries
from tests.transcripts.builders import (
    codex_meta,
    codex_record,
    system,
    turn,
    user,
    write_jsonl,
)

SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
    "Summary:\n1. Key Technical Concepts:\n"
    "   - SPOTTER_OTEL_ENABLED environment variable for opt-out\n"
    "   - token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 in the old .env\n\n"
    "If you need specific details from before compaction (like exact code snippets), read the "
    "full transcript at: /home/dev/.claude/projects/p/s.jsonl"
)


def test_a_claude_code_compaction_summary_is_read_without_its_frame_and_redacted(
    tmp_path: Path,
) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            *turn("Add tracing.", "Tracing is added."),
            system("compact_boundary"),
            user(SUMMARY, isCompactSummary=True),
            user("a sidechain summary", isCompactSummary=True, isSidechain=True),
            *turn("Go on.", "Done."),
        ],
    )
    [summary] = read_summaries(path)
    assert "SPOTTER_OTEL_ENABLED environment variable for opt-out" in summary
    assert "continued from a previous conversation" not in summary
    assert "read the full transcript" not in summary
    assert "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789" not in summary
    # the summary is never taken for a prompt or an answer
    assert all("SPOTTER" not in e.user + e.assistant for e in read_exchanges(path))


def test_a_codex_compacted_record_is_read_as_a_summary(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-1.jsonl",
        [
            codex_meta(),
            codex_record("compacted", {"message": "The deploy runs from scripts/deploy.sh."}),
            codex_record("compacted", {"message": "   "}),
        ],
    )
    assert read_summaries(path) == ["The deploy runs from scripts/deploy.sh."]


def test_a_chat_without_compaction_has_no_summary(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", turn("Hello there.", "Hi."))
    assert read_summaries(path) == []
