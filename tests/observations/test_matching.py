"""What a query term counts as holding: the term's stem at the start of a word."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from cms.observations.matching import alnum_runs, stem_counts, text_relevance

_ALPHABET = st.sampled_from(list("ab_1 .-/éß中\n"))


@given(
    text=st.text(_ALPHABET, max_size=30),
    stems=st.lists(
        st.tuples(st.text(_ALPHABET.filter(str.isalnum), min_size=1, max_size=4), st.booleans()),
        max_size=4,
    ),
)
def test_a_stem_is_counted_exactly_where_a_run_of_letters_and_digits_starts_with_it(
    text: str, stems: list[tuple[str, bool]]
) -> None:
    edge_before, edge_after = r"(?<![^\W_])", r"(?![^\W_])"  # an underscore separates words
    patterns = [
        edge_before + re.escape(base) + (edge_after if whole else "") for base, whole in stems
    ]
    assert stem_counts(text, stems) == [len(re.findall(p, text)) for p in patterns]


@given(text=st.text(max_size=40) | st.text(st.characters(max_codepoint=127), max_size=40))
def test_the_runs_of_letters_and_digits_are_those_the_word_pattern_finds(text: str) -> None:
    assert alnum_runs(text) == re.findall(r"[^\W_]+", text)


def test_a_stem_inside_a_word_or_a_short_stem_starting_a_longer_word_is_not_held() -> None:
    assert stem_counts("the deployment failed; deploy again", [("deploy", False)]) == [2]
    assert stem_counts("redeploy it", [("deploy", False)]) == [0]
    assert stem_counts("snake_case or db", [("db", True)]) == [1]
    assert stem_counts("dbname", [("db", True)]) == [0]
    assert stem_counts("put_trace_response_header", [("respons", False)]) == [1]


def test_relevance_counts_only_the_terms_a_hit_holds_at_a_word_start() -> None:
    both, one = text_relevance(
        ["we deploy with staging first", "a redeployment of staging"],
        [-5.0, -5.0],
        ["deploy", "staging"],
    )
    assert both > one > 0
