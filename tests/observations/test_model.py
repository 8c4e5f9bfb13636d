"""The observation records' helpers: the key that decides two titles name the same thing."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from cms.observations.model import title_key


@given(st.text(st.sampled_from(list("aB .,:;!?-\u2014\t\n\u00a0\u2003")), max_size=40))
def test_a_title_key_folds_case_and_white_space_as_a_pattern_would(title: str) -> None:
    expected = re.sub(r"\s+", " ", title.casefold()).strip(" .,:;!?-\u2014\u2013")
    assert title_key(title) == expected
