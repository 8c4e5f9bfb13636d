"""What the packaged model (cms.language.meaning, installed with cms) says of a query: the
semantic half of `cms recall` and MCP, and of `cms search` when words alone find too few hits,
whenever the optional extra is not set up (meaning is part of the ranking by default).

Reads the meaning each item was given once when it was written (observations.meanings): the
query is encoded once, compared with the stored vectors of the project's newest live items (at
most SCAN of them, so a search costs the same at any size), and its words are covered by the
words of the hits' texts by meaning, as the extra does. Standard library only; never on the
hook path; a model that cannot load is logged and lexical search goes on alone.
"""

from __future__ import annotations

from operator import mul

from cms.errors import CmsError
from cms.log import log_event
from cms.observations.vectors import QueryMeaning

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from cms.language.meaning import MeaningModel, Vector
    from cms.observations.store import ObservationStore

SCAN = 2000  # newest live items whose stored meaning a query is compared with (~10 us each)


def packaged_meaning(store: ObservationStore, query: str) -> QueryMeaning | None:
    """The query's cosine with the stored meanings of the project's newest live items, and the
    coverage of its words by given texts; None when the model cannot load or the query has no
    word it knows."""
    from cms.language.meaning import load_model, unpack
    from cms.observations.meanings import newest_meanings

    try:
        model = load_model(verify=False)  # ranks only; the worker stores with a verified one
    except CmsError as exc:
        log_event("warning", "meaning_model_unusable", str(exc))
        return None
    wanted = model.encode(query)
    if not any(wanted):
        return None
    size = 2 * len(wanted)  # float16 bytes of one vector
    keys, blobs = newest_meanings(store, SCAN)
    kept = [(key, blob) for key, blob in zip(keys, blobs, strict=True) if len(blob) == size]
    values = unpack(b"".join(blob for _, blob in kept))  # one call for every vector
    dims = len(wanted)
    cosines = {
        key: sum(map(mul, wanted, values[n * dims : (n + 1) * dims]))
        for n, (key, _) in enumerate(kept)
    }
    return QueryMeaning(cosines, _Coverage(model, query).of)


class _Coverage:
    """How far the query's words are covered by the words of texts, by meaning: per text the
    mean over the query's terms of each term's best cosine with one of its words (a word of its
    context counting CONTEXT_CREDIT of that), each in 0..1."""

    def __init__(self, model: MeaningModel, query: str) -> None:
        from cms.observations.matching import query_terms

        self._model = model
        self._words: dict[str, Vector] = {}
        self._terms = [self._vector(term) for term in query_terms(query)]
        self._best: dict[str, list[float]] = {}  # word -> its cosine with each term
        self._known: dict[tuple[str, str], float] = {}  # a text is scored once per query

    def _vector(self, word: str) -> Vector:
        found = self._words.get(word)
        if found is None:
            found = self._words[word] = self._model.encode(word)
        return found

    def _cosines(self, word: str) -> list[float]:
        found = self._best.get(word)
        if found is None:
            vector = self._vector(word)
            found = self._best[word] = [sum(map(mul, term, vector)) for term in self._terms]
        return found

    def _score(self, text: str, around: str) -> float:
        from cms.observations.matching import CONTEXT_CREDIT, content_words

        best = [0.0] * len(self._terms)
        for credit, words in ((1.0, content_words(text)), (CONTEXT_CREDIT, content_words(around))):
            for word in dict.fromkeys(words):
                for n, cos in enumerate(self._cosines(word)):
                    best[n] = max(best[n], min(1.0, credit * cos))
        return sum(best) / len(best)

    def of(self, texts: Sequence[tuple[str, str]]) -> list[float]:
        if not self._terms:
            return [0.0] * len(texts)
        for pair in texts:
            if pair not in self._known:
                self._known[pair] = self._score(*pair)
        return [self._known[pair] for pair in texts]
