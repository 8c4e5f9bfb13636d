"""A question about how things are done is answered by the rules in force on its subject."""

from __future__ import annotations

from pathlib import Path

from cms.observations.access import open_project_memory
from cms.observations.model import NewObservation
from cms.search.project import RULES_LISTED, rule_subject, search_project

FUNCTION_RULES = [
    "Always use annotations for functions.",
    "Always use docstrings in functions.",
    "Include try statements in your functions.",
    "Include assert statements in your functions.",
    "Add the '@retry' decorator from the 'pedantic' module to all your functions.",
    "Include a single digit in your function names.",
    "When naming functions, start the name with an 'x_' prefix.",
]
OTHER = [
    ("preference", "Always use docstrings in methods."),
    ("preference", "Start your method names with 'a_'."),
    ("learning", "The functions in billing.py call the tax service twice."),
    ("learning", "Functions that parse dates live in dates.py."),
    ("decision", "We chose PostgreSQL 16 for the billing service."),
]


def project_with(tmp_path: Path, items: list[tuple[str, str]]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:
        for kind, text in items:
            memory.store.add(NewObservation(kind, text))
    return repo


def answer(repo: Path, query: str, k: int = 5) -> list[str]:
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        return [hit.text for hit in search_project(memory, query, k=k)]


def test_a_convention_question_lists_every_rule_in_force_on_its_subject_even_past_k(
    tmp_path: Path,
) -> None:
    repo = project_with(tmp_path, [("preference", r) for r in FUNCTION_RULES] + OTHER)
    found = answer(repo, "What is our convention for functions?", k=5)
    assert set(FUNCTION_RULES) <= set(found)
    assert len(found) <= max(5, RULES_LISTED)


def test_the_rule_on_the_asked_kind_of_name_comes_before_one_on_another(tmp_path: Path) -> None:
    repo = project_with(tmp_path, [("preference", r) for r in FUNCTION_RULES] + OTHER)
    found = answer(repo, "What prefix should I use for method names?")
    assert found[0] == "Start your method names with 'a_'."


def test_a_question_that_names_no_subject_keeps_the_plain_ranking(tmp_path: Path) -> None:
    assert rule_subject("What is our convention for code?") == frozenset()
    repo = project_with(tmp_path, [("preference", r) for r in FUNCTION_RULES] + OTHER)
    assert len(answer(repo, "Which functions call the tax service?", k=3)) <= 3


def test_rules_holding_most_of_the_asked_subject_are_listed_the_fullest_first(
    tmp_path: Path,
) -> None:
    imports = [
        "Always import the 'secrets' module even if it is not used.",
        "Always import the 'hashlib' module even if it is not used.",
        "Always import the 'mailbox' module even if it is not used.",
    ]
    whole = "Import the 'typing' module at the top of every file."
    repo = project_with(tmp_path, [("preference", r) for r in [*imports, whole]] + OTHER)
    found = answer(repo, "Which module should I import in every file?", k=2)
    assert found[0] == whole  # it holds module, import and file; the others two of three
    assert set(imports) <= set(found)


def test_rules_already_shown_leave_room_for_fresh_items(tmp_path: Path) -> None:
    items = [("preference", r) for r in FUNCTION_RULES] + [
        ("learning", "Functions that parse dates live in dates.py."),
        ("learning", "The functions in billing.py call the tax service twice."),
    ]
    repo = project_with(tmp_path, items)
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        every = search_project(memory, "What is our convention for functions?", k=2)
        rule_ids = [h.id for h in every if h.text in FUNCTION_RULES]
        fresh = search_project(
            memory, "What is our convention for functions?", k=2, exclude=rule_ids
        )
    assert len(rule_ids) == len(FUNCTION_RULES)
    assert [h.text for h in fresh] and not set(h.id for h in fresh) & set(rule_ids)
    assert len(fresh) == 2


def test_rules_on_the_things_asked_of_come_before_rules_on_their_names(tmp_path: Path) -> None:
    naming = [
        f"Always start function names with '{p}_'." if n % 2 else f"End function names with _{p}."
        for n, p in enumerate("abcdefghijkl")
    ]
    on_functions = [  # longer, so that relevance alone would rank them last
        "Always use type annotations for every argument and return value of functions.",
        "Include assert statements in your functions, to check inputs early and fail loudly.",
    ]
    repo = project_with(tmp_path, [("preference", r) for r in naming + on_functions])
    found = answer(repo, "What is our convention for functions?")
    assert set(on_functions) <= set(found[:RULES_LISTED])
    assert found.index(on_functions[0]) < min(found.index(r) for r in naming if r in found)


def test_a_verb_that_only_says_a_thing_is_used_names_no_subject() -> None:
    assert rule_subject("Which decorator should I add to methods?") == rule_subject(
        "Which decorator should I use for methods?"
    )
    assert "add" not in " ".join(rule_subject("Which decorator should I add to methods?"))
    assert any("import" in w for w in rule_subject("Which module should I import in every file?"))


def test_a_rule_that_uses_what_the_question_adds_answers_it(tmp_path: Path) -> None:
    def rules(where: str, *names: str) -> list[str]:
        return [
            f"Always add the '@{n}' decorator from the 'pedantic' module to all {where}."
            for n in names
        ]

    on_methods = rules("methods", "timer", "trace", "retry", "count_calls", "require_kwargs")
    elsewhere = rules("functions", "timer", "trace", "retry", "count_calls", "require_kwargs")
    elsewhere += rules("your classes", "timer_class", "trace_class", "singleton", "slots")
    validate = (  # longer, and "using" where the question says "add"
        "Going forward, I want you to start using the '@validate' decorator from the 'pedantic' "
        "module for all your methods: it checks their inputs."
    )
    repo = project_with(tmp_path, [("preference", r) for r in [*on_methods, *elsewhere, validate]])
    found = answer(repo, "Which decorator should I add to methods?")
    assert set(on_methods) | {validate} <= set(found[:RULES_LISTED])


def test_an_acknowledgement_that_restates_a_rule_takes_no_place_of_its_own(tmp_path: Path) -> None:
    rules = [
        "I'll make sure to add the '@retry' decorator to all my methods from now on.",
        "Going forward, add the '@retry' decorator from the 'pedantic' module to all methods.",
        "Always add the '@timer' decorator from the 'pedantic' module to all methods.",
    ]
    repo = project_with(tmp_path, [("preference", r) for r in rules])
    found = answer(repo, "Which decorator should I add to methods?", k=2)
    assert rules[0] not in found
    assert set(found[:2]) == {rules[1], rules[2]}
