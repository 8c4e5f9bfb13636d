"""Findings and scope decisions the agent states with no cue word are kept (issue 12: "findings
and causes the agent states with no cue word" were missed), while what is going on right now,
narration behind a fronted clause and plan items are not. Shapes from real sessions (spotter,
codemie)."""

from __future__ import annotations

import pytest

from cms.language.factkinds import kind_of_fact
from cms.language.findings import is_finding, is_transient
from cms.language.wording import is_exclusion
from cms.map.model import new_map
from cms.map.ops import apply_answer
from cms.providers.local import extract_ops
from cms.transcripts.exchange import Exchange


def stored(user: str, assistant: str) -> list[str]:
    cmap = new_map("chat", "proj")
    answer = extract_ops(cmap, Exchange(user=user, assistant=assistant, tools=()))
    assert apply_answer(cmap, answer, turn=1).rejected == []
    return [s.text for p in cmap.planets() for s in p.satellites]


@pytest.mark.parametrize(
    "sentence",
    [
        "The record is accessed as a tuple in Elixir, not a map.",
        "The record has `hex_trace_id` as a binary already.",
        "OpenCode documents context compaction under the `compaction` config object.",
    ],
)
def test_the_agent_stating_how_a_named_thing_is_is_a_finding(sentence: str) -> None:
    assert is_finding(sentence, sentence)
    assert stored("Continue implementation", sentence) == [sentence]  # inline code kept


@pytest.mark.parametrize(
    "sentence",
    [
        "Phoenix server is starting in the background.",  # what goes on now
        "The directory appears to be empty.",  # names nothing
        "The diff is small and scoped.",
        "I have uncommitted changes from spotter-4te.3 (controller instrumentation).",  # person
        "Configure opentelemetry_ash trace types in config.exs",  # an imperative, a plan step
    ],
)
def test_progress_reports_and_plan_steps_are_not_findings(sentence: str) -> None:
    assert not is_finding(sentence, sentence)


def test_a_statement_about_this_session_is_not_kept_as_lasting() -> None:
    sentence = (
        "The graph MCP tools mentioned by `AGENTS.md` are not exposed in this session, so "
        "I\u2019m falling back to `rg` for discovery."
    )
    assert is_transient(sentence)
    assert stored("Add the compaction default.", sentence) == []


def test_narration_behind_a_fronted_clause_and_a_curly_apostrophe_is_still_narration() -> None:
    answer = (
        "Given the time constraints and that this is a false positive (the code is correct and "
        "tests pass), let me complete the work session by updating the task status.\n\n"
        "I\u2019m running just that focused test now to confirm it fails for the intended reason "
        "before changing production code."
    )
    assert stored("Continue implementation", answer) == []


def test_a_verbless_no_item_is_a_scope_decision() -> None:
    answer = (
        "## No-gos\n- No CI/CD integration yet (separate task)\n- No custom Credo checks\n"
        "- No fixing existing code to satisfy checkers\n"
    )
    facts = stored("Draft the beads for the quality tools.", answer)
    assert facts == [
        "No CI/CD integration yet (separate task)",
        "No custom Credo checks",
        "No fixing existing code to satisfy checkers",
    ]
    assert all(kind_of_fact(f) == "decision" for f in facts)
    assert not is_exclusion("No Igniter installers exist for credo, dialyxir, or mix_audit")


@pytest.mark.parametrize(
    ("fact", "kind"),
    [
        (
            "Dialyzer PLT building is slow on first run (2+ minutes) — just document, don't optimize",
            "decision",
        ),
        ("Credo may report style issues in existing code — don't fix in this task", "decision"),
        ("In this repo, AGENTS.md also says to prefer codebase-memory MCP graph tools", "learning"),
    ],
)
def test_a_clause_that_rules_something_out_makes_a_decision(fact: str, kind: str) -> None:
    assert kind_of_fact(fact) == kind


def test_a_cause_supposed_is_not_kept_a_cause_found_is() -> None:
    guess = "The issue might be that Tracer.current_span_ctx() is not typed correctly by dialyzer."
    found = "I see - the issue is the function doesn't exist with that name."
    facts = stored("Continue implementation", f"{guess}\n\n{found}")
    assert facts == ["The issue is the function doesn't exist with that name."]


def test_a_change_in_the_perfect_tense_and_a_finished_epic_are_results() -> None:
    facts = stored(
        "Create CLAUDE.md",
        "I've created a basic CLAUDE.md file for this empty repository.\n\nAll done. The "
        "entire **spotter-4te** epic (End-to-end OpenTelemetry tracing) is complete.",
    )
    assert "I've created a basic CLAUDE.md file for this empty repository." in facts
    assert "The entire spotter-4te epic (End-to-end OpenTelemetry tracing) is complete." in facts


def test_the_agents_step_with_its_reason_is_a_decision_a_tentative_step_is_not() -> None:
    answer = (
        "I'll make `get_current_trace_id` public so both the controllers and the enqueue path "
        "can use it:\n\nNow let me also remove the `.dialyzerignore` file since we no longer "
        "need it:\n\nLet me try adding it using git directly and committing with --no-verify "
        "since the dialyzer warning is a false positive.\n\nSince no custom commands are "
        "available, I'll decompose the TODO app creation into independent subtasks.\n\n"
        "Now let me run the tests:\n"
    )
    facts = stored("Continue implementation", answer)
    assert facts == [
        "I'll make `get_current_trace_id` public so both the controllers and the enqueue path "
        "can use it",
        "Let me also remove the `.dialyzerignore` file since we no longer need it",
    ]
    assert all(kind_of_fact(f) == "decision" for f in facts)


def test_todo_as_a_noun_in_a_heading_does_not_make_its_items_open_tasks() -> None:
    answer = (
        "## \u2705 TODO App Creation Complete\n\nI've successfully created a fully functional "
        "TODO app using Next.js through parallel task execution."
    )
    facts = stored("create TODO app by Next.js", answer)
    assert facts == [
        "I've successfully created a fully functional TODO app using Next.js through parallel "
        "task execution."
    ]
