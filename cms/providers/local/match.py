"""How a candidate fact relates to the map: which planet it belongs to, which fact it updates.

Planets are ranked with BM25 and accepted by a weighted term overlap (rare terms weigh more);
a fact is a duplicate, an update (same subject, changed value or choice) or a retraction of a
stored fact by conservative term-set rules. Reads the map, never changes it; deterministic.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from cms.map.model import CorrelationMap, Planet, Satellite, Sun
from cms.map.ops import normalise_text
from cms.providers.local.sentences import Candidate
from cms.textindex import Bm25Index, tokenize

NEAR_DUPLICATE = 0.8  # Jaccard of term sets

_JUNK_TERMS = frozenset({"ll", "ve", "re", "m", "d"})  # contraction leftovers of tokenize
_CUE_TERMS = frozenset(
    tokenize(
        "instead rather switch switched switching change changed "
        "actually now no longer anymore update updated plan moved"
    )
)
_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:%|ms|s|m|h|kb|mb|gb)?(?![\w])", re.I)


@lru_cache(maxsize=4096)
def terms_of(text: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(text) if t not in _JUNK_TERMS)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _split_values(terms: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    values = frozenset(t for t in terms if _DIGIT.search(t))
    return terms - values - _CUE_TERMS, values


def _old_choices(text: str) -> frozenset[str]:
    """Terms named as the old choice: `instead of X`, `switch from X`, `rather than X`, ..."""
    found = re.findall(
        r"\b(?:instead of|rather than|from|no longer(?: use)?|replac\w* )\s*"
        r"((?:[\w.+#-]+\s*){1,2})",
        text,
        re.I,
    )
    return frozenset(t for chunk in found for t in terms_of(chunk))


@lru_cache(maxsize=4096)
def _slots(text: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...], int, int], ...]:
    """Each number with the word before it and the two words after it (its 'slot'); the same
    stored facts are compared with every candidate of a turn, so they are worked out once."""
    out = []
    for m in _NUMBER.finditer(text):
        after = [t for t in tokenize(text[m.end() : m.end() + 60]) if not t[0].isdigit()][:2]
        before = [
            t for t in tokenize(text[max(0, m.start() - 40) : m.start()]) if not t[0].isdigit()
        ][-1:]
        out.append((m.group(0), tuple(before), tuple(after), m.start(), m.end()))
    return tuple(out)


def substitute_value(old: str, new: str) -> str | None:
    """`old` with one number changed to the one `new` gives for the same slot, if any."""
    for value, before, after, start, end in _slots(old):
        for nvalue, nbefore, nafter, _, _ in _slots(new):
            same = (len(after) == 2 and after == nafter) or (
                before and before == nbefore and after[:1] and after[:1] == nafter[:1]
            )
            if same and nvalue != value:
                return old[:start] + nvalue + old[end:]
    return None


_COMMAND_SLOT = re.compile(r"^([A-Z][\w ]{0,40}?) `([\w./:-]+)[ `]")


@lru_cache(maxsize=4096)
def command_slot(text: str) -> tuple[str, str] | None:
    """What a command fact says how to do, and with which program ("Run the tests with",
    "mix"): a later run of the same program for the same purpose replaces it."""
    found = _COMMAND_SLOT.match(text)
    return (found.group(1), found.group(2)) if found else None


@dataclass
class View:
    """One live planet (or a sun as a whole) as the matcher sees it."""

    sun: Sun
    planet: Planet | None
    title: frozenset[str]
    terms: frozenset[str]


class Matcher:
    """Term weights, BM25 ranking and overlap scores over the map's live planets and suns."""

    def __init__(self, cmap: CorrelationMap) -> None:
        self.planets: list[View] = []
        self.suns: list[View] = []
        docs: list[str] = []
        for sun in cmap.suns:
            sun_terms = terms_of(sun.title)
            everything = set(sun_terms)
            for planet in sun.planets:
                texts = [planet.title, *(s.text for s in planet.satellites)]
                terms = sun_terms.union(*(terms_of(t) for t in texts))
                everything |= terms
                self.planets.append(View(sun, planet, terms_of(planet.title), terms))
                docs.append(" ".join([planet.title, planet.title, sun.title, *texts[1:]]))
            self.suns.append(View(sun, None, sun_terms, frozenset(everything)))
        self.df: Counter[str] = Counter(t for v in self.planets for t in v.terms)
        self.index = Bm25Index(docs)

    def weight(self, term: str) -> float:
        return math.log(1 + max(len(self.planets), 1) / max(self.df.get(term, 0), 1))

    def match(self, terms: frozenset[str], view: View) -> float:
        """The weighted share of the terms found in the view (title terms count 1.5 times)."""
        ordered = sorted(terms)
        total = sum(self.weight(t) for t in ordered)
        hit = sum(
            self.weight(t) * (1.5 if t in view.title else 1.0) for t in ordered if t in view.terms
        )
        return min(hit / total, 1.0) if total else 0.0

    def best_planet(
        self, text: str, terms: frozenset[str], threshold: float, min_shared: int = 2
    ) -> View | None:
        best: tuple[float, int] | None = None
        for i, _ in self.index.top(text, 5) if self.planets else []:
            view = self.planets[i]
            if len(terms & view.terms) < min_shared:
                continue
            score = self.match(terms, view)
            if score >= threshold and (best is None or score > best[0]):
                best = (score, i)
        return self.planets[best[1]] if best else None

    def best_sun(self, terms: frozenset[str]) -> tuple[View | None, float]:
        best: tuple[View | None, float] = (None, 0.0)
        for view in self.suns:
            score = self.match(terms, view) if len(terms & view.terms) >= 2 else 0.0
            if score > best[1]:
                best = (view, score)
        return best

    @staticmethod
    def by_title(counts: Counter[str], views: list[View]) -> View | None:
        """The node whose title the exchange keeps naming (at least half its terms, 3 times)."""
        best: tuple[int, int] | None = None
        total = sum(counts.values())
        for i, view in enumerate(views):
            present = [t for t in sorted(view.title) if counts[t]]
            mentions = sum(counts[t] for t in present)
            named = len(present) * 2 >= len(view.title) and mentions >= max(3, 0.1 * total)
            if view.title and named and (best is None or mentions > best[0]):
                best = (mentions, i)
        return views[best[1]] if best else None


