"""The offline provider's pipeline: one exchange into at most 10 diff ops on the map, in code.

Collects candidate facts, files them under the planet they match or one new subtopic, and
updates or retracts stale facts conservatively. Deterministic; its answers pass apply_answer on
the map they were made for. No I/O, no model, no clock.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from cms.map.model import CorrelationMap, Planet, Sun, map_from_dict
from cms.map.ops import MAX_OPS_PER_TURN, apply_ops, normalise_text
from cms.providers.local.match import (
    Matcher,
    Revision,
    StoredFacts,
    View,
    closed_items,
    terms_of,
)
from cms.providers.local.rules import sentence_candidates
from cms.providers.local.sentences import Candidate, mostly_placeholders, topic_units, trim_fact
from cms.providers.local.titles import Titles, short_path, title_text
from cms.providers.local.tools import PathNamer, command_candidate, edited_paths, tool_candidates
from cms.textindex import tokenize
from cms.transcripts.exchange import Exchange
from cms.transcripts.redact import redact_text

MAX_FACTS = 8  # new facts per turn kept whatever their rank (added or replacing)
RANK_FLOOR = 4.0  # past MAX_FACTS, a fact is kept when it scores this (a change, a rule, ...)
MAX_FACTS_HARD = 40  # and never more than this in one turn (bounds the work, not the content)
MAX_REPLACES = 3
MAX_DELETES = 5
MAX_INC = 3
FACT_MATCH = 0.34  # weighted share of a fact's terms found in a planet
TOPIC_MATCH = 0.3  # the same for the exchange as a whole
SUN_MATCH = 0.2
FULL_PLANET = 15  # facts: past this, facts that match nothing start a new subtopic
MAX_SUNS = 12  # soft: past this, a new subtopic joins the closest sun when any term matches
_RESULTS = ("change", "status")  # what an answer reports done
_NOT_STORED = ("revert", "done")  # candidates that only retract stored facts
_FOLLOWERS = ("command", "file", "status", "task")  # too generic to choose a planet themselves


def collect_candidates(exchange: Exchange, namer: PathNamer) -> list[Candidate]:
    """Every candidate fact of the exchange, redacted, best first (ties in reading order)."""
    found, commands = sentence_candidates(exchange)
    for order, line in commands:
        cand = command_candidate(line, order, from_text=True)
        found += [cand] if cand else []
    if edited_paths(exchange) or any(c.kind in _RESULTS for c in found):
        found = [c for c in found if c.kind != "task"]  # a request done in its own turn
    found += tool_candidates(exchange, namer, 100_000)
    out: list[Candidate] = []
    seen: set[str] = set()
    for cand in found:
        text = trim_fact(redact_text(namer.shorten(cand.text)))
        key = normalise_text(text)
        if not key or key in seen or mostly_placeholders(text) or "cms-memory" in key:
            continue
        seen.add(key)
        out.append(Candidate(text, cand.kind, cand.score, cand.order, cand.revert, cand.update))
    out.sort(key=lambda c: (-c.score, c.order))
    return out


@dataclass
class _Plan:
    deletes: list[str] = field(default_factory=list)
    replaces: list[tuple[str, str]] = field(default_factory=list)
    adds: list[tuple[Candidate, Planet]] = field(default_factory=list)
    fresh: list[Candidate] = field(default_factory=list)  # facts for the new subtopic
    touched: list[Planet] = field(default_factory=list)  # planets the talk returned to

    def touch(self, planet: Planet) -> None:
        if all(p is not planet for p in self.touched):
            self.touched.append(planet)


class _Extractor:
    def __init__(self, cmap: CorrelationMap, exchange: Exchange) -> None:
        self.cmap = cmap
        self.exchange = exchange
        self.namer = PathNamer(exchange)
        self.matcher = Matcher(cmap)
        self.stored = StoredFacts(cmap)
        self.user, self.assistant = topic_units(exchange)
        self.plan = _Plan()
        self.home_sun: Sun | None = None
        self.topic_counts: Counter[str] = Counter()

    def _revise(self, revision: Revision) -> bool:
        plan, sat = self.plan, revision.sat
        if revision.action == "delete" and len(plan.deletes) < MAX_DELETES:
            plan.deletes.append(sat.id)
        elif revision.action != "delete" and len(plan.replaces) < MAX_REPLACES:
            plan.replaces.append((sat.id, revision.text))
            plan.touch(revision.planet)
        else:
            return False
        self.stored.gone.add(sat.id)
        return True

    def choose(self, candidates: list[Candidate]) -> list[tuple[Candidate, frozenset[str]]]:
        """The best new facts, after updates and retractions of stored ones; reading order."""
        for revision in self.stored.answered_questions(self.user):
            self._revise(revision)
        tool_texts = [f"{t.input}\n{t.output}" for t in self.exchange.tools if not t.is_error]
        closed = closed_items([*tool_texts, self.exchange.assistant])
        for revision in self.stored.closed_todos(closed):
            self._revise(revision)
        chosen: list[tuple[Candidate, frozenset[str]]] = []
        keys: set[str] = set()
        for cand in candidates:
            stored = cand.kind not in _NOT_STORED
            count = len(chosen) + len(self.plan.replaces)
            full = count >= MAX_FACTS_HARD or (count >= MAX_FACTS and cand.score < RANK_FLOOR)
            key = normalise_text(cand.text)
            if stored and (full or key in keys or self.stored.has_exact(cand.text)):
                continue
            terms = terms_of(cand.text)
            update = self.stored.revision(cand, terms)
            if update and self._revise(update) and update.action == "replace":
                keys.add(key)
                continue
            if not stored or self.stored.has_near(terms):
                continue
            if any(len(terms & t) >= 0.8 * len(terms | t) for _, t in chosen):
                continue
            keys.add(key)
            chosen.append((cand, terms))
        chosen.sort(key=lambda ct: ct[0].order)
        return chosen

    def place(self, chosen: list[tuple[Candidate, frozenset[str]]], topic_text: str) -> None:
        """Each fact to the planet it matches; the rest to the planet the talk returned to."""
        targets: list[View | None] = [
            None
            if cand.kind in _FOLLOWERS
            else self.matcher.best_planet(cand.text, terms, FACT_MATCH)
            for cand, terms in chosen
        ]
        votes: Counter[int] = Counter(
            i for i, v in enumerate(self.matcher.planets) for t in targets if t is v
        )
        home: View | None = None
        unmatched = sum(
            t is None and c.kind not in _FOLLOWERS
            for t, (c, _) in zip(targets, chosen, strict=True)
        )
        if votes and max(votes.values()) * 2 >= unmatched:
            home = self.matcher.planets[sorted(votes, key=lambda i: (-votes[i], i))[0]]
        home = home or self.matcher.best_planet(topic_text, terms_of(topic_text), TOPIC_MATCH, 3)
        home = home or Matcher.by_title(self.topic_counts, self.matcher.planets)
        room: Counter[str] = Counter()
        if home and home.planet:
            self.plan.touch(home.planet)
            self.home_sun = home.sun
            room[home.planet.id] = FULL_PLANET - len(home.planet.satellites)
        for (cand, _), view in zip(chosen, targets, strict=True):
            target = view.planet if view else None
            if target is None and home and home.planet and room[home.planet.id] > 0:
                target = home.planet
                room[target.id] -= 1
            if target is None:
                self.plan.fresh.append(cand)
            else:
                self.plan.adds.append((cand, target))
                self.plan.touch(target)

    def new_topic_op(self, topic: frozenset[str]) -> dict[str, Any] | None:
        """One add_sun or add_planet carrying every fact that matched no planet."""
        facts = [c.text for c in self.plan.fresh]
        if not facts:
            return None
        tool_words = {w for t in self.exchange.tools for w in re.split(r"[.:/]", t.name.lower())}
        tool_words |= {t.name.lower() for t in self.exchange.tools}
        avoid = self.namer.project_words() | tool_words  # a tool's name is not a subject
        titles = Titles(self.user, [self.user, *facts, self.assistant], avoid)
        edited = [self.namer.name(p) for p in edited_paths(self.exchange)]
        central = len(edited) == 1 and edited[0].rsplit("/", 1)[-1] in " ".join([self.user, *facts])
        planet_title = title_text(short_path(edited[0]) if central else titles.subtopic())
        sun = self.home_sun
        if sun is None:
            view, score = self.matcher.best_sun(topic)
            if view is None or (score < SUN_MATCH and len(self.cmap.suns) < MAX_SUNS):
                view = Matcher.by_title(self.topic_counts, self.matcher.suns)
            sun = view.sun if view else None
        if sun is None:
            sun_title = title_text(titles.area(edited) or titles.topic(planet_title))
            key = normalise_text(sun_title)
            sun = next((s for s in self.cmap.suns if normalise_text(s.title) == key), None)
            if sun is None:
                if key == normalise_text(planet_title):
                    planet_title = title_text(titles.subtopic(avoid=key))
                return {
                    "op": "add_sun",
                    "title": sun_title,
                    "planets": [{"title": planet_title, "sats": facts}],
                }
        key = normalise_text(planet_title)
        same = next((p for p in sun.planets if normalise_text(p.title) == key), None)
        if same is not None:  # the subtopic exists already: file the facts there
            self.plan.adds += [(c, same) for c in self.plan.fresh]
            self.plan.touch(same)
            self.plan.fresh = []
            return None
        return {"op": "add_planet", "sun": sun.id, "title": planet_title, "sats": facts}

    def ops(self) -> list[dict[str, Any]]:
        chosen = self.choose(collect_candidates(self.exchange, self.namer))
        topic_text = " ".join([self.user, *(c.text for c, _ in chosen)])
        self.topic_counts = Counter(tokenize(topic_text))
        self.place(chosen, topic_text)
        plan = self.plan
        # one op per fact added to an existing planet: those past the op budget join the new
        # subtopic (one op for all of them) instead of being left out
        room = MAX_OPS_PER_TURN - len(plan.deletes) - len(plan.replaces) - MAX_INC - 1
        ranked = sorted(plan.adds, key=lambda cp: (-cp[0].score, cp[0].order))
        if len(ranked) > room:
            plan.adds = ranked[: max(room, 0)]
            plan.fresh = sorted(
                [*plan.fresh, *(c for c, _ in ranked[max(room, 0) :])], key=lambda c: c.order
            )
        new_op = self.new_topic_op(terms_of(topic_text))
        incs = plan.touched[:MAX_INC]
        room = MAX_OPS_PER_TURN - len(plan.deletes) - len(plan.replaces) - len(incs) - bool(new_op)
        adds = sorted(plan.adds, key=lambda cp: (-cp[0].score, cp[0].order))[: max(room, 0)]
        adds.sort(key=lambda cp: cp[0].order)
        ops: list[dict[str, Any]] = [{"op": "delete_sat", "sat": s} for s in plan.deletes]
        ops += [{"op": "replace_sat", "sat": s, "text": t} for s, t in plan.replaces]
        ops += [{"op": "add_sat", "planet": p.id, "text": c.text} for c, p in adds]
        ops += [{"op": "inc_mass", "planet": p.id} for p in incs]
        return ops + ([new_op] if new_op else [])


def _keep_valid(cmap: CorrelationMap, ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Belt and braces: drop any op the engine would reject on this map (none, normally)."""
    for _ in range(3):
        report = apply_ops(map_from_dict(cmap.to_dict()), ops, now="1970-01-01T00:00:00Z")
        if not report.rejected:
            return ops
        bad = {o.index for o in report.rejected}
        ops = [op for i, op in enumerate(ops, start=1) if i not in bad]
    return []


def extract_ops(cmap: CorrelationMap, exchange: Exchange) -> dict[str, Any]:
    """Ops for one exchange on this map: `{"ops": [...]}`, at most 10, deterministic."""
    ops = _Extractor(cmap, exchange).ops()
    return {"ops": _keep_valid(cmap, ops[:MAX_OPS_PER_TURN])}
