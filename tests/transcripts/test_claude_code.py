"""Claude Code transcripts: the latest exchange and every turn, from synthetic files shaped like
the real ones (per-block records, tool results, attachments, sidechains, meta, compaction)."""

from __future__ import annotations

from pathlib import Path

from cms.transcripts import claude_code, jsonl
from cms.transcripts.cleanup import (
    ASSISTANT_LIMIT,
    TOOL_INPUT_LIMIT,
    TOOL_OUTPUT_LIMIT,
    USER_LIMIT,
)
from tests.transcripts.builders import (
    assistant,
    attachment,
    system,
    text,
    tool_result,
    tool_use,
    turn,
    user,
    write_jsonl,
)
from tests.transcripts.test_redact import fake


def test_latest_exchange_is_the_last_prompt_with_its_tools_and_answer(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            *turn("first question", "first answer"),
            user("Use Postgres, not Dynamo.", timestamp="2026-08-22T10:00:00Z"),
            assistant(text("Checking the schema."), msg_id="msg_2"),
            assistant(tool_use("toolu_1", "Bash", command="ls db"), msg_id="msg_2"),
            assistant(tool_use("toolu_2", "Read", file_path="/p/db/schema.sql"), msg_id="msg_2"),
            tool_result("toolu_1", "schema.sql"),
            tool_result("toolu_2", [{"type": "text", "text": "     1→CREATE TABLE t (id int);"}]),
            assistant(text("Switched the plan to Postgres 16.")),
            system("stop_hook_summary"),
        ],
    )
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    assert exchange.user == "Use Postgres, not Dynamo."
    assert exchange.assistant == "Checking the schema.\n\nSwitched the plan to Postgres 16."
    assert [(t.name, t.input, t.output) for t in exchange.tools] == [
        ("Bash", "ls db", "schema.sql"),
        ("Read", "/p/db/schema.sql", "CREATE TABLE t (id int);"),
    ]
    assert exchange.files == ("/p/db/schema.sql",)
    assert exchange.turn == 2
    assert exchange.timestamp == "2026-08-22T10:00:00Z"
    assert exchange.agent == "claude_code"
    assert exchange.extra["cwd"] == "/home/dev/proj" and exchange.extra["model"] == "claude-test"


def test_repeated_records_of_one_message_are_not_doubled(tmp_path: Path) -> None:
    block = assistant(text("Only once."), msg_id="msg_9")
    again = assistant(text("Only once."), msg_id="msg_9")
    path = write_jsonl(tmp_path / "s.jsonl", [user("go"), block, block, again])
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None and exchange.assistant == "Only once."


def test_sidechain_lines_never_reach_the_exchange(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("main prompt"),
            assistant(tool_use("toolu_t", "Task", subagent_type="general", description="dig")),
            user("SIDECHAIN PROMPT", isSidechain=True),
            assistant(text("SIDECHAIN ANSWER"), isSidechain=True),
            assistant(tool_use("toolu_s", "Bash", command="SIDECHAIN CMD"), isSidechain=True),
            tool_result("toolu_t", [{"type": "text", "text": "subagent summary"}]),
            assistant(text("main answer")),
        ],
    )
    exchanges = claude_code.read_exchanges(path)
    assert len(exchanges) == 1
    rendered = exchanges[0].render()
    assert "SIDECHAIN" not in rendered
    assert exchanges[0].tools[0].output == "subagent summary"


def test_meta_compaction_and_local_commands_are_not_prompts(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            *turn("real prompt one", "answer one"),
            system("compact_boundary", content="Conversation compacted"),
            user(
                "This session is being continued from a previous conversation. Summary...",
                isCompactSummary=True,
                isVisibleInTranscriptOnly=True,
            ),
            user(
                "<local-command-caveat>Caveat: local commands.</local-command-caveat>", isMeta=True
            ),
            user(
                "<command-name>/compact</command-name>\n<command-args>keep it short</command-args>"
            ),
            user(
                "<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>"
            ),
            user([text("[Request interrupted by user]")]),
            user([text("Base directory for this skill: /x\n# Skill text")], isMeta=True),
            assistant(text("ECHO after compaction")),
        ],
    )
    exchanges = claude_code.read_exchanges(path)
    assert [e.user for e in exchanges] == ["real prompt one"]
    assert exchanges[0].turn == 1
    assert "ECHO after compaction" in exchanges[0].assistant
    latest = claude_code.read_latest_exchange(path)
    assert latest == exchanges[0]


