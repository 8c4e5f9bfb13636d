"""Where writing could not tell, reading does: among the items that answer one query, which are
history because a newer item states the same subject.

An older item is history when a newer one answers every query word the older answers (the
query names the subject the two are about) and the two mean alike (the cosine of their vectors
by the packaged static model, cms.language.meaning; their shared words when it cannot load).
Pure functions on texts and times: no store, no I/O but the model's files, standard library
only (the hooks run it); what an item is (rule, decision, noise) is not decided here.
"""

from __future__ import annotations

import struct

from cms.errors import CmsError
from cms.textindex import STOPWORDS, stem

SAME_MEANING = 0.5  # cosine at which two answers of one query state one subject
SAME_WORDS = 0.2  # share of their words (Jaccard) at which they do, without the model
ANSWERED_WORDS = 2  # query words an item must answer for the query to name its subject
# Without a query nothing names the subject: the two must mean more alike.
UNASKED_MEANING = 0.7
UNASKED_WORDS = 0.35

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported on the hook path
    from collections.abc import Sequence
    from typing import Protocol

    from cms.language.meaning import MeaningModel

    Vector = Sequence[float]

    class Statement(Protocol):
        """What reading needs of an item: its text, when it was said, its stored meaning."""

        @property
        def text(self) -> str: ...

        @property
        def said_at(self) -> tuple[float, int]: ...  # (time, order among items of that time)

        @property
        def stored_meaning(self) -> bytes | None: ...  # its vector, stored when written

        @property
        def decided(self) -> bool: ...  # what it replaces was decided when it was written

        @property
        def said_in(self) -> tuple[str | None, int | None]: ...  # its chat and turn


_EDGES = "`'\"*()[]{}<>,;:.!?"
_INNER = "_./:@-=#"


def values_of(text: str) -> frozenset[str]:
    """What a statement says of its subject, read from the shape of its tokens (no word list):
    numbers and versions, code spans, identifiers, paths, hosts, flags, MixedCase names."""
    found: set[str] = set()
    in_code = False
    for raw in text.split():
        token = raw.strip(_EDGES)
        code = in_code or raw.startswith("`")
        if raw.count("`") % 2:
            in_code = not in_code
        if len(token) < 2 and not token.isdigit():
            continue
        if (
            code
            or any(c.isdigit() for c in token)
            or any(c in _INNER for c in token)
            or (any(c.isupper() for c in token[1:]) and any(c.islower() for c in token))
        ):
            found.add(token.casefold())
    return frozenset(found)


def _stems(text: str) -> frozenset[str]:
    """The stemmed words of a text without numbers and stopwords (split on spaces and the
    punctuation around words: no pattern, so the hooks need not import re)."""
    found: set[str] = set()
    for raw in text.casefold().split():
        for word in raw.replace("/", " ").replace("-", " ").replace(".", " ").split():
            word = word.strip(_EDGES + "_=#@")
            if len(word) > 1 and word.isalpha() and word not in STOPWORDS:
                found.add(stem(word))
    return frozenset(found)


def _word_likeness(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


class _Likeness:
    """How alike two items mean: by their stored vectors, else by the model when it may load
    (by_meaning), else by their shared words."""

    def __init__(self, items: Sequence[Statement], words: Sequence[frozenset[str]],
                 by_meaning: bool) -> None:  # fmt: skip
        self.items, self.words = items, words
        self.vectors: dict[int, Vector | None] = {}
        self.by_meaning = by_meaning
        self.model: MeaningModel | None = None

    def vector(self, n: int) -> Vector | None:
        if n not in self.vectors:
            blob = self.items[n].stored_meaning
            if blob and len(blob) % 2 == 0:
                self.vectors[n] = struct.unpack(f"<{len(blob) // 2}e", blob)
            elif self.by_meaning:
                if self.model is None:
                    self.model = _model()
                    self.by_meaning = self.model is not None
                self.vectors[n] = self.model.encode(self.items[n].text) if self.model else None
            else:
                self.vectors[n] = None
        return self.vectors[n]

    def alike(self, a: int, b: int, same_meaning: float, same_words: float) -> bool:
        va, vb = self.vector(a), self.vector(b)
        if va is not None and vb is not None and len(va) == len(vb):
            return sum(x * y for x, y in zip(va, vb, strict=True)) >= same_meaning
        return _word_likeness(self.words[a], self.words[b]) >= same_words


def _model() -> MeaningModel | None:
    try:
        from cms.language.meaning import load_model

        return load_model(verify=False)  # compares only; nothing is stored
    except CmsError as exc:
        from cms.log import log_event

        log_event("warning", "meaning_model_unavailable", str(exc))
        return None


def history_of(
    items: Sequence[Statement],
    query: str,
    *,
    same_meaning: float = SAME_MEANING,
    same_words: float = SAME_WORDS,
    by_meaning: bool = True,
) -> dict[int, int]:
    """{index of an item that is history: index of the newer item that replaces it}, for items
    that answer query (indexes into items). An item replaced by a replaced item is replaced by
    the newest of the chain. Without a query (a list pushed whatever the prompt), any two items
    are compared, with the stricter UNASKED thresholds. Items are compared by their stored
    meanings; an item without one, by the model when by_meaning (the hooks never load it: about
    25 ms), else by words."""
    asked = _stems(query)
    words = [_stems(item.text) for item in items]
    if asked:
        answers = [w & asked for w in words]
    else:
        answers = words
        same_meaning = max(same_meaning, UNASKED_MEANING)
        same_words = max(same_words, UNASKED_WORDS)
    values = [values_of(item.text) for item in items]
    order = sorted(range(len(items)), key=lambda n: items[n].said_at, reverse=True)
    likeness: _Likeness | None = None
    replaced: dict[int, int] = {}
    for rank, older in enumerate(order):
        if len(answers[older]) < ANSWERED_WORDS:
            continue
        for newer in order[:rank]:
            if items[newer].said_at <= items[older].said_at:
                continue  # said at the same time: neither is the newer
            if items[older].decided and items[newer].decided:
                continue  # writing told (two rules of one frame may both be in force)
            if items[older].said_in[1] is not None and items[older].said_in == items[newer].said_in:
                continue  # one turn's words (its answer, its tools' output) replace nothing
            if asked and not answers[older] <= answers[newer]:
                continue
            if not (values[older] - values[newer] and values[newer] - values[older]):
                continue  # no other value: a mention, a restatement or another aspect
            if likeness is None:
                likeness = _Likeness(items, words, by_meaning)
            if likeness.alike(older, newer, same_meaning, same_words):
                replaced[older] = replaced.get(newer, newer)
                break
    return replaced
