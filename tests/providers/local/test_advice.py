"""Mentor talk phrased like a rule that names a software word is not kept as a rule of the
project (issue 12, the MemoryCode noise left after the shape gates), while the real rule said
next to it, in the same shape, is kept whole."""

from __future__ import annotations

from cms.language.advice import asks_only_manner, is_maxim, opens_topic
from cms.language.shapes import refers_to_rule
from cms.language.wording import is_specific
from cms.map.model import new_map
from cms.map.ops import apply_answer
from cms.providers.local import extract_ops
from cms.transcripts.exchange import Exchange


def stored(user: str, assistant: str = "") -> list[str]:
    cmap = new_map("chat", "proj")
    answer = extract_ops(cmap, Exchange(user=user, assistant=assistant, tools=()))
    assert apply_answer(cmap, answer, turn=1).rejected == []
    return [s.text for p in cmap.planets() for s in p.satellites]


def test_a_wish_that_only_opens_the_topic_of_the_concrete_rule_after_it_is_not_kept() -> None:
    topic = (
        "Sam, as you keep sharpening your Go skills, I want you to focus on bringing more "
        "speed to your code."
    )
    rule = "Always wrap your handlers with the @metered decorator from the stats package."
    assert opens_topic(topic, rule)
    facts = stored(f"{topic} {rule}")
    assert not any("sharpening" in f for f in facts)
    assert any("@metered" in f for f in facts)


def test_a_wish_that_is_the_rule_itself_is_kept() -> None:
    alone = "I want you to focus on including try statements in your functions."
    assert any("try statements" in f for f in stored(alone))
    # a generaliser makes the wish a rule of its own, even with a concrete rule after it
    first = "I want you to always write a docstring for every public function."
    then = "Also start every variable name with 'k_'."
    assert not opens_topic(first, then)
    facts = stored(f"{first} {then}")
    assert any("docstring" in f for f in facts) and any("'k_'" in f for f in facts)


def test_a_rule_that_asks_only_for_a_manner_is_advice_not_a_convention() -> None:
    vague = "Make sure you lay out the repository in a tidy and logical manner."
    assert asks_only_manner(vague)
    assert stored(vague) == []
    concrete = "Make sure you name the test files in a consistent way, as `tests/test_name.py`."
    assert not asks_only_manner(concrete)
    assert any("tests/test_name.py" in f for f in stored(concrete))


def test_stressing_a_practice_without_saying_where_it_applies_only_announces_it() -> None:
    assert refers_to_rule("About your project, I want to stress the importance of code comments.")
    placed = "I want to stress the importance of comments in all your classes."
    assert not refers_to_rule(placed)
    assert any("comments in all your classes" in f for f in stored(placed))


def test_a_maxim_said_to_nobody_is_not_a_rule_of_the_project() -> None:
    maxim = "It's important to never keep API tokens in plain text."
    assert is_maxim(maxim)
    assert stored(maxim) == []
    assert not is_maxim("It's important that you always log the request id.")
    ours = "It's important to never store plain-text passwords in our database."
    assert not is_maxim(ours)
    assert any("our database" in f for f in stored(ours))
    named = "It's important to always run `mix ecto.migrate` before the tests."
    assert not is_maxim(named)
    assert any("mix ecto.migrate" in f for f in stored(named))


def test_a_phrasal_verb_or_a_framework_for_a_programme_names_no_software() -> None:
    # "run into" is no program run; "a framework for our mentoring scheme" is no code
    drawback = (
        "One small drawback is that the basic tier limits seats and disk space, but we "
        "shouldn't run into that for a while."
    )
    assert not is_specific(drawback)
    assert stored(drawback) == []
    office = "I want you to lead this and draft a framework for our mentoring scheme."
    assert not is_specific(office)
    assert stored(office) == []
    assert is_specific("Always run pytest before you push.")
    assert is_specific("We picked a web framework with async support.")