def test_prompt_slash_command_reads_as_the_command_and_its_args(tmp_path: Path) -> None:
    wrapper = (
        "<command-message>orchestrator is running…</command-message>\n"
        "<command-name>/orchestrator</command-name>\n<command-args>create TODO app</command-args>"
    )
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user(wrapper),
            user([text("Split complex tasks into subtasks ...")], isMeta=True),
            assistant(text("Planning the TODO app.")),
        ],
    )
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    assert exchange.user == "/orchestrator create TODO app"
    assert exchange.assistant == "Planning the TODO app."


def test_our_injected_context_is_never_fed_back(tmp_path: Path) -> None:
    memory = "<cms-memory>\nINDEX-TITLE-XYZ (reference data)\n</cms-memory>"
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            attachment(
                {
                    "type": "hook_additional_context",
                    "content": [memory],
                    "hookName": "SessionStart",
                    "hookEvent": "SessionStart",
                }
            ),
            user(memory),  # an older CLI: the injected text arrives as a user line of its own
            user(f"fix the login bug\n{memory}\n<system-reminder>REMINDER-ABC</system-reminder>"),
            user(
                "<user-prompt-submit-hook>INDEX-TITLE-XYZ</user-prompt-submit-hook>",
                isMeta=False,
            ),
            attachment(
                {
                    "type": "hook_additional_context",
                    "content": [memory],
                    "hookName": "UserPromptSubmit",
                    "hookEvent": "UserPromptSubmit",
                }
            ),
            assistant(tool_use("toolu_1", "Bash", command="cat notes")),
            tool_result("toolu_1", f"notes {memory} end"),
            assistant(text("Fixed the login bug.")),
        ],
    )
    exchanges = claude_code.read_exchanges(path)
    assert [e.user for e in exchanges] == ["fix the login bug"]
    everything = exchanges[0].render()
    assert "INDEX-TITLE-XYZ" not in everything and "cms-memory" not in everything
    assert "REMINDER-ABC" not in everything
    assert exchanges[0].tools[0].output == "notes  end"


def test_malformed_lines_are_skipped_and_the_rest_is_read(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            "this is not json",
            '"a json string"',
            "42",
            "[1, 2]",
            '{"type": "user", "message": null}',
            '{"type": "user", "message": {"role": "user", "content": 7}}',
            '{"type": "assistant", "message": {"content": "plain string content"}}',
            *turn("the prompt", "the answer"),
            '{"type": "assistant", "message": {"content": [{"type": "text", "text": "cut',
        ],
    )
    with path.open("ab") as handle:
        handle.write(b"\xff\xfe binary junk \x00\n")
    exchanges = claude_code.read_exchanges(path)
    assert [(e.user, e.assistant) for e in exchanges][-1] == ("the prompt", "the answer")
    assert claude_code.read_latest_exchange(path) == exchanges[-1]


def test_a_subagent_report_is_kept_like_an_answer_and_other_outputs_are_trimmed(
    tmp_path: Path,
) -> None:
    findings = " ".join(f"Finding {n}: the port is set in config {n}." for n in range(40))
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("look into the dev server"),
            assistant(tool_use("toolu_t", "Task", subagent_type="general", description="dig")),
            assistant(tool_use("toolu_b", "Bash", command="cat log")),
            tool_result("toolu_t", [{"type": "text", "text": findings}]),
            tool_result("toolu_b", findings),
            assistant(text("Done.")),
        ],
    )
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    report, log = (tool.output for tool in exchange.tools)
    assert len(findings) > TOOL_OUTPUT_LIMIT and report == findings  # under ASSISTANT_LIMIT
    assert len(findings) < ASSISTANT_LIMIT
    assert len(log) <= TOOL_OUTPUT_LIMIT + 40


def test_a_50_kb_request_line_is_read_and_trimmed(tmp_path: Path) -> None:
    pasted = "log line with words\n" * 2600  # ~52 KB on one JSON line
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user(f"why does this fail?\n{pasted}the end"),
            assistant(tool_use("toolu_1", "Bash", command="x" * 5000)),
            tool_result("toolu_1", "head of output\n" + "y " * 30000 + "\ntail of output"),
            assistant(text("Because of the config.")),
        ],
    )
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    assert exchange.user.startswith("why does this fail?") and exchange.user.endswith("the end")
    assert len(exchange.user) <= USER_LIMIT + 40
    tool = exchange.tools[0]
    assert len(tool.input) <= TOOL_INPUT_LIMIT + 40
    assert tool.output.startswith("head of output") and tool.output.endswith("tail of output")
    assert len(tool.output) <= TOOL_OUTPUT_LIMIT + 40


