"""Capture: turning candidate observations into stored ones, and a chat map's facts into candidates.

Owns the capture rules: redaction before anything is stored, the git branch and commit of the
capture, deduplication against the store (same kind and title on the same branch supersedes,
on another branch overrides for this one; a near-identical body is skipped or revives an
archived twin) and the local provider's promotion of map facts (their kind and importance
from their wording: cms.language.factkinds). Runs off the fast path (it may run git); knows nothing of hooks, the CLI or providers.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cms.errors import StoreError
from cms.language.factkinds import files_in, importance_of_fact, is_memory, kind_of_fact
from cms.language.kinds import STANDING_KINDS
from cms.language.subject import (
    CHANGED,
    SAME,
    frame_of,
    names_apart,
    relation,
    values_of,
)
from cms.observations.filestate import current_marks, record_marks
from cms.observations.ids import fact_source
from cms.observations.matching import or_expression, query_terms
from cms.observations.model import NewObservation, clean_new, title_key
from cms.observations.overrides import pass_on_overrides, record_overrides
from cms.observations.recall import outranks
from cms.observations.scope import DEFAULT_NAMES, commit_is_shared, read_git_state, scope_from_state
from cms.observations.store import ObservationStore, insert_observation
from cms.project import identify_project
from cms.transcripts.redact import redact_text

if TYPE_CHECKING:
    from cms.map.model import CorrelationMap
    from cms.observations.scope import BranchScope

NEAR_IDENTICAL = 0.9  # difflib ratio of normalised bodies from which two bodies are one


@dataclass(frozen=True)
class CapturePlace:
    """Where a capture happens: the branch and commit recorded with each observation."""

    branch: str | None  # None outside git or on a detached HEAD
    commit: str | None
    shared_commit: bool
    default_branches: frozenset[str]
    scope: BranchScope | None = None  # what is visible there (else: no branch, its own, default)
    root: str | None = None  # the work tree, where the files an observation names are read

    def sees(self, branch: str | None, commit: str | None, shared: bool) -> bool:
        """Whether an observation of that branch is visible where this capture happens."""
        if branch is None or branch in (self.branch, *self.default_branches):
            return True
        return self.scope is not None and self.scope.is_visible(branch, commit, shared)


@dataclass(frozen=True)
class CaptureOutcome:
    id: int
    status: str  # "new", "superseded" (new, replacing older ones) or "duplicate" (kept the old)


def capture_place(cwd: str | Path | None) -> CapturePlace:
    """Branch, commit and whether that commit is shared with another branch (runs git once)."""
    state = read_git_state(cwd) if cwd is not None else None
    root = identify_project(cwd).root if cwd is not None else None
    if state is None:
        return CapturePlace(None, None, False, frozenset(DEFAULT_NAMES), root=root)
    shared = False
    if state.branch is not None and state.branch not in state.default_branches:
        shared = commit_is_shared(state)
    return CapturePlace(
        state.branch, state.head, shared, state.default_branches, scope_from_state(state), root
    )


def redact_new(new: NewObservation) -> NewObservation:
    return NewObservation(
        kind=new.kind,
        title=redact_text(new.title),
        body=redact_text(new.body),
        files=tuple(redact_text(f) for f in new.files),
        importance=new.importance,
        source=new.source,
        turn=new.turn,
        context=redact_text(new.context),
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


def _numbered_apart(a: str, b: str) -> bool:
    """Titles that say the same words but name other values ("note 17", "note 18")."""
    return frame_of(a) == frame_of(b) and values_of(a) != values_of(b)


def _relation(new: NewObservation, body: str, title: str) -> str | None:
    """How the candidate relates to a stored observation: SAME (a restatement: the same subject
    and the same values), CHANGED (the same subject, another value) or None. Bodies are what is
    compared; near-identical wording counts as the same subject, and a correction is never
    folded as a near-duplicate. Titles given by hand that differ only by a value ("note 17",
    "note 18") name two items; a fact's title is only its topic."""
    newer, older = new.body.strip(), body.strip()
    same_title = title_key(title) == title_key(new.title)
    if not newer or not older:
        return (SAME if newer == older else CHANGED) if same_title else None
    if not same_title and new.source is None and _numbered_apart(new.title, title):
        return None
    if names_apart(newer, older):
        return None  # "the db1 replica" and "the db2 replica": two things, however alike
    found = relation(newer, older, by_rule=new.kind in STANDING_KINDS)
    if found is None and _near(newer, older):
        found = SAME if values_of(newer) <= values_of(older) else CHANGED
    return found


