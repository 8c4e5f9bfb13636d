"""The sentence segmenter: a real one (pysbd), with inline code kept whole and quotations cut
into the sentences said."""

from __future__ import annotations

from cms.language.segmenter import sentences


def test_sentences_that_start_in_lower_case_are_cut_as_users_type_them() -> None:
    said = "Pawtrack app, expo sdk 50. staging api is https://api-staging.pawtrack.app. wire it"
    assert sentences(said) == [
        "Pawtrack app, expo sdk 50.",
        "staging api is https://api-staging.pawtrack.app.",
        "wire it",
    ]


def test_abbreviations_versions_and_file_names_never_end_a_sentence() -> None:
    assert sentences("Use e.g. v1.2.3 in config.py for now. Then run it.") == [
        "Use e.g. v1.2.3 in config.py for now.",
        "Then run it.",
    ]


def test_a_dot_inside_inline_code_never_ends_a_sentence() -> None:
    text = "`load()` returns '' when `TOKEN` is unset. The `.envrc` file in `src/` is ignored."
    assert sentences(text) == [
        "`load()` returns '' when `TOKEN` is unset.",
        "The `.envrc` file in `src/` is ignored.",
    ]


def test_a_quotation_of_several_sentences_is_cut_into_them_and_nothing_is_lost() -> None:
    text = 'E: "You outsource your thinking to a tool. You become less mindful. Like wheels."'
    parts = sentences(text)
    assert parts == [
        'E: "You outsource your thinking to a tool.',
        "You become less mindful.",
        'Like wheels."',
    ]
    assert " ".join(parts) == text


def test_an_empty_paragraph_has_no_sentence() -> None:
    assert sentences("  ") == []