def test_planted_secrets_are_redacted_in_prompt_answer_and_tools(tmp_path: Path) -> None:
    key = fake("sk-ant-api03-", 40)
    token = fake("ghp_", 36)
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user(f"deploy with ANTHROPIC_API_KEY={key} please"),
            assistant(tool_use("toolu_1", "Bash", command=f"GITHUB_TOKEN={token} gh pr list")),
            tool_result("toolu_1", f"-----BEGIN PRIVATE KEY-----\nMIIEvQIB{token}\n"),
            assistant(text(f"Done; postgres://app:hunter2@db/x and {token}")),
        ],
    )
    for exchange in [claude_code.read_latest_exchange(path), *claude_code.read_exchanges(path)]:
        assert exchange is not None
        rendered = exchange.render() + repr(exchange)
        for secret in (key, token, "hunter2", "MIIEvQIB"):
            assert secret not in rendered
        assert "[REDACTED:anthropic_key]" in exchange.user
        assert "[REDACTED:" in exchange.tools[0].input and "[REDACTED:" in exchange.tools[0].output


def test_latest_exchange_is_found_from_the_end_of_a_long_transcript(tmp_path: Path) -> None:
    records = []
    for n in range(1, 1501):
        records += turn(f"prompt number {n}", f"answer number {n}")
        records.append(assistant(tool_use(f"toolu_{n}", "Bash", command="echo " + "z" * 400)))
        records.append(tool_result(f"toolu_{n}", "z" * 400))
    path = write_jsonl(tmp_path / "long.jsonl", records)
    size = path.stat().st_size
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    assert (exchange.user, exchange.turn) == ("prompt number 1500", 1500)
    assert exchange.assistant == "answer number 1500"

    seen: list[bytes] = []

    def recording(line: bytes) -> bool:
        seen.append(line)
        return b"prompt number" in line

    start, lines = jsonl.read_tail(path, recording)
    assert b"prompt number 1500" in lines[0] and start > size - 4000
    assert len(seen) == 4  # only the last turn's lines were looked at, walking backwards


def test_lagging_transcript_is_completed_from_last_assistant_message(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [*turn("one", "reply one"), user("two"), assistant(text("Working on it."))],
    )
    lagging = claude_code.read_latest_exchange(path, "Final: two is done.")
    assert lagging is not None
    assert lagging.assistant == "Working on it.\n\nFinal: two is done."
    assert lagging.extra["assistant_source"] == "last_assistant_message"
    current = claude_code.read_latest_exchange(path, "Working on it.")
    assert current is not None and current.assistant == "Working on it."
    assert "assistant_source" not in current.extra


def test_prompt_without_answer_yet_takes_the_whole_last_message(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [*turn("one", "reply one"), user("two")])
    exchange = claude_code.read_latest_exchange(path, "Reply two, key sk-proj-" + "a1B2" * 10)
    assert exchange is not None
    assert (exchange.user, exchange.turn) == ("two", 2)
    assert exchange.assistant == "Reply two, key [REDACTED:openai_key]"


def test_queued_prompt_typed_mid_turn_joins_the_turn(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("add the export"),
            assistant(tool_use("toolu_1", "Edit", file_path="/p/export.py")),
            tool_result("toolu_1", "ok"),
            attachment(
                {"type": "queued_command", "prompt": "and use euros", "commandMode": "prompt"}
            ),
            attachment(
                {
                    "type": "queued_command",
                    "prompt": "<task-notification>done</task-notification>",
                    "commandMode": "task-notification",
                }
            ),
            assistant(text("Done, in euros.")),
        ],
    )
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    assert exchange.user == "add the export\n\nand use euros"
    assert exchange.turn == 1 and exchange.files == ("/p/export.py",)


def test_tool_result_falls_back_to_tool_use_result_and_marks_errors(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("run it"),
            assistant(tool_use("toolu_1", "Bash", command="make")),
            tool_result("toolu_1", "", toolUseResult={"stdout": "built", "stderr": "warn"}),
            assistant(tool_use("toolu_2", "Write", file_path="/p/a.txt", content="x")),
            tool_result("toolu_2", "permission denied", is_error=True),
            assistant(text("Built, but the write was denied.")),
        ],
    )
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    assert exchange.tools[0].output == "built\nwarn" and not exchange.tools[0].is_error
    assert exchange.tools[1].is_error and exchange.tools[1].output == "permission denied"


