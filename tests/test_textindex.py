"""The tokenizer and BM25 index behind local search and the local extractor."""

from __future__ import annotations

from cms.textindex import Bm25Index, tokenize


def test_accented_and_non_latin_words_stay_whole() -> None:
    assert tokenize("naïve café 東京タワー") == ["naïve", "café", "東京タワー"]


def test_joined_names_are_kept_and_split_and_plurals_meet_singulars() -> None:
    terms = tokenize("db/migrations.py")
    assert terms[0] == "db/migrations.py" and "db" in terms
    assert tokenize("queries") == tokenize("query")
    assert tokenize("the and of") == []


def test_bm25_ranks_the_matching_document_first_and_ignores_non_matches() -> None:
    index = Bm25Index(["Use Postgres 16", "Deploy on Fridays", "Postgres pool size is 20"])
    top = index.top("postgres pool", 5)
    assert [i for i, _ in top] == [2, 0]
    assert index.top("kubernetes", 5) == []
