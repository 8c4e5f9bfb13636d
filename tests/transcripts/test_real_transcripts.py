"""Every real transcript under ../shared/data (Claude Code 1.0.x to 2.1.332, Codex 0.125 to
0.171) reads without error, turn by turn and from the end, and what comes out is clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cms.transcripts import reader
from cms.transcripts.exchange import Exchange
from cms.transcripts.redact import redact_text
from tests.transcripts.builders import SHARED_DATA, real_transcripts

FILES = real_transcripts()
pytestmark = pytest.mark.skipif(not FILES, reason="../shared/data is not present")

# Text that hooks injected or the CLI wrote as bookkeeping: it must never read as the chat.
INJECTED = ("MARKER-123", "SESSIONSTART-456", "CODEX-MARKER-123", "CODEX-SS-456")
NOISE = (
    "This session is being continued from a previous conversation",
    "<local-command",
    "<system-reminder>",
    "<command-name>",
    "[Request interrupted",
    "<environment_context>",
    "AGENTS.md instructions",
    "Caveat: The messages below",
)


def _id(path: Path) -> str:
    return str(path.relative_to(SHARED_DATA))


def _texts(exchange: Exchange) -> list[str]:
    texts = [exchange.user, exchange.assistant, *exchange.files]
    for tool in exchange.tools:
        texts += [tool.input, tool.output]
    return texts


@pytest.fixture(scope="module")
def parsed() -> dict[Path, tuple[list[Exchange], Exchange | None]]:
    return {
        path: (reader.read_exchanges(path), reader.read_latest_exchange(path)) for path in FILES
    }


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_latest_exchange_is_the_last_of_all_turns(
    path: Path, parsed: dict[Path, tuple[list[Exchange], Exchange | None]]
) -> None:
    exchanges, latest = parsed[path]
    if exchanges and latest is not None and "transcript_skipped_bytes" in latest.extra:
        whole = exchanges[-1]  # a turn longer than the window: its start and its end agree
        assert (latest.user, latest.turn, latest.timestamp) == (
            whole.user,
            whole.turn,
            whole.timestamp,
        )
        assert latest.tools[-1] == whole.tools[-1] and latest.tools[0] == whole.tools[0]
        assert latest.assistant[-100:] == whole.assistant[-100:]
    elif exchanges:
        assert latest == exchanges[-1]
        assert [e.turn for e in exchanges if e.turn] == list(
            range(1, 1 + sum(1 for e in exchanges if e.turn))
        )
    else:
        assert latest is None


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_no_injected_context_or_bookkeeping_reaches_the_exchanges(
    path: Path, parsed: dict[Path, tuple[list[Exchange], Exchange | None]]
) -> None:
    exchanges, _ = parsed[path]
    for exchange in exchanges:
        user_and_answer = exchange.user + "\n" + exchange.assistant
        for marker in INJECTED:
            assert marker not in user_and_answer
        for noise in NOISE:
            assert noise not in exchange.user


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_every_text_is_already_redacted(
    path: Path, parsed: dict[Path, tuple[list[Exchange], Exchange | None]]
) -> None:
    exchanges, _ = parsed[path]
    for exchange in exchanges:
        for text in _texts(exchange):
            assert redact_text(text) == text


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_sidechain_text_never_appears(
    path: Path, parsed: dict[Path, tuple[list[Exchange], Exchange | None]]
) -> None:
    side: list[str] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("isSidechain"):
            content = (record.get("message") or {}).get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            side += [
                b["text"]
                for b in blocks
                if isinstance(b, dict) and isinstance(b.get("text"), str) and len(b["text"]) > 40
            ]
    answers = "\n".join(e.assistant + "\n" + e.user for e in parsed[path][0])
    for text in side:
        assert text.strip()[:60] not in answers


def test_formats_are_detected() -> None:
    for path in FILES:
        expected = "codex" if "codex" in _id(path) else "claude_code"
        assert reader.detect_format(path) == expected, path


def _read(relative: str) -> list[Exchange]:
    return reader.read_exchanges(SHARED_DATA / relative)


def test_compaction_keeps_the_three_real_prompts() -> None:
    exchanges = _read("claude-code-samples/claude-code-2.1.332/transcripts/compact-manual.jsonl")
    assert [(e.turn, e.user, e.assistant) for e in exchanges] == [
        (1, "first message about apples", "ECHO: first message about apples"),
        (2, "second message about pears", "ECHO: second message about pears"),
        (3, "after compaction", "ECHO: after compaction"),
    ]


def test_tool_call_and_its_result_are_paired() -> None:
    (exchange,) = _read("claude-code-samples/claude-code-2.1.332/transcripts/tool-bash.jsonl")
    assert exchange.user == "run echo"
    assert [(t.name, t.input, t.output) for t in exchange.tools] == [
        ("Bash", "echo hi-from-bash", "hi-from-bash")
    ]
    assert exchange.assistant.endswith("The command printed: hi-from-bash")


def test_codex_tool_exec_rollout() -> None:
    (exchange,) = _read("claude-code-samples/codex-0.171.0/rollouts/tool-exec.jsonl")
    assert (exchange.agent, exchange.user) == ("codex", "run a tool")
    assert [(t.name, t.input, t.output) for t in exchange.tools] == [
        ("exec_command", "echo hi-from-codex", "hi-from-codex")
    ]


def test_old_format_slash_command_session() -> None:
    exchanges = _read(
        "transcripts/claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    )
    assert [e.user for e in exchanges] == [
        "/orchestrator create TODO app by Next.js",
        "Thanks! Please update CLAUDE.md for current changes",
    ]
    assert exchanges[1].files == ("/path/to/Demo/CLAUDE.md",)


def test_long_session_with_compaction_has_two_prompts() -> None:
    exchanges = _read("transcripts/claude-code/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
    assert [e.user[:24] for e in exchanges] == [
        "Work on bead spotter-4te",
        "continue implementation",
    ]
    assert "spotter-4te" in exchanges[1].assistant