def test_transcript_without_a_prompt_gives_none_unless_a_message_is_given(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "agent-x.jsonl",
        [user("sub task", isSidechain=True), assistant(text("sub answer"), isSidechain=True)],
    )
    assert claude_code.read_latest_exchange(path) is None
    assert claude_code.read_exchanges(path) == []
    fallback = claude_code.read_latest_exchange(path, "the final words")
    assert fallback is not None
    assert (fallback.user, fallback.assistant, fallback.turn) == ("", "the final words", 0)


def test_every_turn_is_read_in_order_with_its_number(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            *turn("a", "1"),
            *turn("b", "2"),
            user([text("[Request interrupted by user]")]),
            *turn("c", "3"),
        ],
    )
    exchanges = claude_code.read_exchanges(path)
    assert [(e.turn, e.user, e.assistant) for e in exchanges] == [
        (1, "a", "1"),
        (2, "b", "2"),
        (3, "c", "3"),
    ]


def test_many_tool_calls_are_capped_keeping_the_latest(tmp_path: Path) -> None:
    records = [user("big refactor")]
    for n in range(150):
        records.append(assistant(tool_use(f"toolu_{n}", "Bash", command=f"step {n}")))
        records.append(tool_result(f"toolu_{n}", f"out {n}"))
    records.append(assistant(text("Refactored.")))
    exchange = claude_code.read_latest_exchange(write_jsonl(tmp_path / "s.jsonl", records))
    assert exchange is not None
    assert len(exchange.tools) == 80 and exchange.extra["tools_omitted"] == "70"
    assert exchange.tools[0].input == "step 0" and exchange.tools[-1].input == "step 149"


def test_an_answered_question_reads_as_the_users_choice_with_the_options_description(
    tmp_path: Path,
) -> None:
    question = "Which tools should we set up?"
    options = [
        {"label": "All four", "description": "Credo + Dialyxir + mix_audit + Sobelow"},
        {"label": "Credo + Dialyxir + mix_audit", "description": "Skip Sobelow (security)"},
    ]
    path = write_jsonl(
        tmp_path / "t.jsonl",
        [
            user("Set up the quality tools."),
            assistant(
                tool_use(
                    "toolu_q",
                    "AskUserQuestion",
                    questions=[{"question": question, "options": options}],
                )
            ),
            tool_result(
                "toolu_q",
                f'User has answered your questions: "{question}"="Credo + Dialyxir + mix_audit".',
                toolUseResult={
                    "questions": [{"question": question, "options": options}],
                    "answers": {question: "Credo + Dialyxir + mix_audit"},
                },
            ),
            assistant(text("Setting up Credo, Dialyxir and mix_audit.")),
        ],
    )
    [exchange] = claude_code.read_exchanges(path)
    [call] = exchange.tools
    assert call.output == (
        "Asked Which tools should we set up: the user chose Credo + Dialyxir + mix_audit "
        "(Skip Sobelow (security))."
    )


def test_an_edit_keeps_what_it_replaced_redacted_and_a_multi_edit_each_of_its_edits(
    tmp_path: Path,
) -> None:
    token = fake("ghp_", 36)
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            user("the staging db is on 6543 now"),
            assistant(
                tool_use(
                    "toolu_1",
                    "Edit",
                    file_path="config/staging.env",
                    old_string="DATABASE_URL=postgres://db:5433/app",
                    new_string=f"DATABASE_URL=postgres://db:6543/app\nTOKEN={token}",
                ),
                tool_use(
                    "toolu_2",
                    "MultiEdit",
                    file_path="docs/env.md",
                    edits=[
                        {"old_string": "port 5433", "new_string": "port 6543"},
                        {"old_string": "same", "new_string": "same"},
                        {"old_string": 7, "new_string": "odd"},
                    ],
                ),
                tool_use("toolu_3", "Bash", command="make test"),
            ),
            tool_result("toolu_1", "ok"),
            assistant(text("Moved staging to 6543.")),
        ],
    )
    exchange = claude_code.read_latest_exchange(path)
    assert exchange is not None
    edit, multi, bash = exchange.tools
    assert edit.input == "config/staging.env"
    old, new = edit.replaced[0]
    assert old == "DATABASE_URL=postgres://db:5433/app" and "6543" in new
    assert token not in new and "[REDACTED:" in new
    assert multi.replaced == (("port 5433", "port 6543"),)  # no change and odd ones left out
    assert bash.replaced == ()
