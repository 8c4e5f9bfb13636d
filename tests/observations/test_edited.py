"""A value the agent's edit replaced in the code (cms.observations.edited): read from the edit's
structure, token by token; a statement that names the old value and none of the new ones is
outdated, unless it says more than that value or names it in the negative."""

from __future__ import annotations

import pytest

from cms.observations.edited import ValueChange, outdated_by, value_changes, values


@pytest.mark.parametrize(
    ("old", "new", "removed", "added"),
    [
        ("host=db.internal:5433/app", "host=db.internal:6543/app", {"5433"}, {"6543"}),
        ("image: node:18-alpine", "image: node:20-alpine", {"18"}, {"20"}),
        ("require github.com/alecthomas/kong v0.8.0", "require github.com/spf13/cobra v1.8.0",
         {"alecthomas", "kong", "v0.8.0"}, {"spf13", "cobra", "v1.8.0"}),
        ("branches: [develop]", "branches: [main]", {"develop"}, {"main"}),
    ],
)  # fmt: skip
def test_a_value_replaced_in_place_is_a_change(
    old: str, new: str, removed: set[str], added: set[str]
) -> None:
    assert value_changes(old, new)[0] == ValueChange(frozenset(removed), frozenset(added))


@pytest.mark.parametrize(
    ("old", "new", "statement"),
    [
        ('region = "us-east-1"', 'region = "eu-central-1"', "Usual region us-east-1"),
        ('from_env("LT_LOG")', 'from_env("LOGTAIL_LOG")', "Log level via env var LT_LOG"),
        ("URL=https://api-staging.example.app", "URL=https://staging-api.example.app",
         "Staging api is https://api-staging.example.app."),
        ("DEPLOYMENT_TARGET = 16.0;", "DEPLOYMENT_TARGET = 17.0;", "Min iOS 16"),
    ],
)  # fmt: skip
def test_a_value_a_statement_names_whole_is_read_whole_from_the_edit(
    old: str, new: str, statement: str
) -> None:
    """Its parts (us, east, 1) would leave a number the edit kept, and the statement stays."""
    assert any(outdated_by(statement, "decision", c) for c in value_changes(old, new))


def test_an_edit_read_whole_leaves_a_statement_of_a_part_to_the_finer_reading() -> None:
    old, new = "postgresql://db.internal:5432/app", "postgresql://db.internal:5433/app"
    whole, fine = values(old)[0], value_changes(old, new)[0]
    assert [
        outdated_by("The db listens on 5432", "decision", c) for c in value_changes(old, new)
    ] == [
        True,
        False,
    ]
    assert whole.endswith("5432/app") and fine.removed == {"5432"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("retries = 3", "retries = 3\ntimeout = 30"),  # an addition replaces nothing
        ("port = 5433  # was 5432", "port = 5433"),  # a comment dropped: no value replaced
        ("a = 1", "b = 2"),  # one-letter names and one-digit numbers are no values
        ("x = compute(a, b, c, d, e)", "y = other(f, g, h, i, j, k)"),  # a rewrite
        ("use 5433 here", "use 6543 here, not 5433"),  # the old value is still in the new text
    ],
)
def test_no_value_change_is_read_where_no_value_was_replaced(old: str, new: str) -> None:
    assert value_changes(old, new) == []


PORT = ValueChange(frozenset({"5433"}), frozenset({"6543"}))
PRINT = ValueChange(frozenset({"print"}), frozenset({"logger", "info"}))


@pytest.mark.parametrize(
    ("text", "kind", "change", "outdated"),
    [
        ("The staging database listens on port 5433.", "learning", PORT, True),
        ("We connect to the staging db on 5433", "passage", PORT, True),
        ("Staging moved from 5433 to 6543.", "learning", PORT, False),  # names the new value
        ("Never use print, always the logging module.", "preference", PRINT, False),
        ("We print the report with print().", "learning", PRINT, True),
        ("Fixed: the healthcheck failed because staging listens on 5433.", "bugfix", PORT, False),
        ("The root cause was a wrong port: the app used 5433.", "passage", PORT, False),
        ("Staging listens on 5433 and the billing DB on 5432.", "learning", PORT, False),
        ("Staging listens on 5433. Invoices are stored as integer cents.", "passage", PORT, False),
        ("The staging database is reachable from CI.", "learning", PORT, False),
    ],
)
def test_a_statement_is_outdated_only_when_it_is_about_the_replaced_value(
    text: str, kind: str, change: ValueChange, outdated: bool
) -> None:
    assert outdated_by(text, kind, change) is outdated
