"""What a turn said and did is indexed as passages: the prompt, the answer, each tool call (whole
when short, as sentences when long) and what each tool returned; redacted, without questions."""

from __future__ import annotations

from cms.transcripts.exchange import Exchange, ToolCall
from cms.worker.projectsync import exchange_passages

PLAN = (
    "Scaffold the app first. Run npx create-next-app@latest todo-app --typescript --tailwind "
    "--eslint in the repo root. Then add a TodoList component with localStorage persistence "
    "across sessions. Keep the components small and typed."
)


def passages_of(*tools: ToolCall) -> list[tuple[str, str]]:
    exchange = Exchange(
        user="Build the todo app.", assistant="Done: the app is built.", tools=tools
    )
    return exchange_passages(exchange)


def test_a_long_tool_input_is_indexed_as_its_sentences() -> None:
    found = passages_of(ToolCall("Task", PLAN, "", False))
    texts = [text for who, text in found if who == "tool"]
    assert any("npx create-next-app@latest todo-app --typescript" in t for t in texts)
    assert all(len(t) <= 300 for t in texts)


def test_what_a_tool_returned_is_indexed_without_its_questions() -> None:
    output = "[info] REFUSED JOIN terminal:lobby from the socket. Did you mean to join terminal?"
    found = passages_of(ToolCall("Bash", "mix phx.server", output, False))
    texts = [text for who, text in found if who == "tool"]
    assert "Bash: mix phx.server" in texts
    assert any("REFUSED JOIN terminal" in t for t in texts)
    assert not any("Did you mean" in t for t in texts)


def test_a_secret_in_a_tool_output_is_redacted_in_its_passage() -> None:
    secret = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    found = passages_of(
        ToolCall("Bash", "gh auth status", f"Logged in with token {secret} ok", False)
    )
    assert not any(secret in text for _, text in found)
    assert any("Logged in with token" in text for _, text in found)


def test_each_line_of_a_listed_report_stays_whole_in_a_passage() -> None:
    report = "**Differences from the docs:**\n" + "\n".join(
        f"{n}. **Item {n}**: the value {n} differs from the documented value {n + 1} here"
        for n in range(1, 9)
    )
    found = passages_of(ToolCall("Task", "compare the docs", report, False))
    texts = [text for who, text in found if who == "tool"]
    for n in range(1, 9):
        line = f"{n}. **Item {n}**: the value {n} differs from the documented value {n + 1} here"
        assert any(line in t for t in texts), line
    assert all(len(t) <= 300 for t in texts)


def test_the_users_own_plan_is_indexed_but_the_agents_next_step_is_not() -> None:
    exchange = Exchange(
        user="This is really helpful! I'll try to implement a timing decorator myself.",
        assistant="Let me check the file first. The decorator example is saved.",
    )
    texts = [text for _, text in exchange_passages(exchange)]
    assert any("implement a timing decorator myself" in t for t in texts)
    assert not any("Let me check the file" in t for t in texts)


def test_a_web_search_report_is_indexed_beyond_a_plain_tool_outputs_length() -> None:
    from cms.transcripts.cleanup import TOOL_OUTPUT_LIMIT, PendingTool

    findings = [f"Finding {n} of the upstream discussion is noted here." for n in range(40)]
    findings.insert(20, "The issue was resolved through PR #2388, which was merged.")
    for name, kept in (("WebSearch", True), ("Bash", False)):
        pending = PendingTool(name, "xterm.js scroll events")
        pending.output = " ".join(findings)
        call = pending.freeze()
        assert (len(call.output) > 2 * TOOL_OUTPUT_LIMIT) is kept
        texts = [text for _, text in passages_of(call)]
        assert any("PR #2388" in t for t in texts) is kept
