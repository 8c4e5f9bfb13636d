"""The six diff operations: validation of meaning, application, the per-turn cap and archiving.

Each op is judged alone against the map as it stands after the ops before it: shape by JSON
Schema (cms.map.schema), then meaning in code (one mass change per planet, one change per fact,
each fact text once in the whole map, and no degenerate text: a fact with almost no letters, a
word or a phrase repeated over and over). Every text is redacted first, whoever wrote the op.
Rejected ops carry a reason; accepted ones are applied in order. No file I/O and no logging
here: callers save and log the report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cms.errors import OpsError
from cms.map.model import MAX_FACT, MAX_TITLE, CorrelationMap, Planet, Satellite, Sun, utc_now
from cms.map.schema import answer_shape_error, op_shape_error
from cms.transcripts.redact import redact_obj

MAX_OPS_PER_TURN = 10
DEFAULT_MAX_PLANETS = 50


@dataclass
class OpOutcome:
    index: int  # 1-based position in the answer
    op: Any
    accepted: bool
    reason: str = ""  # why it was rejected
    created: list[str] = field(default_factory=list)  # ids made by an accepted op

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"index": self.index, "op": self.op, "accepted": self.accepted}
        if self.accepted:
            data["created"] = self.created
        else:
            data["reason"] = self.reason
        return data


@dataclass
class ApplyReport:
    outcomes: list[OpOutcome] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)  # planet ids moved to the archive
    proposed_by: str = ""  # who proposed the ops, when the caller says ("local": no model)

    @property
    def accepted(self) -> list[OpOutcome]:
        return [o for o in self.outcomes if o.accepted]

    @property
    def rejected(self) -> list[OpOutcome]:
        return [o for o in self.outcomes if not o.accepted]

    @property
    def changed(self) -> bool:
        return bool(self.accepted or self.archived)

    @property
    def all_rejected(self) -> bool:
        return bool(self.outcomes) and not self.accepted

    def reasons(self) -> list[str]:
        return [f"op {o.index} ({_op_name(o.op)}): {o.reason}" for o in self.rejected]

    def to_dict(self) -> dict[str, Any]:
        return {
            "accepted": [o.to_dict() for o in self.accepted],
            "rejected": [o.to_dict() for o in self.rejected],
            "archived": self.archived,
        }


class _Rejected(Exception):
    """Internal: one op is refused; the message is the reason."""


def _op_name(op: Any) -> str:
    return str(op.get("op", "?")) if isinstance(op, dict) else "?"


def normalise_text(text: str) -> str:
    """The key used to spot duplicates: case- and whitespace-insensitive."""
    return re.sub(r"\s+", " ", text).strip().casefold()


MIN_FACT_CHARS = 3  # letters and digits a fact needs to say anything
REPEATS = 4  # copies in a row of one unit (a word, a phrase) that make a text degenerate
_REPEATED_UNIT = re.compile(r"(\w.{0,39}?)(?:\W*\1){" + str(REPEATS - 1) + ",}", re.IGNORECASE)


def _clean(text: str, limit: int, what: str) -> str:
    cleaned = re.sub(r"\s+", " ", text).strip()
    if not cleaned:
        raise _Rejected(f"{what} is empty")
    if len(cleaned) > limit:
        raise _Rejected(f"{what} is {len(cleaned)} characters, the limit is {limit}")
    repeated = _REPEATED_UNIT.search(cleaned)
    if repeated and any(ch.isalpha() for ch in repeated.group(1)):
        unit = repeated.group(1).strip()
        raise _Rejected(f"degenerate {what}: {unit[:30]!r} repeated {REPEATS} or more times")
    return cleaned


def _clean_fact(text: str) -> str:
    fact = _clean(text, MAX_FACT, "fact text")
    if sum(ch.isalnum() for ch in fact) < MIN_FACT_CHARS:
        raise _Rejected(f"degenerate fact text: {fact!r} is too short to say anything")
    return fact


class _Engine:
    """Applies one answer's ops. Besides the map's own rules it holds the answer's: one mass
    change per planet and one change per fact, and a fact text added only once, wherever."""

    def __init__(self, cmap: CorrelationMap, turn: int, now: str) -> None:
        self.cmap = cmap
        self.turn = turn
        self.now = now
        self.deleted: set[str] = set()  # facts deleted by earlier ops of this batch
        self.index = 0  # the op being judged (1-based)
        self.done: dict[tuple[str, str], int] = {}  # (kind of change, id or fact key) -> op
        self.pending: list[tuple[str, str]] = []  # what the op being judged would add to done
        self.stored: dict[str, str] = {  # every fact of the map by its duplicate key -> its id
            normalise_text(sat.text): sat.id
            for sun in cmap.suns
            for planet in sun.planets
            for sat in planet.satellites
        }

    def claim(self, kind: str, key: str, what: str) -> None:
        """Refuse a second change of this kind to the same thing in one answer."""
        earlier = self.done.get((kind, key))
        if earlier is not None or (kind, key) in self.pending:
            by = f"op {earlier}" if earlier is not None else "this op"
            raise _Rejected(f"{what} already by {by} of this answer (one per answer)")
        self.pending.append((kind, key))

    def begin(self, index: int) -> None:
        self.index, self.pending = index, []

    def commit(self) -> None:
        for claimed in self.pending:
            self.done[claimed] = self.index
        self.pending = []

    # -- lookups that explain themselves ------------------------------------------------
    def sun(self, sun_id: str) -> Sun:
        sun = self.cmap.find_sun(sun_id)
        if sun is None:
            raise _Rejected(f"unknown sun {sun_id}")
        return sun

    def planet(self, planet_id: str) -> Planet:
        found = self.cmap.find_planet(planet_id)
        if found is None:
            state = "archived" if self.cmap.is_archived(planet_id) else "unknown"
            raise _Rejected(f"{state} planet {planet_id}")
        return found[1]

    def satellite(self, sat_id: str) -> tuple[Planet, Satellite]:
        found = self.cmap.find_satellite(sat_id)
        if found is None and sat_id in self.deleted:
            raise _Rejected(f"fact {sat_id} was deleted by an earlier op of this answer")
        if found is None:
            state = "archived" if self.cmap.is_archived(sat_id) else "unknown"
            raise _Rejected(f"{state} fact {sat_id}")
        return found

    def check_stored(self, fact: str, keep: str = "") -> str:
        """The fact's duplicate key; refused when the map holds it already (but in `keep`)."""
        key = normalise_text(fact)
        holder = self.stored.get(key)
        if holder is not None and holder != keep:
            raise _Rejected(f"duplicate fact: {fact[:60]!r} is already stored as {holder}")
        return key

    def check_new_fact(self, texts: list[str], text: str) -> str:
        fact = _clean_fact(text)
        key = self.check_stored(fact)
        if key in texts:
            raise _Rejected(f"duplicate fact: {fact[:60]!r} is already stored there")
        texts.append(key)
        self.claim("fact", key, f"duplicate fact: {fact[:60]!r} was added")
        return fact

    def check_planet_specs(self, sun: Sun | None, specs: list[dict[str, Any]]) -> list[Any]:
        """Validate planets (title + facts) about to be created; return cleaned values."""
        titles = [normalise_text(p.title) for p in sun.planets] if sun else []
        cleaned = []
        for spec in specs:
            title = _clean(spec["title"], MAX_TITLE, "planet title")
            if normalise_text(title) in titles:
                raise _Rejected(f"duplicate planet title {title!r}: use its id instead")
            titles.append(normalise_text(title))
            seen: list[str] = []
            facts = [self.check_new_fact(seen, t) for t in spec.get("sats", [])]
            cleaned.append((title, facts))
        return cleaned

    # -- building -------------------------------------------------------------------------
    def make_planet(self, title: str, facts: list[str]) -> Planet:
        planet = Planet(
            id=self.cmap.allocate_id("P"),
            title=title,
            mass=1,
            created_at=self.now,
            updated_at=self.now,
        )
        for fact in facts:
            planet.satellites.append(self.make_sat(fact))
        return planet

    def make_sat(self, text: str) -> Satellite:
        sat = Satellite(
            id=self.cmap.allocate_id("F"),
            text=text,
            created_at=self.now,
            updated_at=self.now,
            turn=self.turn,
        )
        self.stored[normalise_text(text)] = sat.id
        return sat

    # -- the six ops ------------------------------------------------------------------------
    def add_sun(self, op: dict[str, Any]) -> list[str]:
        title = _clean(op["title"], MAX_TITLE, "sun title")
        if any(normalise_text(s.title) == normalise_text(title) for s in self.cmap.suns):
            raise _Rejected(f"duplicate sun title {title!r}: use add_planet on it instead")
        specs = self.check_planet_specs(None, op.get("planets", []))
        sun = Sun(id=self.cmap.allocate_id("S"), title=title, created_at=self.now)
        for planet_title, facts in specs:
            sun.planets.append(self.make_planet(planet_title, facts))
        self.cmap.suns.append(sun)
        return [sun.id, *_ids_of(sun.planets)]

    def add_planet(self, op: dict[str, Any]) -> list[str]:
        sun = self.sun(op["sun"])
        [(title, facts)] = self.check_planet_specs(sun, [op])
        planet = self.make_planet(title, facts)
        sun.planets.append(planet)
        return _ids_of([planet])

    def add_sat(self, op: dict[str, Any]) -> list[str]:
        planet = self.planet(op["planet"])
        fact = self.check_new_fact([], op["text"])
        sat = self.make_sat(fact)
        planet.satellites.append(sat)
        planet.updated_at = self.now
        return [sat.id]

    def replace_sat(self, op: dict[str, Any]) -> list[str]:
        planet, sat = self.satellite(op["sat"])
        fact = _clean_fact(op["text"])
        if normalise_text(fact) == normalise_text(sat.text):
            raise _Rejected(f"replace_sat {sat.id} does not change the text")
        key = self.check_stored(fact)
        self.claim("sat", sat.id, f"fact {sat.id} was changed")
        self.claim("fact", key, f"duplicate fact: {fact[:60]!r} was added")
        self.stored.pop(normalise_text(sat.text), None)
        self.stored[key] = sat.id
        sat.text = fact
        sat.updated_at = self.now
        sat.turn = self.turn
        planet.updated_at = self.now
        return []

    def delete_sat(self, op: dict[str, Any]) -> list[str]:
        planet, sat = self.satellite(op["sat"])
        self.claim("sat", sat.id, f"fact {sat.id} was changed")
        planet.satellites.remove(sat)
        self.stored.pop(normalise_text(sat.text), None)
        self.deleted.add(sat.id)
        planet.updated_at = self.now
        return []

    def inc_mass(self, op: dict[str, Any]) -> list[str]:
        planet = self.planet(op["planet"])
        self.claim("mass", planet.id, f"the mass of {planet.id} was raised")
        planet.mass += int(op.get("by", 1))
        planet.updated_at = self.now
        return []


