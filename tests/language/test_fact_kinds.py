"""The kind of a promoted map fact comes from evidence in its wording (issue 12): a command at
its head, a rule asked of the listener, a cause found, a file described; open tasks and problems
are promoted as `other`. Shapes are those the local extractor stores from real sessions."""

from __future__ import annotations

import pytest

from cms.language.factkinds import is_memory, kind_of_fact


@pytest.mark.parametrize(
    ("fact", "kind"),
    [
        ("Run bd ready to see available work.", "command"),
        ("mix credo gen.config generates .credo.exs with defaults", "command"),
        ("Make sure your code is well-commented and explains its choices.", "preference"),
        ("First, always include assert statements in your methods.", "preference"),
        (
            "It's important that you always include try statements in your methods to handle "
            "any potential exceptions.",
            "preference",
        ),
        (
            "That's the bug - my code was treating it as returning {:ok, span_ctx} when it "
            "returns the span context struct directly.",
            "bugfix",
        ),
        ("pnpm-workspace.yaml lists apps/* and packages/*", "file_summary"),
        ("Updated all hook scripts (notify-session.sh, tool-call-capture.sh)", "learning"),
        ("spotter-4te.2 - W3C traceparent header propagation in plugin hook scripts", "learning"),
        ("Make sure the build passes before you merge.", "preference"),
        ("Run the tests with `mix test`", "command"),  # a command the turn ran
        ("Run with `mix phx.server`", "command"),
        ("mix igniter.install can add them to mix.exs automatically", "learning"),  # what it can
        # inline code kept in its backticks names code; it prescribes nothing by itself
        ("Run `mix credo gen.config` — generates `.credo.exs` with defaults", "command"),
        ("Run `bd ready` to see available work.", "command"),
        ("Updated all hook scripts (`notify-session.sh`, `tool-call-capture.sh`)", "learning"),
        (
            "Dialyzer says `hex_trace_id` always returns a binary, so the catch-all clause is "
            "unreachable.",
            "learning",
        ),
        ("Always use `pnpm` in this repo.", "preference"),
    ],
)
def test_a_fact_gets_the_kind_its_wording_gives_evidence_for(fact: str, kind: str) -> None:
    assert kind_of_fact(fact) == kind


def test_open_tasks_and_problems_are_promoted_as_other_never_as_a_fix() -> None:
    assert is_memory("TODO: spotter-4te.5: Trace LiveView and TerminalChannel")
    assert kind_of_fact("TODO: fix the crash in the TerminalChannel join") == "other"
    assert kind_of_fact("Problem: Mix phx.server doesnt seem to start") == "other"
    assert not is_memory("Task: update CLAUDE.md for current changes")


@pytest.mark.parametrize(
    ("fact", "kind"),
    [
        ("I'll make sure to include the '@trace_class' decorator from now on.", "preference"),
        ("I'll definitely continue using a linter for my projects.", "preference"),
        ("Going forward, we'll be using GitHub as our main version control system.", "decision"),
        ("For password hashing, you can use the bcrypt algorithm.", "decision"),
    ],
)
def test_commitments_and_choices_without_a_cue_word_get_their_kind(fact: str, kind: str) -> None:
    assert kind_of_fact(fact) == kind


def test_a_recommendation_after_a_lead_in_clause_is_a_decision() -> None:
    fact = (
        "As for session management, consider using JSON Web Tokens (JWT) for secure user "
        "session handling and authentication."
    )
    assert kind_of_fact(fact) == "decision"
