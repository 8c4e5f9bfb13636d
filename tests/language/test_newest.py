"""Reading decides what a query's answers leave as history: the newest statement of a subject."""

from __future__ import annotations

from dataclasses import dataclass

from cms.language.newest import history_of, values_of


@dataclass
class Said:
    text: str
    at: float
    stored_meaning: bytes | None = None
    decided: bool = False
    said_in: tuple[str | None, int | None] = (None, None)

    @property
    def said_at(self) -> tuple[float, int]:
        return (self.at, 0)


def test_a_later_answer_about_the_same_subject_makes_the_earlier_one_history() -> None:
    items = [
        Said("The staging database listens on port 5433 on staging-db.internal.", 1.0),
        Said("Ops moved the staging database behind pgbouncer: its port is 6543 now.", 2.0),
    ]
    assert history_of(items, "staging database port") == {0: 1}


def test_an_answer_that_covers_less_of_the_query_never_replaces_one_that_covers_more() -> None:
    items = [
        Said("The db1 replica of the orders database listens on port 5433.", 1.0),
        Said("The orders database listens on port 6543.", 2.0),
    ]
    assert history_of(items, "db1 replica port") == {}


def test_unrelated_answers_of_one_query_both_stay() -> None:
    items = [
        Said("Run the tests with make test before pushing.", 1.0),
        Said("Money is stored as integer cents everywhere, never floats.", 2.0),
    ]
    assert history_of(items, "tests money") == {}


def test_statements_made_at_the_same_time_never_replace_each_other() -> None:
    items = [
        Said("The staging database listens on port 5433.", 1.0),
        Said("The staging database listens on port 6543.", 1.0),
    ]
    assert history_of(items, "staging database port") == {}


def test_a_chain_of_changes_points_every_older_version_at_the_newest() -> None:
    items = [
        Said("We deploy the API with `git push heroku main`.", 1.0),
        Said("We deploy the API with `render deploy` now.", 2.0),
        Said("We deploy the API with `fly deploy` now.", 3.0),
    ]
    assert history_of(items, "deploy the API") == {0: 2, 1: 2}


def test_without_a_query_only_statements_that_mean_much_alike_replace_each_other() -> None:
    items = [
        Said("The service runs on Python 3.11 in production.", 1.0),
        Said("The service runs on Python 3.12 in production now.", 2.0),
        Said("The invoice list endpoint makes 3 queries with selectinload.", 3.0),
    ]
    assert history_of(items, "") == {0: 1}


def test_a_newer_mention_that_states_no_other_value_leaves_the_statement_in_force() -> None:
    items = [
        Said("The staging database port is 6543 behind pgbouncer.", 1.0),
        Said("Does the staging database port still work after the upgrade?", 2.0),
    ]
    assert history_of(items, "staging database port") == {}


def test_values_are_read_from_the_shape_of_tokens() -> None:
    said = "Pin `ruff` to 0.6.9, set DATABASE_URL in config/app.env and call useQuery."
    assert values_of(said) == {"ruff", "0.6.9", "database_url", "config/app.env", "usequery"}


def test_two_rules_whose_supersession_writing_decided_are_never_compared_again() -> None:
    items = [
        Said("Always add the '@timer' decorator from 'pedantic' to all methods.", 1.0, None, True),
        Said("Always add the '@retry' decorator from 'pedantic' to all methods.", 2.0, None, True),
    ]
    assert history_of(items, "which decorators do we add to methods") == {}


def test_the_words_of_one_turn_never_replace_each_other() -> None:
    items = [
        Said("We deploy the API with `git push heroku main`.", 1.0, None, False, ("c1", 3)),
        Said("We deploy the API with `fly deploy` now.", 2.0, None, False, ("c1", 3)),
    ]
    assert history_of(items, "deploy the API") == {}