def _ids_of(planets: list[Planet]) -> list[str]:
    return [i for p in planets for i in (p.id, *(s.id for s in p.satellites))]


def read_answer(answer: Any) -> list[Any]:
    """The op list of an update answer; raise OpsError when it is not `{"ops": [...]}`."""
    error = answer_shape_error(answer)
    if error is not None:
        raise OpsError(f"the answer is not {{'ops': [...]}}: {error}")
    ops: list[Any] = answer["ops"]
    return ops


def archive_planets(cmap: CorrelationMap, max_planets: int, now: str) -> list[str]:
    """Move the lowest-mass, oldest planets past max_planets to the archive; return their ids."""
    live = [(sun, planet) for sun in cmap.suns for planet in sun.planets]
    excess = len(live) - max_planets
    if excess <= 0:
        return []
    live.sort(key=lambda sp: (sp[1].mass, sp[1].created_at, int(sp[1].id[1:])))
    moved = []
    for sun, planet in live[:excess]:
        sun.planets.remove(planet)
        planet.archived_at = now
        planet.sun_id = sun.id
        planet.sun_title = sun.title
        cmap.archive.append(planet)
        moved.append(planet.id)
    return moved


def apply_ops(
    cmap: CorrelationMap,
    ops: list[Any],
    *,
    turn: int = 0,
    now: str | None = None,
    max_planets: int = DEFAULT_MAX_PLANETS,
    max_ops: int = MAX_OPS_PER_TURN,
) -> ApplyReport:
    """Validate and apply ops in order on cmap (changed in place); return what happened."""
    stamp = now or utc_now()
    engine = _Engine(cmap, turn, stamp)
    report = ApplyReport()
    for index, raw in enumerate(ops, start=1):
        # a model's or a user's text reaches neither the map nor the report
        op: Any = redact_obj(raw)
        outcome = OpOutcome(index=index, op=op, accepted=False)
        report.outcomes.append(outcome)
        error = op_shape_error(op)
        if error is not None:
            outcome.reason = error
            continue
        if len(report.accepted) >= max_ops:
            outcome.reason = f"over the limit of {max_ops} accepted ops per turn"
            continue
        engine.begin(index)
        try:  # every op checks everything before it changes anything: all or nothing
            outcome.created = getattr(engine, op["op"])(op)
        except _Rejected as exc:
            outcome.reason = str(exc)
            continue
        engine.commit()
        outcome.accepted = True
    report.archived = archive_planets(cmap, max_planets, stamp)
    if report.changed:
        cmap.updated_at = stamp
    return report


def apply_answer(cmap: CorrelationMap, answer: Any, **kwargs: Any) -> ApplyReport:
    """apply_ops on a whole model answer; raise OpsError when its envelope is wrong."""
    return apply_ops(cmap, read_answer(answer), **kwargs)
