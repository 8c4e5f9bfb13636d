"""The local extractor keeps the preferences a user states about themself, even the ones that
name nothing of the project's software ("call me Sam", "keep your answers short"), and the
promotion that follows sends them to the user tier."""

from __future__ import annotations

import pytest

from cms.map.model import new_map
from cms.map.ops import apply_answer
from cms.observations.capture import kind_of_fact, observations_from_map
from cms.observations.personal import split_personal
from cms.providers.local import extract_ops
from cms.transcripts.exchange import Exchange


def stored_facts(user: str, assistant: str = "Understood.") -> list[str]:
    cmap = new_map("chat", "proj")
    answer = extract_ops(cmap, Exchange(user=user, assistant=assistant))
    report = apply_answer(cmap, answer, turn=1)
    assert report.rejected == [], report.reasons()
    return [s.text for p in cmap.planets() for s in p.satellites]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Call me Sam, by the way.", "Call me Sam, by the way."),
        ("Keep your answers short.", "Keep your answers short."),
        ("Please always answer in French.", "Please always answer in French."),
        ("I hate long preambles.", "I hate long preambles."),
        ("Be concise.", "Be concise."),
        (
            "OK. Never ask me to confirm before running the tests.",
            "Never ask me to confirm before running the tests.",
        ),
    ],
)
def test_a_users_own_preference_is_kept_as_a_preference(said: str, kept: str) -> None:
    assert kept in stored_facts(said)
    assert kind_of_fact(kept) == "preference"


def test_an_exchange_splits_into_the_users_preferences_and_the_projects_rules() -> None:
    cmap = new_map("chat", "proj")
    prompt = (
        "Two things before we start. Always answer in French. "
        "In this repo we always use tabs for indentation. "
        "Never ask me to confirm before running a command. "
        "From now on, always start function argument names with 'e_'."
    )
    answer = extract_ops(cmap, Exchange(user=prompt, assistant="Got it."))
    assert apply_answer(cmap, answer, turn=1).rejected == []
    project, personal = split_personal(observations_from_map(cmap))
    assert sorted(c.body for c in personal) == [
        "Always answer in French.",
        "Never ask me to confirm before running a command.",
    ]
    bodies = [c.body for c in project]
    assert "In this repo we always use tabs for indentation." in bodies
    assert "From now on, always start function argument names with 'e_'." in bodies
    assert all(c.kind == "preference" for c in personal)


def test_a_reaction_to_the_work_is_not_a_preference() -> None:
    facts = stored_facts("I like that approach. I love this!", "Thanks, glad it helps.")
    assert facts == []


def test_what_the_user_likes_to_hear_is_a_reaction_not_a_taste() -> None:
    from cms.language.wording import is_personal

    assert not is_personal("That's what I like to hear.")
    assert not is_personal("That is exactly what I love about this team.")
    assert is_personal("I like short answers without preamble.")
