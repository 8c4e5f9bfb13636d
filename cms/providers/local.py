"""The offline `local` provider: turns one exchange into diff ops on the current map, in code.

Scores the exchange's candidate facts (cms.providers.local_rules) against the map's planets
with BM25 and weighted token overlap, files them under the planet they match or under one new
subtopic, and updates or deletes stale facts conservatively. Deterministic (no clock, no set
order in the output); at most 10 ops; its answers pass apply_answer on the map they were made
for. No I/O and no model.
"""

from __future__ import annotations

import copy
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from cms.map.model import CorrelationMap, Planet, Satellite, Sun
from cms.map.ops import MAX_OPS_PER_TURN, apply_ops, normalise_text
from cms.providers.local_rules import (
    Candidate,
    PathNamer,
    collect_candidates,
    edited_paths,
    exchange_paths,
    topic_units,
)
from cms.providers.local_titles import Titles, short_path, title_text
from cms.textindex import Bm25Index, tokenize
from cms.transcripts.exchange import Exchange

MAX_FACTS = 8  # new facts per turn (added or replacing)
MAX_REPLACES = 3
MAX_DELETES = 3
MAX_INC = 3
FACT_MATCH = 0.34  # share of a fact's weighted terms found in a planet
TOPIC_MATCH = 0.3  # the same for the exchange as a whole (the planet the talk returned to)
SUN_MATCH = 0.2
NEAR_DUPLICATE = 0.8  # Jaccard of term sets
FULL_PLANET = 15  # facts: past this, unmatched facts start a new subtopic
MAX_SUNS = 12  # soft: past this, a new subtopic joins the closest sun when any term matches

_JUNK_TERMS = frozenset({"ll", "ve", "re", "m", "d"})  # contraction leftovers of tokenize
_CUE_TERMS = frozenset(
    tokenize(
        "instead rather switch switched switching change changed actually "
        "now no longer anymore update updated plan decided moved"
    )
)