@dataclass(frozen=True)
class Revision:
    action: str  # "replace" (the candidate's text replaces the fact), "patch" or "delete"
    planet: Planet
    sat: Satellite
    text: str = ""  # the new text for replace and patch


class StoredFacts:
    """The map's live facts, for duplicate checks and revisions; facts can be set aside."""

    def __init__(self, cmap: CorrelationMap) -> None:
        self.facts = [
            (p, s, terms_of(s.text)) for sun in cmap.suns for p in sun.planets for s in p.satellites
        ]
        self.frame = {
            p.id: terms_of(p.title) | terms_of(sun.title) for sun in cmap.suns for p in sun.planets
        }
        self.gone: set[str] = set()  # deleted or replaced by the answer being built
        self.keys: dict[str, list[str]] = {}  # normalised text -> ids of the facts with it
        self.splits: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        for _, sat, _ in self.facts:
            self.keys.setdefault(normalise_text(sat.text), []).append(sat.id)

    def _split(self, sat_id: str, terms: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
        """A stored fact's words and values, worked out once per answer."""
        found = self.splits.get(sat_id)
        if found is None:
            found = self.splits[sat_id] = _split_values(terms)
        return found

    def live(self) -> list[tuple[Planet, Satellite, frozenset[str]]]:
        return [f for f in self.facts if f[1].id not in self.gone]

    def has_exact(self, text: str) -> bool:
        return any(i not in self.gone for i in self.keys.get(normalise_text(text), ()))

    def has_near(self, terms: frozenset[str]) -> bool:
        return any(_jaccard(terms, fterms) >= NEAR_DUPLICATE for _, _, fterms in self.live())

    def revision(self, cand: Candidate, terms: frozenset[str]) -> Revision | None:
        """The stored fact this candidate updates or retracts, if it clearly does."""
        words, values = _split_values(terms)
        olds = _old_choices(cand.text)
        best: tuple[float, Revision] | None = None
        for planet, sat, fterms in self.live():
            if not fterms & terms and cand.kind != "done":
                continue  # nothing in common: neither an update nor a retraction
            found = self._judge(cand, words, values, olds, planet, sat, fterms)
            if found and (best is None or found[0] > best[0]):
                best = found
        return best[1] if best else None

    def _judge(
        self,
        cand: Candidate,
        words: frozenset[str],
        values: frozenset[str],
        olds: frozenset[str],
        planet: Planet,
        sat: Satellite,
        fterms: frozenset[str],
    ) -> tuple[float, Revision] | None:
        slot = command_slot(cand.text) if cand.kind == "command" else None
        if slot is not None and command_slot(sat.text) == slot:
            return 3.0, Revision("replace", planet, sat, cand.text)  # the latest run decides
        fwords, fvalues = self._split(sat.id, fterms)
        shared = words & fwords
        if cand.kind == "done":  # a finished todo item retires its TODO fact only
            own = len(shared) >= 2 and len(shared) >= 0.75 * len(fwords - {"todo"})
            return (
                (1.0, Revision("delete", planet, sat))
                if own and sat.text.startswith("TODO:")
                else None
            )
        if cand.kind in ("revert", "question"):
            if cand.kind == "question" or len(shared) < 2 or len(shared) < 0.75 * len(fwords):
                return None
            distinct = fwords - self.frame.get(planet.id, frozenset())
            ok = not distinct or distinct & words  # what sets the fact apart must be named
            return (len(shared) / len(fwords), Revision("delete", planet, sat)) if ok else None
        if values and fvalues and values != fvalues and fwords and _jaccard(words, fwords) >= 0.75:
            return 2.0, Revision("replace", planet, sat, cand.text)
        covers = len(shared) >= 2 and len(shared) >= 0.6 * len(fwords)
        if cand.update and covers:
            swapped = len(fwords - words) == 1 and 1 <= len(words - fwords) <= 2
            if swapped or (olds & fwords and words - fwords):
                return len(shared) / len(fwords), Revision("replace", planet, sat, cand.text)
        if values and fvalues and (cand.update or fvalues & values):
            patched = substitute_value(sat.text, cand.text)
            if patched and not self.has_exact(patched):
                return 0.5, Revision("patch", planet, sat, patched)
        return None

    def answered_questions(self, user: str) -> list[Revision]:
        """Open questions that the user's new prompt answers (names nearly all their terms)."""
        if not user.strip() or user.rstrip().endswith("?"):
            return []
        said = terms_of(user)
        out = []
        for planet, sat, fterms in self.live():
            if not sat.text.startswith("Open question:"):
                continue
            asked = fterms - _QUESTION_TERMS
            if len(asked & said) >= 2 and len(asked & said) >= 0.75 * len(asked):
                out.append(Revision("delete", planet, sat))
        return out

    def closed_todos(self, closed: set[str]) -> list[Revision]:
        """TODO facts naming a work item (an issue id) that this exchange closed."""
        if not closed:
            return []
        return [
            Revision("delete", planet, sat)
            for planet, sat, _ in self.live()
            if sat.text.startswith("TODO:") and set(work_item_ids(sat.text)) & closed
        ]


# an issue or work item id: spotter-4te.4, PROJ-123, #42
_ITEM_ID = re.compile(
    r"(?<![\w.-])(?:[a-z][a-z0-9]*-[a-z0-9]+(?:\.\d+)+|[A-Z][A-Z0-9]+-\d+|#\d+)(?![\w-])"
)
_CLOSING = re.compile(
    r"\b(?:close[sd]?|closing|done|complete[sd]?|completing|resolve[sd]?|finish(?:ed|es)?|"
    r"merged|implemented)\b|\u2713|\u2705",
    re.I,
)


_STILL_OPEN = re.compile(
    r"\b(?:not|n't|never|remaining|remain|still|todo|next|pending|blocked|open|left|yet)\b", re.I
)


def work_item_ids(text: str) -> list[str]:
    return [m.group(0).lower() for m in _ITEM_ID.finditer(text)]


def closed_items(texts: list[str]) -> set[str]:
    """Ids of work items these texts (a tool call's input or output, a line of the answer)
    report closed: the id and a closing word on the same line."""
    out: set[str] = set()
    for text in texts:
        for line in text.splitlines():
            if _CLOSING.search(line) and not _STILL_OPEN.search(line):
                out.update(work_item_ids(line))
    return out


_QUESTION_TERMS = frozenset(tokenize("open question want need like think should whether which"))
