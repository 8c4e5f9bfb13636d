"""A project's folder name: a short slug of its root's name, as a pattern would make it."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from cms.project import _slug


@given(st.text(st.sampled_from(list("aZ9._- /@é中\t")), max_size=60))
def test_a_slug_replaces_each_run_of_other_characters_by_one_dash(name: str) -> None:
    expected = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:40] or "project"
    assert _slug(name) == expected


def test_a_slug_of_a_plain_folder_name_is_the_name() -> None:
    assert _slug("my repo (copy)") == "my-repo-copy" and _slug("日本") == "project"
