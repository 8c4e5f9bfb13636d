"""LazyPattern compiles on first use, and not at all for a text its hints rule out."""

from __future__ import annotations

import re

from cms.lazypattern import LazyPattern


def test_a_pattern_is_compiled_on_its_first_use_only() -> None:
    pattern = LazyPattern(r"\bport (\d+)")
    assert pattern._compiled is None
    assert pattern.findall("port 80 and port 443") == ["80", "443"]
    assert pattern._compiled is not None


def test_a_text_without_any_hint_is_answered_without_compiling() -> None:
    pattern = LazyPattern(r"\b(?:rules?|conventions?)\b", re.I, hints=("rule", "convention"))
    text = "what prefix do we use for arguments?"
    assert pattern.search(text) is None and pattern.match(text) is None
    assert pattern.sub(" ", text) == text and pattern.findall(text) == []
    assert list(pattern.finditer(text)) == []
    assert pattern._compiled is None


def test_a_hint_in_any_case_lets_the_pattern_run() -> None:
    pattern = LazyPattern(r"\b(?:rules?|conventions?)\b", re.I, hints=("rule", "convention"))
    assert pattern.sub("", "Our naming RULES") == "Our naming "
    assert pattern.search("a ruler") is None  # a hint is necessary, not sufficient


def test_the_flag_constants_are_the_values_of_re() -> None:
    from cms import lazypattern

    assert (lazypattern.IGNORECASE, lazypattern.MULTILINE, lazypattern.DOTALL) == (
        re.IGNORECASE,
        re.MULTILINE,
        re.DOTALL,
    )


def test_a_split_of_a_text_without_any_hint_is_the_text_itself() -> None:
    pattern = LazyPattern(r"(?<=[.!?])\s+|\n+", hints=(".", "!", "?", "\n"))
    assert pattern.split("no end mark here") == ["no end mark here"]
    assert pattern._compiled is None
    assert pattern.split("One. Two") == ["One.", "Two"]