def mark_files(
    conn: sqlite3.Connection, observation: int, new: NewObservation, place: CapturePlace
) -> None:
    """Record the state of the files a new observation names, as they are in the work tree."""
    if new.files and place.root:
        record_marks(conn, observation, current_marks(place.root, new.files))


_ROW = 'id, kind, title, body, branch, archived_at, source, "commit", shared_commit'


def _related_rows(
    conn: sqlite3.Connection, new: NewObservation, place: CapturePlace
) -> list[tuple[Any, ...]]:
    """Live observations that may describe the candidate's subject: the same source fact, the
    same kind and title (on any branch), then the best FTS hits."""
    rows: list[tuple[Any, ...]] = []
    if new.source:
        rows += conn.execute(
            f"SELECT {_ROW} FROM observations WHERE source = ? AND superseded_by IS NULL",
            (new.source,),
        ).fetchall()
    else:
        rows += conn.execute(
            f"SELECT {_ROW} FROM observations WHERE kind = ? AND title_key = ? "
            "AND superseded_by IS NULL AND source IS NULL ORDER BY updated_at DESC",
            (new.kind, title_key(new.title)),
        ).fetchall()
    terms = query_terms(f"{new.title} {new.body}")[:16]
    if terms:
        expr = f"{{title body files}} : ({or_expression(terms)})"  # its own words, not context
        rows += conn.execute(
            f"SELECT {', '.join('o.' + c.strip() for c in _ROW.split(','))} FROM observations o "
            "JOIN (SELECT rowid AS id, bm25(observations_fts, 1, 1, 1, 0) AS rank "
            "FROM observations_fts "
            "WHERE observations_fts MATCH ? ORDER BY rank LIMIT 12) hits ON hits.id = o.id "
            "WHERE o.superseded_by IS NULL ORDER BY hits.rank",
            (expr,),
        ).fetchall()
    unique: dict[int, tuple[Any, ...]] = {}
    for row in rows:
        unique.setdefault(row[0], row)
    return list(unique.values())


