"""A query in one form finds a memory written in the other ("env var" for environment
variable, "PR" for pull request), in recall and in the fact index alike."""

from __future__ import annotations

from pathlib import Path

from cms.observations.access import open_project_memory
from cms.observations.chatsync import index_exchange
from cms.observations.model import NewObservation
from cms.observations.recall import recall
from cms.search.project import search_project
from cms.textindex import every_form, term_forms


def test_a_term_takes_its_short_or_long_form() -> None:
    assert term_forms(["environment", "variable", "spotter"]) == [
        ("environment", "env"),
        ("variable", "var"),
        ("spotter",),
    ]
    assert term_forms(["env"]) == [("env", "environment")]


def test_a_long_form_of_two_words_counts_only_when_they_follow_each_other() -> None:
    assert term_forms(["upstream", "pull", "request"]) == [
        ("upstream",),
        ("pull", "pr"),
        ("request", "pr"),
    ]
    assert term_forms(["request", "pull"]) == [("request",), ("pull",)]
    assert term_forms(["pr"]) == [("pr", "pull request")]
    assert every_form(["pull", "request"]) == ["pull", "pr", "request"]


def test_a_question_in_long_form_finds_the_passage_in_short_form(tmp_path: Path) -> None:
    said = [
        ("tool", "Scroll events stay in the terminal, resolved through PR #2388."),
        ("tool", "Scroll events reach the parent page after each request."),
        ("tool", "Fetch the latest upstream changes before a rebase."),
    ]
    memory = open_project_memory(tmp_path, create=True)
    assert memory is not None
    with memory:
        index_exchange(memory, "chat-a", 1, said)
        hits = search_project(memory, "Which upstream pull request fixed the scroll events?", k=3)
    assert hits[0].text == said[0][1]


def test_recall_finds_an_observation_written_in_short_form(tmp_path: Path) -> None:
    memory = open_project_memory(tmp_path, create=True)
    assert memory is not None
    with memory:
        memory.store.add(NewObservation("learning", "Telemetry respects the SPOTTER_OTEL env var."))
        memory.store.add(NewObservation("learning", "Telemetry exporters start with the app."))
        query = "which environment variable turns telemetry off"
        found = recall(memory.store, query, scope=memory.scope, limit=2, touch=False)
    assert "env var" in found[0].observation.title + found[0].observation.body
