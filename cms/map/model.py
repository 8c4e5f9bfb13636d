"""The map's data model and its exact JSON form (DESIGN.md section 2, version 1).

Owns the node classes, id allocation and conversion to and from plain dicts, with a structural
check in code (no jsonschema here: loading a map is on the hook fast path). No file I/O.
"""

from __future__ import annotations

import time

from cms.errors import CorruptMapError, MapVersionError
from cms.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAP_VERSION = 1
MAX_TITLE = 80
MAX_FACT = 200


def utc_now() -> str:
    """The current time as ISO 8601 UTC with seconds, e.g. 2026-11-30T05:53:18Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Satellite(Record):
    id: str
    text: str
    created_at: str
    updated_at: str
    turn: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "turn": self.turn,
        }


class Planet(Record):
    id: str
    title: str
    mass: int
    created_at: str
    updated_at: str
    satellites: list[Satellite] = field(default_factory=list)
    archived_at: str | None = None  # set only in the archive
    sun_id: str | None = None  # archive only: the sun it belonged to
    sun_title: str | None = None  # archive only

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "mass": self.mass,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "satellites": [s.to_dict() for s in self.satellites],
        }
        if self.archived_at is not None:
            data["archived_at"] = self.archived_at
            data["sun"] = self.sun_id
            data["sun_title"] = self.sun_title
        return data


class Sun(Record):
    id: str
    title: str
    created_at: str
    planets: list[Planet] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "created_at": self.created_at,
            "planets": [p.to_dict() for p in self.planets],
        }


class CorrelationMap(Record):
    session_id: str
    project: str
    next_id: int
    created_at: str
    updated_at: str
    suns: list[Sun] = field(default_factory=list)
    archive: list[Planet] = field(default_factory=list)
    version: int = MAP_VERSION

    def allocate_id(self, letter: str) -> str:
        """A fresh id (letter + number from next_id); numbers are never reused."""
        new_id = f"{letter}{self.next_id}"
        self.next_id += 1
        return new_id

    def find_sun(self, sun_id: str) -> Sun | None:
        return next((s for s in self.suns if s.id == sun_id), None)

    def find_planet(self, planet_id: str) -> tuple[Sun, Planet] | None:
        for sun in self.suns:
            for planet in sun.planets:
                if planet.id == planet_id:
                    return sun, planet
        return None

    def find_satellite(self, sat_id: str) -> tuple[Planet, Satellite] | None:
        for sun in self.suns:
            for planet in sun.planets:
                for sat in planet.satellites:
                    if sat.id == sat_id:
                        return planet, sat
        return None

    def is_archived(self, node_id: str) -> bool:
        return any(
            p.id == node_id or any(s.id == node_id for s in p.satellites) for p in self.archive
        )

    def planets(self) -> list[Planet]:
        return [p for sun in self.suns for p in sun.planets]

    def all_planets(self) -> list[tuple[str, Planet, bool]]:
        """(sun title, planet, archived) of every planet: the live ones in map order, then the
        archived ones (titled by the sun they left, "" when unknown)."""
        live = [(sun.title, planet, False) for sun in self.suns for planet in sun.planets]
        return live + [(planet.sun_title or "", planet, True) for planet in self.archive]

    def fact_count(self) -> int:
        return sum(len(p.satellites) for p in self.planets())

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "session_id": self.session_id,
            "project": self.project,
            "next_id": self.next_id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "suns": [s.to_dict() for s in self.suns],
            "archive": [p.to_dict() for p in self.archive],
        }


def new_map(session_id: str, project: str, now: str | None = None) -> CorrelationMap:
    stamp = now or utc_now()
    return CorrelationMap(
        session_id=session_id, project=project, next_id=1, created_at=stamp, updated_at=stamp
    )


class _Reader:
    """Typed access to a dict from a file; every failure is one CorruptMapError line."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise CorruptMapError(f"{where} is not an object")
        self.data = data
        self.where = where

    def get(self, key: str, kind: type | tuple[type, ...]) -> Any:
        value = self.data.get(key)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise CorruptMapError(f"{self.where}.{key} is missing or not {_kind_name(kinds)}")
        return value

    def text(self, key: str, limit: int) -> str:
        value: str = self.get(key, str)
        if not value.strip() or len(value) > limit:
            raise CorruptMapError(f"{self.where}.{key} is empty or longer than {limit} characters")
        return value


