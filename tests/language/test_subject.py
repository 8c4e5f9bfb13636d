"""Same subject, same or changed value: the rule that decides what is in force."""

from __future__ import annotations

import pytest

from cms.language.subject import CHANGED, SAME, numbers_changed, relation


@pytest.mark.parametrize(
    ("newer", "older", "expected"),
    [
        (
            "From now on, I want you to end all function argument names with '_g'.",
            "I want you to always end function argument names with '_f'.",
            CHANGED,
        ),
        ("The billing API allows 1000 requests per minute per key",
         "The billing API allows 100 requests per minute per key", CHANGED),
        ("We run Postgres 16 on port 5433", "We run Postgres 15 on port 5432", CHANGED),
        ("Run make migrate-down to apply the migrations",
         "Run make migrate-up to apply the migrations", CHANGED),
        ("Switch the database to MySQL 8 instead of PostgreSQL.",
         "We use PostgreSQL 16 for the database because we need JSONB.", CHANGED),
        ("Always use snake_case for class names.", "Always use CamelCase for class names.", CHANGED),
        ("We use PostgreSQL 16 for the orders database.",
         "We decided to use PostgreSQL 16 for the orders database because we need JSONB.", SAME),
        # the kind of name and the aspect it governs are the subject, not the wording
        ("From now on, start function names with 'x_'.", "Always end function names with '_d'.", None),
        ("Always include a single digit in class names.", "Always use CamelCase for class names.", None),
        ("Always run ruff before committing.", "Always run the tests with pytest -x.", None),
        ("I'd like you to start function argument names with 'e_' as a prefix.",
         "Always start your function names with 'd_'.", None),
        ("Going forward, end all function names with '_d'.",
         "From now on, please end all function argument names with '_f'.", None),
        ("Likewise, when it comes to function argument names, start them with a 'j_' prefix.",
         "I'd like you to start function argument names with 'e_' as a prefix.", CHANGED),
        ("Firstly, always start function argument names with 'x_'.",
         "When naming function arguments, always start the variable name with 'e_'.", CHANGED),
    ],
)  # fmt: skip
def test_a_later_statement_restates_changes_or_leaves_an_earlier_one(
    newer: str, older: str, expected: str | None
) -> None:
    assert relation(newer, older) == expected


def test_one_shared_verb_is_not_a_subject_even_with_a_change_cue() -> None:
    rule = "From now on, I need you to start all your variable names with 'z_'"
    assert relation("I want you to start using PyCharm as your IDE from now on.", rule) is None


@pytest.mark.parametrize(
    ("newer", "older", "changed"),
    [
        (
            "Change of plan: we switched to port 6543 (pgbouncer).",
            "We use PostgreSQL 16 on port 5433.",
            True,
        ),
        ("bump node to 20", "we're on node 18", True),
        ("raise the rate limit to 300/min", "the rate limit: 100 req/min per api key", True),
        ("The db2 replica listens on port 6002.", "The db1 replica listens on port 6001.", False),
        ("We run Postgres 16 on port 5433.", "We run Postgres 15 on port 5432.", True),
        ("We run Postgres 16 on port 5432.", "We run Postgres 15 on port 5432.", False),  # not all
        ("The db1 replica listens on port 6001.", "The db1 replica listens on port 6001.", False),
        ("Use port 6543.", "Errors: 500 on /a, 502 on /b, 503 on /c, 504 on /d, port 5433", False),
        ("We use pnpm.", "We use port 5433.", False),  # no number to compare
        ("The db1 replica listens on port 6001.", "We use PostgreSQL 16 on port 5433.", False),
    ],
)
def test_another_number_for_the_same_noun_changes_a_statement(
    newer: str, older: str, changed: bool
) -> None:
    assert numbers_changed(newer, older) is changed
