"""A small in-memory BM25 index over short texts, with a tokenizer that folds case and stems.

Used by the local search selector and the local extractor; it knows nothing of maps or files.
Pure standard library, cheap to import.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9]+(?:[._/-][a-z0-9]+)*|[^\W\d_]+", re.UNICODE)
STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "also", "use", "used", "using", "get", "got", "make", "made", "s", "t", "don", "didn", "doesn", "isn", "wasn", "won", "ok", "okay", "please", "thanks", "yes", "yeah"]
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


def stem(word: str) -> str:
    """A light suffix stripper: good enough to match plural and tense variants."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                base += "y"
            return base
    return word


def tokenize(text: str) -> list[str]:
    """Lower-cased, stemmed terms without stopwords; dotted or slashed names also split."""
    terms: list[str] = []
    for match in _WORD.finditer(text.casefold()):
        word = match.group(0)
        parts = re.split(r"[._/-]", word)
        if len(parts) > 1:
            terms.append(word)
        terms.extend(stem(p) for p in parts if p and p not in STOPWORDS)
    return terms


class Bm25Index:
    """BM25 (k1=1.2, b=0.75) over a fixed list of documents."""

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.docs = [Counter(tokenize(d)) for d in documents]
        self.lengths = [sum(c.values()) for c in self.docs]
        self.avg = (sum(self.lengths) / len(self.docs)) if self.docs else 0.0
        df: Counter[str] = Counter()
        for doc in self.docs:
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> list[float]:
        terms = [t for t in dict.fromkeys(tokenize(query)) if t in self.idf]
        result = []
        for doc, length in zip(self.docs, self.lengths, strict=True):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.avg) if self.avg else self.k1
            for term in terms:
                tf = doc.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            result.append(score)
        return result

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """(document index, score) of the k best documents with a positive score."""
        ranked = sorted(
            ((i, s) for i, s in enumerate(self.scores(query)) if s > 0),
            key=lambda pair: (-pair[1], pair[0]),
        )
        return ranked[:k]