def _retired_copy(conn: sqlite3.Connection, new: NewObservation) -> int | None:
    """The observation already made of the candidate's source fact with the same text and since
    taken out of force (superseded, retired by an edit): the same item, never a new copy."""
    if not new.source:
        return None
    for obs_id, body in conn.execute(
        "SELECT id, body FROM observations WHERE source = ? AND superseded_by IS NOT NULL",
        (new.source,),
    ):
        if _normal(body) == _normal(new.body):
            return int(obs_id)
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

    A restatement of a visible observation (same subject, same values) is folded into it (its
    importance raised, its time refreshed: confirmed again). A changed value of the same subject,
    on the same branch, is stored and supersedes the older one; so does a new text for the same
    source fact, or for the same kind and title given by hand. On another branch visible here
    (the default one, a merged or deleted one) it overrides the older one where the new one is
    visible (overrides.py). created_at, updated_at and archived_at default to a fresh capture.
    """
    retired = _retired_copy(conn, new)
    if retired is not None:  # captured again (SessionEnd, a replay): still out of force
        return CaptureOutcome(retired, "duplicate")
    superseded: list[int] = []
    overridden: list[int] = []  # another branch's, changed here: for this branch only
    for row in _related_rows(conn, new, place):
        obs_id, kind, title, body, branch, _archived, source, commit, shared = row
        same_title = new.source is None and source is None and kind == new.kind
        same_title = same_title and title_key(title) == title_key(new.title)  # on any branch
        same_identity = (new.source is not None and source == new.source) or (
            same_title and branch == place.branch
        )
        found = _relation(new, body, title)
        if found is None and (same_identity or same_title):  # one subject, on any branch
            found = CHANGED
        if found is None:
            continue
        if found == CHANGED and not same_identity and outranks(kind, new.kind):
            continue  # a learning (the agent's narration) never replaces a rule or decision
        visible = branch is None or branch == place.branch or branch in place.default_branches
        if found == SAME and visible:
            conn.execute(
                "UPDATE observations SET importance = MAX(importance, ?) WHERE id = ?",
                (new.importance, obs_id),
            )
            if new.context:  # the words around it now (a subtopic's facts grow)
                conn.execute(
                    "UPDATE observations SET context = ? WHERE id = ? AND context != ?",
                    (new.context, obs_id, new.context),
                )
            if archived_at is None:  # said again: confirmed now, and back into recall
                conn.execute(
                    "UPDATE observations SET archived_at = NULL, updated_at = MAX(updated_at, ?) "
                    "WHERE id = ?",
                    (now, obs_id),
                )
            return CaptureOutcome(obs_id, "duplicate")
        if branch == place.branch or same_identity:
            superseded.append(obs_id)
        elif found == CHANGED and place.branch is not None and place.sees(branch, commit, shared):
            overridden.append(obs_id)  # visible here (merged, deleted...): for this branch only
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
    record_overrides(conn, new_id, overridden)
    mark_files(conn, new_id, new, place)
    if superseded:
        marks = ",".join("?" * len(superseded))
        conn.execute(
            f"UPDATE observations SET superseded_by = ? WHERE id IN ({marks})",
            (new_id, *superseded),
        )
        pass_on_overrides(conn, new_id, superseded)
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


def observations_from_map(
    cmap: CorrelationMap,
    *,
    kinds: Sequence[str] | None = None,
    fact_ids: Sequence[str] | None = None,
    prompts: Mapping[int, str] | None = None,
    offline: bool = False,
) -> list[NewObservation]:
    """One candidate per fact of a chat map (questions and tasks left out), titled by its topic
    path, the fact verbatim as body, with its provenance (chat, fact id, turn) and, as context,
    the user's prompt of its turn when prompts (by turn) has it: the turn before the answer
    that stated it, which helps find it. kinds and fact_ids narrow the facts promoted. offline
    (the local extractor made the map): see offline_kind."""
    wanted = None if fact_ids is None else set(fact_ids)
    result: list[NewObservation] = []
    for sun_title, planet, archived in cmap.all_planets():
        title = f"{sun_title}: {planet.title}" if sun_title else planet.title
        for sat in planet.satellites:
            if (wanted is not None and sat.id not in wanted) or not is_memory(sat.text):
                continue
            kind = kind_of_fact(sat.text)
            if offline:
                kind = offline_kind(sat.text, kind, (prompts or {}).get(sat.turn, ""))
            if kinds is not None and kind not in kinds:
                continue
            result.append(
                NewObservation(
                    kind=kind,
                    title=title,
                    body=sat.text.strip(),
                    files=tuple(files_in(sat.text)),
                    importance=importance_of_fact(sat.text, kind, planet.mass, archived),
                    source=fact_source(cmap.session_id, sat.id),
                    turn=sat.turn,
                    context=(prompts or {}).get(sat.turn, ""),
                )
            )
    return result


def said_in(text: str, prompt: str) -> bool:
    """The fact is the user's own words: its text (spacing and case aside) is in the prompt."""
    fact = " ".join(text.casefold().split()).rstrip(".!…")
    return bool(fact) and fact in " ".join(prompt.casefold().split())


def offline_kind(text: str, kind: str, prompt: str) -> str:
    """Offline, only the user's own words are rules or decisions: a fact said in its turn's
    prompt keeps its kind; any other fact, the assistant's narration of its work included,
    keeps it unless it is a standing one (preference, decision), which becomes a learning."""
    if prompt and said_in(text, prompt):
        return kind
    return "learning" if kind in STANDING_KINDS else kind
