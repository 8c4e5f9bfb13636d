"""A small in-memory BM25 index over short texts, with a tokenizer that folds case and stems,
and the short forms developers write for common words ("env", "PR"), so that a query in one
form finds a text in the other. Used by the searches and the local extractor; it knows nothing
of maps or files. Standard library only (patterns compiled on first use), cheap to import.
"""

from __future__ import annotations

import math

from cms.lazypattern import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Sequence

_WORD = LazyPattern(r"[^\W_]+(?:[._/-][^\W_]+)*")  # words, kept whole across . _ / -
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did didn do does doesn doing don down
    during each few for from further get got had has have having he her here hers herself
    him himself his how i if in into is isn it its itself just let made make me more most my
    myself no nor not now of off ok okay on once only or other our ours ourselves out over
    own please s same she should so some such t than thanks that the their theirs them
    themselves then there these they this those through to too under until up use used using
    very was wasn we were what when where which while who whom why will with won would yeah
    yes you your yours yourself yourselves
    """.split()
)
_SUFFIXES = (
    "ations",
    "ation",
    "ings",
    "ing",
    "ness",
    "ments",
    "ment",
    "edly",
    "ies",
    "ied",
    "ers",
    "er",
    "ed",
    "es",
    "ly",
    "s",
)


_stem_cache: dict[str, str] = {}


def stem(word: str) -> str:
    """A light suffix stripper: good enough to match plural and tense variants."""
    cached = _stem_cache.get(word)
    if cached is not None:
        return cached
    base = word
    if len(word) > 3 and word.isalpha():
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                base = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
                break
    if len(_stem_cache) < 100_000:
        _stem_cache[word] = base
    return base


_JOINERS = LazyPattern(r"[._/-]")


def tokenize(text: str) -> list[str]:
    """Lower-cased, stemmed terms without stopwords; dotted or slashed names also split."""
    terms: list[str] = []
    cache = _stem_cache
    for word in _WORD.findall(text.casefold()):
        if word.isalnum():  # the common case: one plain word
            if word not in STOPWORDS:
                terms.append(cache.get(word) or stem(word))
            continue
        terms.append(word)
        terms.extend(stem(p) for p in _JOINERS.split(word) if p and p not in STOPWORDS)
    return terms


class Bm25Index:
    """BM25 (k1=1.2, b=0.75) over a fixed list of documents.

    Only documents that contain a query term's stem as a substring are tokenized, so a query
    over thousands of facts costs a substring scan; lengths are measured in characters.
    """

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.texts = [d.casefold() for d in documents]
        self.lengths = [len(t) for t in self.texts]
        self.avg = (sum(self.lengths) / len(self.texts)) if self.texts else 0.0
        self._terms: dict[int, Counter[str]] = {}
        from collections import Counter  # off the hook path, which only imports STOPWORDS, stem

        self._counter = Counter

    def _doc_terms(self, i: int) -> Counter[str]:
        terms = self._terms.get(i)
        if terms is None:
            terms = self._terms[i] = self._counter(tokenize(self.texts[i]))
        return terms

    def scores(self, query: str) -> list[float]:
        result = [0.0] * len(self.texts)
        n = len(self.texts)
        for term in dict.fromkeys(tokenize(query)):
            probe = term if _JOINERS.search(term) else term[: max(3, len(term) - 1)]
            hits = [
                (i, tf)
                for i, text in enumerate(self.texts)
                if probe in text and (tf := self._doc_terms(i).get(term, 0))
            ]
            if not hits:
                continue
            idf = math.log(1 + (n - len(hits) + 0.5) / (len(hits) + 0.5))
            for i, tf in hits:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                result[i] += idf * tf * (self.k1 + 1) / (tf + norm)
        return result

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """(document index, score) of the k best documents with a positive score."""
        ranked = sorted(
            ((i, s) for i, s in enumerate(self.scores(query)) if s > 0),
            key=lambda pair: (-pair[1], pair[0]),
        )
        return ranked[:k]


# (short form, long form), a fixed general table (never words seen in one project or benchmark);
# the long form may be several words, found together in a text.
SHORT_FORMS = (
    ("app", "application"),
    ("arg", "argument"),
    ("args", "arguments"),
    ("auth", "authentication"),
    ("cli", "command line"),
    ("config", "configuration"),
    ("db", "database"),
    ("dep", "dependency"),
    ("deps", "dependencies"),
    ("dev", "development"),
    ("dir", "directory"),
    ("docs", "documentation"),
    ("env", "environment"),
    ("func", "function"),
    ("impl", "implementation"),
    ("js", "javascript"),
    ("lib", "library"),
    ("msg", "message"),
    ("param", "parameter"),
    ("params", "parameters"),
    ("pkg", "package"),
    ("pr", "pull request"),
    ("prod", "production"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("ts", "typescript"),
    ("tmp", "temporary"),
    ("var", "variable"),
    ("vars", "variables"),
)
_OTHER = {a: b for pair in SHORT_FORMS for a, b in (pair, pair[::-1]) if " " not in a}
_PHRASES = [(long.split(), short) for short, long in SHORT_FORMS if " " in long]


def term_forms(terms: Sequence[str]) -> list[tuple[str, ...]]:
    """Per query term (lower-cased words, in query order): the term and the other form a text
    may use for it. A long form of several words is matched when its words follow each other
    in terms: each of them may then be the short form ("pull", "request" -> "pr")."""
    forms: list[tuple[str, ...]] = [(t, _OTHER[t]) if t in _OTHER else (t,) for t in terms]
    for words, short in _PHRASES:
        size = len(words)
        for n in range(len(terms) - size + 1):
            if list(terms[n : n + size]) == words:
                for i in range(n, n + size):
                    forms[i] = (*forms[i], short)
    return forms


def every_form(terms: Sequence[str]) -> list[str]:
    """The terms and every other form of them (term_forms), each once: what to match."""
    return list(dict.fromkeys(form for forms in term_forms(terms) for form in forms))