def _kind_name(kinds: tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in kinds)


def _satellite_from(data: Any, where: str) -> Satellite:
    # Fast path for well-formed facts (a map holds thousands); anything odd takes the checked
    # path below, which names the problem.
    if type(data) is dict and len(data) == 5:
        sat_id, text, created = data.get("id"), data.get("text"), data.get("created_at")
        updated, turn = data.get("updated_at"), data.get("turn")
        if (
            type(sat_id) is str
            and type(text) is str
            and type(created) is str
            and type(updated) is str
            and type(turn) is int
            and 0 < len(text) <= MAX_FACT
            and not text.isspace()
        ):
            return Satellite(sat_id, text, created, updated, turn)
    r = _Reader(data, where)
    return Satellite(
        id=r.get("id", str),
        text=r.text("text", MAX_FACT),
        created_at=r.get("created_at", str),
        updated_at=r.get("updated_at", str),
        turn=r.get("turn", int),
    )


def _planet_from(data: Any, where: str, archived: bool) -> Planet:
    r = _Reader(data, where)
    sats = r.get("satellites", list)
    planet = Planet(
        id=r.get("id", str),
        title=r.text("title", MAX_TITLE),
        mass=r.get("mass", int),
        created_at=r.get("created_at", str),
        updated_at=r.get("updated_at", str),
        satellites=[_satellite_from(s, f"{where}.satellites[{i}]") for i, s in enumerate(sats)],
    )
    if planet.mass < 1:
        raise CorruptMapError(f"{where}.mass must be at least 1")
    if archived:
        planet.archived_at = r.get("archived_at", str)
        planet.sun_id = r.get("sun", str)
        planet.sun_title = r.get("sun_title", str)
    return planet


def map_from_dict(data: Any) -> CorrelationMap:
    """Build a map from its JSON form; raise MapVersionError or CorruptMapError."""
    r = _Reader(data, "map")
    version = r.get("version", int)
    if version > MAP_VERSION:
        raise MapVersionError(
            f"map format version {version} is newer than this cms understands ({MAP_VERSION})"
        )
    if version < 1:
        raise CorruptMapError(f"map.version {version} is not a known format version")
    suns = []
    for i, raw in enumerate(r.get("suns", list)):
        sr = _Reader(raw, f"map.suns[{i}]")
        suns.append(
            Sun(
                id=sr.get("id", str),
                title=sr.text("title", MAX_TITLE),
                created_at=sr.get("created_at", str),
                planets=[
                    _planet_from(p, f"map.suns[{i}].planets[{j}]", archived=False)
                    for j, p in enumerate(sr.get("planets", list))
                ],
            )
        )
    cmap = CorrelationMap(
        version=version,
        session_id=r.get("session_id", str),
        project=r.get("project", str),
        next_id=r.get("next_id", int),
        created_at=r.get("created_at", str),
        updated_at=r.get("updated_at", str),
        suns=suns,
        archive=[
            _planet_from(p, f"map.archive[{i}]", archived=True)
            for i, p in enumerate(r.get("archive", list))
        ],
    )
    check_invariants(cmap)
    return cmap


def _id_number(node_id: str, letter: str) -> int:
    if len(node_id) < 2 or node_id[0] != letter or not node_id[1:].isdigit():
        raise CorruptMapError(f"id {node_id!r} is not of the form {letter}<number>")
    return int(node_id[1:])


def check_invariants(cmap: CorrelationMap) -> None:
    """Unique ids of the right letter, all below next_id; raise CorruptMapError otherwise."""
    seen: set[str] = set()

    def claim(node_id: str, letter: str) -> None:
        if _id_number(node_id, letter) >= cmap.next_id:
            raise CorruptMapError(f"id {node_id} is not below next_id {cmap.next_id}")
        if node_id in seen:
            raise CorruptMapError(f"id {node_id} appears twice")
        seen.add(node_id)

    for sun in cmap.suns:
        claim(sun.id, "S")
        for planet in sun.planets:
            claim(planet.id, "P")
            for sat in planet.satellites:
                claim(sat.id, "F")
    for planet in cmap.archive:
        claim(planet.id, "P")
        for sat in planet.satellites:
            claim(sat.id, "F")
