"""The program a stored command runs, as the PreToolUse hook keys it."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from cms.observations.filekeys import is_program_name, program_of


@given(st.text(st.sampled_from(list("aZ9_.+-/ é中\n")), max_size=12))
def test_a_program_name_is_what_the_program_pattern_accepts(name: str) -> None:
    assert is_program_name(name) == (re.match(r"^[A-Za-z][\w.+-]*$", name) is not None)


def test_the_program_of_a_command_skips_assignments_prompts_and_cd() -> None:
    assert program_of("pytest -q") == "pytest"
    assert program_of("`make lint`") == "make"
    assert program_of("$ CMS_HOME=/tmp uv run pytest") == "uv"
    assert program_of("cd web && npm test") == "npm"
    assert program_of("./Build.sh") is None  # not lower-case
    assert program_of("") is None