def _terms(text: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(text) if t not in _JUNK_TERMS)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _split_values(terms: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    values = frozenset(t for t in terms if any(c.isdigit() for c in t))
    return terms - values - _CUE_TERMS, values


@dataclass
class _View:
    """One live planet (or a sun as a whole) as the matcher sees it."""

    sun: Sun
    planet: Planet | None
    title: frozenset[str]
    terms: frozenset[str]


@dataclass
class _Plan:
    deletes: list[str] = field(default_factory=list)
    replaces: list[tuple[str, str, Planet]] = field(default_factory=list)
    adds: list[tuple[Candidate, Planet]] = field(default_factory=list)
    fresh: list[Candidate] = field(default_factory=list)  # facts for the new subtopic
    touched: list[Planet] = field(default_factory=list)  # planets the talk returned to

    def touch(self, planet: Planet) -> None:
        if all(p is not planet for p in self.touched):
            self.touched.append(planet)


class _Matcher:
    """Term weights, BM25 ranking and overlap scores over the map's live planets and suns."""

    def __init__(self, cmap: CorrelationMap) -> None:
        self.planets: list[_View] = []
        self.suns: list[_View] = []
        for sun in cmap.suns:
            sun_terms = _terms(sun.title)
            everything = set(sun_terms)
            for planet in sun.planets:
                text = " ".join([planet.title, *(s.text for s in planet.satellites)])
                terms = _terms(text) | sun_terms
                everything |= terms
                self.planets.append(_View(sun, planet, _terms(planet.title), terms))
            self.suns.append(_View(sun, None, sun_terms, frozenset(everything)))
        self.df: Counter[str] = Counter(t for v in self.planets for t in v.terms)
        self.index = Bm25Index(
            [
                " ".join(
                    [v.planet.title] * 2 + [v.sun.title] + [s.text for s in v.planet.satellites]
                )
                for v in self.planets
                if v.planet is not None
            ]
        )

    def weight(self, term: str) -> float:
        return math.log(1 + max(len(self.planets), 1) / max(self.df.get(term, 0), 1))

    def match(self, terms: frozenset[str], view: _View) -> float:
        ordered = sorted(terms)
        total = sum(self.weight(t) for t in ordered)
        hit = sum(
            self.weight(t) * (1.5 if t in view.title else 1.0) for t in ordered if t in view.terms
        )
        return min(hit / total, 1.0) if total else 0.0

    def best_planet(
        self, text: str, terms: frozenset[str], threshold: float, min_shared: int = 2
    ) -> _View | None:
        best: tuple[float, int] | None = None
        for i, _ in self.index.top(text, 5) if self.planets else []:
            view = self.planets[i]
            if len(terms & view.terms) < min_shared:
                continue
            score = self.match(terms, view)
            if score >= threshold and (best is None or score > best[0]):
                best = (score, i)
        return self.planets[best[1]] if best else None

    @staticmethod
    def by_title(counts: Counter[str], views: list[_View]) -> _View | None:
        """The node whose title the exchange keeps naming (at least half its terms, 3 times)."""
        best: tuple[int, int] | None = None
        for i, view in enumerate(views):
            present = [t for t in sorted(view.title) if counts[t]]
            mentions = sum(counts[t] for t in present)
            named = view.title and len(present) * 2 >= len(view.title) and mentions >= 3
            if named and (best is None or mentions > best[0]):
                best = (mentions, i)
        return views[best[1]] if best else None

    def best_sun(self, terms: frozenset[str]) -> tuple[_View | None, float]:
        best: tuple[_View | None, float] = (None, 0.0)
        for view in self.suns:
            score = self.match(terms, view) if len(terms & view.terms) >= 2 else 0.0
            if score > best[1]:
                best = (view, score)
        return best


class _Extractor:
    def __init__(self, cmap: CorrelationMap, exchange: Exchange) -> None:
        self.cmap = cmap
        self.exchange = exchange
        self.namer = PathNamer(exchange_paths(exchange), exchange.extra.get("cwd", ""))
        self.matcher = _Matcher(cmap)
        self.facts: list[tuple[Planet, Satellite, frozenset[str]]] = [
            (planet, sat, _terms(sat.text))
            for sun in cmap.suns
            for planet in sun.planets
            for sat in planet.satellites
        ]
        self.sun_terms = {p.id: _terms(sun.title) for sun in cmap.suns for p in sun.planets}
        self.gone: set[str] = set()  # facts deleted or replaced by this answer
        self.plan = _Plan()
        self.home_sun: Sun | None = None
        self.topic_counts: Counter[str] = Counter()

    # -- revisions --------------------------------------------------------------------------
    def _revision(
        self, cand: Candidate, terms: frozenset[str]
    ) -> tuple[str, Planet, Satellite] | None:
        words, values = _split_values(terms)
        olds = _old_values(cand.text)
        best: tuple[float, str, Planet, Satellite] | None = None
        for planet, sat, fterms in self.facts:
            if sat.id in self.gone:
                continue
            fwords, fvalues = _split_values(fterms)
            shared = words & fwords
            action, score = "", 0.0
            if cand.kind == "done" and not sat.text.startswith("TODO:"):
                continue
            if cand.kind not in ("question", "revert", "done"):
                changed = values and fvalues and values != fvalues and fwords
                if changed and _jaccard(words, fwords) >= 0.75:
                    action, score = "replace", 1.0 + _jaccard(words, fwords)
                covers = len(shared) >= 2 and len(shared) >= 0.6 * len(fwords)
                if not action and cand.update and covers:
                    swapped = len(fwords - words) == 1 and 1 <= len(words - fwords) <= 2
                    if swapped or (olds & fwords and words - fwords):
                        action, score = "replace", len(shared) / len(fwords)
            if (
                not action
                and cand.revert
                and len(shared) >= 2
                and len(shared) >= 0.75 * len(fwords)
            ):
                # the words that set this fact apart from its planet must be named too
                own = fwords - _terms(planet.title) - self.sun_terms.get(planet.id, frozenset())
                if not own or own & words:
                    action, score = "delete", len(shared) / len(fwords)
            if action and (best is None or score > best[0]):
                best = (score, action, planet, sat)
        return best[1:] if best else None

    def _is_duplicate(self, text: str, terms: frozenset[str], chosen: list[frozenset[str]]) -> bool:
        key = normalise_text(text)
        for _, sat, fterms in self.facts:
            if sat.id not in self.gone and (
                normalise_text(sat.text) == key or _jaccard(terms, fterms) >= NEAR_DUPLICATE
            ):
                return True
        return any(_jaccard(terms, other) >= NEAR_DUPLICATE for other in chosen)

    # -- choosing facts -----------------------------------------------------------------------
    def choose(self, candidates: list[Candidate]) -> list[tuple[Candidate, frozenset[str]]]:
        chosen: list[tuple[Candidate, frozenset[str]]] = []
        keys: set[str] = set()
        for cand in candidates:
            terms = _terms(cand.text)
            if len(chosen) + len(self.plan.replaces) >= MAX_FACTS and cand.kind not in (
                "done",
                "revert",
            ):
                continue
            stored = cand.kind not in ("revert", "done")
            if stored and (normalise_text(cand.text) in keys or self._is_exact(cand)):
                continue
            revision = self._revision(cand, terms)
            if revision and revision[0] == "replace" and len(self.plan.replaces) < MAX_REPLACES:
                _, planet, sat = revision
                self.plan.replaces.append((sat.id, cand.text, planet))
                self.gone.add(sat.id)
                self.plan.touch(planet)
                keys.add(normalise_text(cand.text))
                continue
            if revision and revision[0] == "delete" and len(self.plan.deletes) < MAX_DELETES:
                self.plan.deletes.append(revision[2].id)
                self.gone.add(revision[2].id)
            if not stored or self._is_duplicate(cand.text, terms, [t for _, t in chosen]):
                continue
            keys.add(normalise_text(cand.text))
            chosen.append((cand, terms))
        chosen.sort(key=lambda ct: ct[0].order)
        return chosen

    def _is_exact(self, cand: Candidate) -> bool:
        key = normalise_text(cand.text)
        return any(normalise_text(s.text) == key for _, s, _ in self.facts if s.id not in self.gone)

    # -- placing facts ------------------------------------------------------------------------
    def place(
        self, chosen: list[tuple[Candidate, frozenset[str]]], topic: frozenset[str], topic_text: str
    ) -> None:
        """Each fact to the planet it matches; the rest to the planet the talk returned to."""
        targets: list[_View | None] = [
            self.matcher.best_planet(cand.text, terms, FACT_MATCH) for cand, terms in chosen
        ]
        votes: Counter[int] = Counter(id(v) for v in targets if v is not None)
        home_view: _View | None = None
        unmatched = targets.count(None)
        if votes and max(votes.values()) * 2 >= unmatched:
            best = max(votes.values())
            home_view = next(v for v in targets if v is not None and votes[id(v)] == best)
        if home_view is None:
            home_view = self.matcher.best_planet(topic_text, topic, TOPIC_MATCH, min_shared=3)
        if home_view is None:
            home_view = self.matcher.by_title(self.topic_counts, self.matcher.planets)
        home = home_view.planet if home_view else None
        if home is not None:
            self.plan.touch(home)
        added: Counter[str] = Counter()
        for (cand, _), view in zip(chosen, targets, strict=True):
            target = view.planet if view else None
            if target is None and home and len(home.satellites) + added[home.id] < FULL_PLANET:
                target = home
            if target is None:
                self.plan.fresh.append(cand)
                continue
            added[target.id] += 1
            self.plan.adds.append((cand, target))
            self.plan.touch(target)
        self.home_sun = home_view.sun if home_view else None

    # -- the new subtopic -------------------------------------------------------------------------
    def new_topic_op(self, topic: frozenset[str]) -> dict[str, Any] | None:
        facts = [c.text for c in self.plan.fresh]
        if not facts:
            return None
        user, assistant = topic_units(self.exchange)
        titles = Titles(user, [user, *facts, assistant], self.namer.project_words())
        edited = [self.namer.name(p) for p in edited_paths(self.exchange)]
        planet_title = title_text(short_path(edited[0]) if len(edited) == 1 else titles.subtopic())
        sun = self.home_sun
        if sun is None:
            view, score = self.matcher.best_sun(topic)
            if view is None or (score < SUN_MATCH and len(self.cmap.suns) < MAX_SUNS):
                view = self.matcher.by_title(self.topic_counts, self.matcher.suns)
            sun = view.sun if view else None
        if sun is None:
            sun_title = title_text(titles.area(edited) or titles.topic(planet_title))
            sun = next(
                (s for s in self.cmap.suns if normalise_text(s.title) == normalise_text(sun_title)),
                None,
            )
            if sun is None:
                if normalise_text(sun_title) == normalise_text(planet_title):
                    planet_title = title_text(titles.subtopic(avoid=normalise_text(sun_title)))
                return {
                    "op": "add_sun",
                    "title": sun_title,
                    "planets": [{"title": planet_title, "sats": facts}],
                }
        same = next(
            (p for p in sun.planets if normalise_text(p.title) == normalise_text(planet_title)),
            None,
        )
        if same is not None:  # the subtopic exists already: file the facts there
            self.plan.adds.extend((c, same) for c in self.plan.fresh)
            self.plan.touch(same)
            self.plan.fresh = []
            return None
        return {"op": "add_planet", "sun": sun.id, "title": planet_title, "sats": facts}

    # -- the answer ------------------------------------------------------------------------------
    def ops(self) -> list[dict[str, Any]]:
        candidates = collect_candidates(self.exchange, self.namer)
        chosen = self.choose(candidates)
        user, _ = topic_units(self.exchange)
        topic_text = " ".join([user, *(c.text for c, _ in chosen)])
        topic = _terms(topic_text)
        self.topic_counts = Counter(tokenize(topic_text))
        self.place(chosen, topic, topic_text)
        new_op = self.new_topic_op(topic)
        plan = self.plan
        incs = [p for p in plan.touched][:MAX_INC]
        room = (
            MAX_OPS_PER_TURN
            - len(plan.deletes)
            - len(plan.replaces)
            - len(incs)
            - (1 if new_op else 0)
        )
        adds = sorted(plan.adds, key=lambda cp: (-cp[0].score, cp[0].order))[: max(room, 0)]
        adds.sort(key=lambda cp: cp[0].order)
        ops: list[dict[str, Any]] = [{"op": "delete_sat", "sat": s} for s in plan.deletes]
        ops += [{"op": "replace_sat", "sat": s, "text": t} for s, t, _ in plan.replaces]
        ops += [{"op": "add_sat", "planet": p.id, "text": c.text} for c, p in adds]
        ops += [{"op": "inc_mass", "planet": p.id} for p in incs]
        if new_op:
            ops.append(new_op)
        return ops


def _old_values(text: str) -> frozenset[str]:
    """Terms named as the old choice: `instead of X`, `switch from X`, `rather than X`, ..."""
    found = re.findall(
        r"\b(?:instead of|rather than|from|no longer(?: use)?|replac\w* )\s*"
        r"((?:[\w.+#-]+\s*){1,2})",
        text,
        re.I,
    )
    return frozenset(t for chunk in found for t in _terms(chunk))


def _keep_valid(cmap: CorrelationMap, ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Belt and braces: drop any op the engine would reject on this map (none, normally)."""
    for _ in range(3):
        report = apply_ops(copy.deepcopy(cmap), ops, now="1970-01-01T00:00:00Z")
        if not report.rejected:
            return ops
        bad = {o.index for o in report.rejected}
        ops = [op for i, op in enumerate(ops, start=1) if i not in bad]
    return []


def extract_ops(cmap: CorrelationMap, exchange: Exchange) -> dict[str, Any]:
    """Ops for one exchange on this map: `{"ops": [...]}`, at most 10, deterministic."""
    ops = _Extractor(cmap, exchange).ops()
    return {"ops": _keep_valid(cmap, ops[:MAX_OPS_PER_TURN])}
