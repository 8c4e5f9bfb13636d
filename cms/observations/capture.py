"""Capture: turning candidate observations into stored ones, and a chat map's facts into candidates.

Owns the capture rules: redaction before anything is stored, the git branch and commit of the
capture, deduplication against the store (same kind and title on the same branch supersedes;
a near-identical body is skipped or revives an archived twin) and the local provider's
promotion of map facts with a kind guessed from their wording. Runs off the fast path (it may
run git); knows nothing of hooks, the CLI or providers.
"""

from __future__ import annotations

import difflib
import math
import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cms.errors import StoreError
from cms.observations.recall import query_terms
from cms.observations.scope import DEFAULT_NAMES, commit_is_shared, read_git_state
from cms.observations.store import (
    NewObservation,
    ObservationStore,
    clean_new,
    insert_observation,
    title_key,
)
from cms.transcripts.redact import redact_text

if TYPE_CHECKING:
    from cms.map.model import CorrelationMap

NEAR_IDENTICAL = 0.9  # difflib ratio of normalised bodies from which two bodies are one


@dataclass(frozen=True)
class CapturePlace:
    """Where a capture happens: the branch and commit recorded with each observation."""

    branch: str | None  # None outside git or on a detached HEAD
    commit: str | None
    shared_commit: bool
    default_branches: frozenset[str]


@dataclass(frozen=True)
class CaptureOutcome:
    id: int
    status: str  # "new", "superseded" (new, replacing older ones) or "duplicate" (kept the old)


def capture_place(cwd: str | Path | None) -> CapturePlace:
    """Branch, commit and whether that commit is shared with another branch (runs git once)."""
    state = read_git_state(cwd) if cwd is not None else None
    if state is None:
        return CapturePlace(None, None, False, frozenset(DEFAULT_NAMES))
    shared = False
    if state.branch is not None and state.branch not in state.default_branches:
        shared = commit_is_shared(state)
    return CapturePlace(state.branch, state.head, shared, state.default_branches)


def redact_new(new: NewObservation) -> NewObservation:
    return NewObservation(
        kind=new.kind,
        title=redact_text(new.title),
        body=redact_text(new.body),
        files=tuple(redact_text(f) for f in new.files),
        importance=new.importance,
    )


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold()).strip()


def _near(a: str, b: str) -> bool:
    a, b = _normal(a), _normal(b)
    if a == b:
        return True
    if not a or not b:
        return False
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= NEAR_IDENTICAL


def _near_twin(
    conn: sqlite3.Connection, new: NewObservation, place: CapturePlace
) -> tuple[int, float | None] | None:
    """(id, archived_at) of a stored observation with a near-identical body that is visible from
    the capture branch (same branch, a default branch or no git), if any."""
    terms = query_terms(new.body)[:16]
    if not terms:
        return None
    expr = " OR ".join(f'"{t}"' for t in terms)
    rows = conn.execute(
        "SELECT o.id, o.body, o.branch, o.archived_at FROM observations o JOIN "
        "(SELECT rowid AS id, bm25(observations_fts) AS rank FROM observations_fts "
        "WHERE observations_fts MATCH ? ORDER BY rank LIMIT 8) hits ON hits.id = o.id "
        "WHERE o.superseded_by IS NULL ORDER BY hits.rank",
        (expr,),
    ).fetchall()
    for obs_id, body, branch, archived_at in rows:
        same_place = branch is None or branch == place.branch or branch in place.default_branches
        if same_place and _near(body, new.body):
            return obs_id, archived_at
    return None


def store_candidate(
    conn: sqlite3.Connection,
    project: str,
    new: NewObservation,
    place: CapturePlace,
    *,
    session: str | None,
    agent: str | None,
    now: float,
    created_at: float | None = None,
    updated_at: float | None = None,
    archived_at: float | None = None,
) -> CaptureOutcome:
    """Store one cleaned, redacted candidate inside the caller's write transaction.

    created_at, updated_at and archived_at default to a fresh capture (imports pass theirs).
    """
    same = conn.execute(
        "SELECT id, body, importance, archived_at FROM observations WHERE kind = ? "
        "AND title_key = ? AND branch IS ? AND superseded_by IS NULL ORDER BY updated_at DESC",
        (new.kind, title_key(new.title), place.branch),
    ).fetchall()
    twin = next(((i, a) for i, body, _imp, a in same if _near(body, new.body)), None)
    if twin is None and new.body.strip():
        twin = _near_twin(conn, new, place)
    if twin is not None:
        twin_id, twin_archived = twin
        conn.execute(
            "UPDATE observations SET importance = MAX(importance, ?) WHERE id = ?",
            (new.importance, twin_id),
        )
        if twin_archived is not None and archived_at is None:  # said again: back into recall
            conn.execute(
                "UPDATE observations SET archived_at = NULL, updated_at = ? WHERE id = ?",
                (now, twin_id),
            )
        return CaptureOutcome(twin_id, "duplicate")
    new_id = insert_observation(
        conn,
        project,
        new,
        branch=place.branch,
        commit=place.commit,
        shared_commit=place.shared_commit,
        session=session,
        agent=agent,
        created_at=now if created_at is None else created_at,
        updated_at=updated_at,
        archived_at=archived_at,
    )
    if same:
        marks = ",".join("?" * len(same))
        conn.execute(
            f"UPDATE observations SET superseded_by = ? WHERE id IN ({marks})",
            (new_id, *(row[0] for row in same)),
        )
        return CaptureOutcome(new_id, "superseded")
    return CaptureOutcome(new_id, "new")


