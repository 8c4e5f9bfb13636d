"""Text under a limit is shortened at sentence, clause or word boundaries, never mid-word."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cms.excerpt import ELLIPSIS, fit_text, split_text

TEXT = (
    "The root cause was a race in the token refresh. The retry ran before refresh() resolved, "
    "so the request went out with the old token; the fix is to await refresh() first."
)


def test_fit_text_keeps_whole_sentences() -> None:
    assert fit_text(TEXT, 60) == "The root cause was a race in the token refresh." + ELLIPSIS


def test_split_text_loses_nothing_and_cuts_no_word() -> None:
    parts = split_text(TEXT, 70)
    assert all(len(p) <= 70 for p in parts)
    assert " ".join(parts).split() == TEXT.split()


WORDS = ["alpha", "beta,", "gamma.", "Delta", "e;", "a_name_longer_than_the_limit_itself"]


@given(st.lists(st.sampled_from(WORDS), max_size=60))
def test_no_part_ever_ends_inside_a_word(words: list[str]) -> None:
    text = " ".join(words)
    for part in split_text(text, 25):
        assert part.split() == part.split(" ")
        assert len(part) <= 25 or " " not in part  # only a single longer word may exceed it
    assert " ".join(split_text(text, 25)).split() == text.split()
    fitted = fit_text(text, 25).removesuffix(ELLIPSIS).split()
    whole = text.split()[: len(fitted)]
    assert fitted[:-1] == whole[:-1]
    assert not fitted or fitted[-1] in (whole[-1], whole[-1].rstrip(",;:"))  # a clause mark may go
