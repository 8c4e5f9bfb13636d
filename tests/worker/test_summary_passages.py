"""A chat's compaction summaries reach its project's memory as passages, at capture time and in
`cms replay`, so that a later chat's search finds what the chat compacted away."""

from __future__ import annotations

from pathlib import Path

from cms.config import Config
from cms.observations.access import open_project_memory
from cms.search.project import search_project
from cms.worker.capture import run_capture
from tests.transcripts.builders import system, turn, user, write_jsonl

SESSION = "chat-compacted-1"
SUMMARY = (
    "Summary:\n1. Key Technical Concepts:\n"
    "   - Pre-commit hooks enforcing: mix format, credo --strict, dialyzer, mix test\n"
    "   - Graceful degradation: tracing failures must never crash the app\n"
)


def compacted_transcript(tmp_path: Path, summary: str = SUMMARY) -> Path:
    return write_jsonl(
        tmp_path / "t.jsonl",
        [
            *turn("Wire tracing into the app.", "Tracing is wired in."),
            system("compact_boundary"),
            user(summary, isCompactSummary=True),
            *turn("Go on with the controllers.", "The controllers are instrumented."),
        ],
    )


def search(project: Path, query: str) -> list[str]:
    memory = open_project_memory(project, create=False)
    assert memory is not None
    with memory:
        return [f"{h.id} {h.text}" for h in search_project(memory, query, k=5)]


def test_capture_indexes_the_compaction_summary_for_a_later_chats_search(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    payload = {"transcript": str(compacted_transcript(tmp_path)), "cwd": str(project)}
    run_capture(SESSION, {**payload, "reason": "other"}, Config(), force_local=True)
    found = search(project, "which checks does the pre-commit hook enforce")
    assert any("credo --strict, dialyzer" in f and "/S1." in f for f in found)


def test_indexing_the_summaries_again_replaces_them(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    payload = {"transcript": str(compacted_transcript(tmp_path)), "cwd": str(project)}
    run_capture(SESSION, {**payload, "reason": "PreCompact"}, Config(), force_local=True)
    compacted_transcript(tmp_path, SUMMARY.replace("mix test", "mix test --cover"))
    run_capture(SESSION, {**payload, "reason": "other"}, Config(), force_local=True)
    found = search(project, "pre-commit hook checks credo dialyzer")
    assert len([f for f in found if "credo --strict" in f]) == 1
    assert any("mix test --cover" in f for f in found)
