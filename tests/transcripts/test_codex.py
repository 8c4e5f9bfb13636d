"""Codex rollouts: prompts from user_message events or user messages (never the environment and
AGENTS.md pseudo-messages), exec output cleaned, polling merged, patches naming files."""

from __future__ import annotations

import json
from pathlib import Path

from cms.transcripts import codex
from tests.transcripts.builders import (
    codex_call,
    codex_context,
    codex_event,
    codex_message,
    codex_meta,
    codex_output,
    codex_record,
    exec_output,
    write_jsonl,
)
from tests.transcripts.test_redact import fake

ENV = "<environment_context>\n  <cwd>/home/dev/proj</cwd>\n</environment_context>"
AGENTS = "# AGENTS.md instructions for /home/dev/proj\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>"


def _turn_with_events(prompt: str, answer: str, model: str = "gpt-test") -> list[dict[str, object]]:
    return [
        codex_event("task_started", turn_id="t"),
        codex_message("developer", "<permissions instructions>sandbox</permissions instructions>"),
        codex_message("user", ENV),
        codex_context(model),
        codex_message("user", prompt),
        codex_event("user_message", message=prompt, images=[]),
        codex_record("response_item", {"type": "reasoning", "encrypted_content": "gAAAA"}),
        codex_event("agent_message", message=answer, phase="final_answer"),
        codex_message("assistant", answer),
        codex_event("task_complete", last_agent_message=answer),
    ]


def test_prompts_come_once_each_and_pseudo_messages_are_skipped(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-a.jsonl",
        [
            codex_meta(),
            codex_message("user", AGENTS),
            *_turn_with_events("explain the repo", "It is a CLI."),
            *_turn_with_events("which languages?", "Python and Go.", model="gpt-next"),
        ],
    )
    exchanges = codex.read_exchanges(path)
    assert [(e.turn, e.user, e.assistant) for e in exchanges] == [
        (1, "explain the repo", "It is a CLI."),
        (2, "which languages?", "Python and Go."),
    ]
    latest = codex.read_latest_exchange(path)
    assert latest == exchanges[-1]
    assert latest is not None and latest.agent == "codex"
    assert latest.extra.pop("last_record").startswith("2026-")  # rollout records have no ids
    assert latest.extra == {
        "session_id": "thread-1",
        "cwd": "/home/dev/proj",
        "version": "0.171.0",
        "model": "gpt-next",
    }


def test_user_messages_alone_are_prompts_when_there_are_no_events(tmp_path: Path) -> None:
    memory = "<cms-memory>INDEX-XYZ</cms-memory>"
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [
            codex_meta(),
            codex_message("developer", memory),  # where hook context lands in Codex
            codex_message("user", ENV),
            codex_message("user", "hello codex"),
            codex_message("developer", memory),
            codex_message("assistant", "ECHO: hello codex"),
            codex_message("user", f"second {memory}turn"),
            codex_message("assistant", "ECHO: second turn"),
        ],
    )
    exchanges = codex.read_exchanges(path)
    assert [(e.turn, e.user) for e in exchanges] == [(1, "hello codex"), (2, "second turn")]
    assert codex.read_latest_exchange(path) == exchanges[-1]
    assert all("INDEX-XYZ" not in e.render() for e in exchanges)


def test_exec_output_is_cleaned_and_polling_merged_into_the_command(tmp_path: Path) -> None:
    running = (
        "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 77\n"
        "Original token count: 0\nOutput:\n"
    )
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [
            codex_meta(),
            codex_event("user_message", message="run the tests"),
            codex_call("c1", "exec_command", {"cmd": "pytest -q", "workdir": "/p"}),
            codex_output("c1", running),
            codex_call("c2", "write_stdin", {"session_id": 77, "chars": ""}),
            codex_output("c2", exec_output("3 passed")),
            codex_call("c3", "shell", {"command": ["bash", "-lc", "false"]}),
            codex_output("c3", exec_output("", code=1)),
            codex_message("assistant", "Tests pass."),
        ],
    )
    exchange = codex.read_latest_exchange(path)
    assert exchange is not None
    assert [(t.name, t.input, t.output, t.is_error) for t in exchange.tools] == [
        ("exec_command", "pytest -q", "3 passed", False),
        ("shell", "false", "", True),
    ]


def test_apply_patch_names_its_files(tmp_path: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n"
        "*** Add File: src/new.ts\n+x\n*** End Patch"
    )
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [
            codex_event("user_message", message="set the default to 90"),
            codex_record(
                "response_item",
                {
                    "type": "custom_tool_call",
                    "call_id": "p1",
                    "name": "apply_patch",
                    "input": patch,
                },
            ),
            codex_record(
                "response_item",
                {
                    "type": "custom_tool_call_output",
                    "call_id": "p1",
                    "output": json.dumps({"output": "Success.", "metadata": {"exit_code": 0}}),
                },
            ),
            codex_record(
                "response_item",
                {"type": "web_search_call", "action": {"type": "search", "query": "opencode"}},
            ),
            codex_event("agent_message", message="Set it to 90."),
        ],
    )
    exchange = codex.read_latest_exchange(path)
    assert exchange is not None
    assert exchange.files == ("src/app.ts", "src/new.ts")
    assert exchange.tools[0].input == "Update src/app.ts, Add src/new.ts"
    assert exchange.tools[0].replaced == (("a", "b"),)
    assert exchange.tools[0].output == "Success."
    assert exchange.tools[1].name == "web_search" and exchange.tools[1].input == "opencode"
    assert exchange.assistant == "Set it to 90."  # from the event when no message item exists


def test_planted_secrets_are_redacted_in_a_rollout(tmp_path: Path) -> None:
    key = fake("sk-proj-", 50)
    token = fake("glpat-", 20)
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [
            codex_event("user_message", message=f"use OPENAI_API_KEY={key}"),
            codex_call("c1", "exec_command", {"cmd": f"curl -H 'PRIVATE-TOKEN: {token}' x"}),
            codex_output("c1", exec_output(f"token={token}")),
            codex_message("assistant", f"Stored {key}."),
        ],
    )
    exchange = codex.read_latest_exchange(path)
    assert exchange is not None
    rendered = exchange.render() + repr(exchange)
    assert key not in rendered and token not in rendered
    assert "[REDACTED:openai_key]" in exchange.user


def test_lagging_rollout_takes_the_last_assistant_message(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [codex_meta(), codex_event("user_message", message="do it")],
    )
    exchange = codex.read_latest_exchange(path, "Done it.")
    assert exchange is not None
    assert (exchange.user, exchange.assistant, exchange.turn) == ("do it", "Done it.", 1)


def test_a_patch_run_as_a_command_keeps_what_it_replaced(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: a.env\n@@\n-port=5433\n+port=6543\n*** End Patch"
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [
            codex_event("user_message", message="staging is on 6543 now"),
            codex_call("c1", "exec_command", {"command": ["apply_patch", patch]}),
            codex_output("c1", "Done!"),
            codex_event("agent_message", message="Moved it."),
        ],
    )
    exchange = codex.read_latest_exchange(path)
    assert exchange is not None
    assert exchange.tools[0].replaced == (("port=5433", "port=6543"),)