def capture_with_outcomes(
    store: ObservationStore,
    candidates: Sequence[NewObservation],
    *,
    session: str | None,
    agent: str | None,
    cwd: str | Path | None,
    now: float | None = None,
) -> list[CaptureOutcome]:
    """Redact, clean and store candidates in one transaction; one outcome per stored candidate
    (candidates without a title are dropped)."""
    place = capture_place(cwd)
    stamp = time.time() if now is None else now
    cleaned = []
    for candidate in candidates:
        try:
            cleaned.append(clean_new(redact_new(candidate)))
        except StoreError:
            continue
    if not cleaned:
        return []

    def run(conn: sqlite3.Connection) -> list[CaptureOutcome]:
        return [
            store_candidate(conn, store.project, c, place, session=session, agent=agent, now=stamp)
            for c in cleaned
        ]

    return store.write(run)


def capture_observations(
    store: ObservationStore,
    candidates: list[NewObservation],
    *,
    session: str | None,
    agent: str | None,
    cwd: str | Path | None,
) -> list[int]:
    """Store candidates (redacted, deduplicated, with branch and commit); the ids of those that
    were stored as new observations (duplicates of stored ones are left out)."""
    outcomes = capture_with_outcomes(store, candidates, session=session, agent=agent, cwd=cwd)
    return [o.id for o in outcomes if o.status != "duplicate"]


# -- promotion of a chat map's facts (local provider) -------------------------------------

_FILE = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}|[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|"
    r"json|jsonl|toml|yaml|yml|md|rs|go|java|kt|rb|sh|sql|css|scss|html|c|h|cc|cpp|hpp|lock|"
    r"cfg|ini|txt|env))(?![\w/])"
)
_KIND_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "decision",
        re.compile(
            r"\b(decid(e|ed|es|ing)|decision|chose|chosen|choose|opted|went with|going with|"
            r"settled on|switch(ed)? (to|from)|agreed|in favou?r of)\b|\buse\b.*\binstead\b",
            re.IGNORECASE,
        ),
    ),
    (
        "bugfix",
        re.compile(
            r"\b(fix(ed|es|ing)?|bug(s|fix)?|errors?|exceptions?|traceback|crash(es|ed)?|broken|"
            r"regression|root cause|workaround)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "command",
        re.compile(
            r"(^|\s)\$ \S|\brun(s|ning)?\s+`[^`]+`|`(git|npm|pnpm|npx|yarn|pip|uv|python3?|pytest|"
            r"make|cargo|go|docker|kubectl|node|ruff|mypy|cms|bash|sh)\b[^`]*`",
            re.IGNORECASE,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(prefers?|preferred|preference|always|never|(user|they) wants?|avoid)\b",
            re.IGNORECASE,
        ),
    ),
    ("file_summary", _FILE),
    (
        "learning",
        re.compile(
            r"\b(learn(ed|t|ing)?|turns? out|turned out|notes?|noted|noticed|discovered|"
            r"realis(ed|ed)|realized|TIL|found that|apparently)\b",
            re.IGNORECASE,
        ),
    ),
)


def guess_kind(text: str) -> str:
    """The observation kind a fact's wording suggests (first matching rule wins), else other."""
    for kind, pattern in _KIND_RULES:
        if pattern.search(text):
            return kind
    return "other"


def files_in(text: str) -> list[str]:
    """File paths named in a text, in order, without repeats."""
    return list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text)))


def importance_from_mass(mass: int, archived: bool = False) -> int:
    """2 for a planet touched once, +1 per doubling of its mass, -1 once archived; 1..5."""
    value = 2 + int(math.log2(max(1, mass))) - (1 if archived else 0)
    return max(1, min(5, value))


def observations_from_map(cmap: CorrelationMap) -> list[NewObservation]:
    """Candidates promoted from a chat map: one per planet and guessed kind, titled
    "Sun: Planet", its facts as body lines, importance from the planet's mass."""
    planets = [(sun.title, planet, False) for sun in cmap.suns for planet in sun.planets]
    planets += [(planet.sun_title or "", planet, True) for planet in cmap.archive]
    result: list[NewObservation] = []
    for sun_title, planet, archived in planets:
        groups: dict[str, list[str]] = {}
        for sat in planet.satellites:
            groups.setdefault(guess_kind(sat.text), []).append(sat.text.strip())
        title = f"{sun_title}: {planet.title}" if sun_title else planet.title
        for kind, facts in groups.items():
            files = [f for fact in facts for f in files_in(fact)]
            result.append(
                NewObservation(
                    kind=kind,
                    title=title,
                    body="\n".join(f"- {fact}" for fact in facts),
                    files=tuple(dict.fromkeys(files)),
                    importance=importance_from_mass(planet.mass, archived),
                )
            )
    return result
