"""Revising stored observations by hand: change an observation's fields, or replace it.

Owns the rules of an explicit revision: only a live observation (not superseded) can be revised,
new text is redacted and cleaned like a capture, an edit brings an archived observation back into
recall, and a branch only supersedes its own observations (DESIGN.md section 5). Each revision is
one write transaction. Knows nothing of the CLI, hooks or MCP.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from cms import jsonio
from cms.errors import StoreError
from cms.observations.capture import (
    CaptureOutcome,
    CapturePlace,
    capture_place,
    mark_files,
    redact_new,
    store_candidate,
)
from cms.observations.model import (
    COLUMNS,
    NewObservation,
    Observation,
    clean_new,
    row_to_observation,
    title_key,
)
from cms.observations.overrides import pass_on_overrides
from cms.observations.store import ObservationStore, insert_observation


class RevisionError(StoreError):
    """A revision names an observation that cannot be revised (unknown, superseded, foreign)."""


def _live(conn: sqlite3.Connection, observation_id: int) -> Observation:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM observations WHERE id = ?", (observation_id,)
    ).fetchone()
    if row is None:
        raise RevisionError(f"no observation O{observation_id} in this project")
    obs = row_to_observation(row)
    if obs.superseded_by is not None:
        raise RevisionError(
            f"observation O{observation_id} was already superseded by O{obs.superseded_by}; "
            f"revise O{obs.superseded_by} instead"
        )
    return obs


def update_observation(
    store: ObservationStore,
    observation_id: int,
    *,
    kind: str | None = None,
    title: str | None = None,
    body: str | None = None,
    files: Sequence[str] | None = None,
    importance: int | None = None,
    now: float | None = None,
) -> Observation:
    """Change the given fields of a live observation in place (branch and commit stay) and
    return it as stored; the texts are redacted and cleaned as at capture."""
    stamp = time.time() if now is None else now

    def run(conn: sqlite3.Connection) -> Observation:
        old = _live(conn, observation_id)
        merged = NewObservation(
            kind=old.kind if kind is None else kind,
            title=old.title if title is None else title,
            body=old.body if body is None else body,
            files=old.files if files is None else tuple(files),
            importance=old.importance if importance is None else importance,
        )
        new = clean_new(redact_new(merged))
        conn.execute(
            "UPDATE observations SET kind = ?, title = ?, title_key = ?, body = ?, files = ?, "
            "importance = ?, updated_at = ?, archived_at = NULL WHERE id = ?",
            (
                new.kind,
                new.title,
                title_key(new.title),
                new.body,
                jsonio.dumps(list(new.files), ensure_ascii=False),
                new.importance,
                stamp,
                observation_id,
            ),
        )
        return old.replace(
            kind=new.kind,
            title=new.title,
            body=new.body,
            files=new.files,
            importance=new.importance,
            updated_at=stamp,
            archived_at=None,
        )

    return store.write(run)


CORRECTED = "corrected by the user"


def correct_observation(
    store: ObservationStore,
    old_id: int,
    *,
    title: str | None,
    body: str | None,
    cwd: str | Path | None,
    now: float | None = None,
) -> CaptureOutcome:
    """A corrected version of a live observation: its kind, files and importance with the new
    title and/or body, stored as a new version that supersedes the old (kept as history, reason
    "corrected by the user"). Refused when nothing changes."""
    old = store.get(old_id)
    if old is None:
        raise RevisionError(f"no observation O{old_id} in this project")
    new = NewObservation(
        kind=old.kind,
        title=old.title if title is None else title,
        body=old.body if body is None else body,
        files=old.files,
        importance=old.importance,
    )
    if (new.title.strip(), new.body.strip()) == (old.title.strip(), old.body.strip()):
        raise RevisionError(f"the correction of O{old_id} changes nothing")
    return supersede_observation(
        store,
        old_id,
        new,
        cwd=cwd,
        session=None,
        agent="user",
        now=now,
        reason=CORRECTED,
        fold=False,
    )


def _insert_version(
    conn: sqlite3.Connection, project: str, new: NewObservation, place: CapturePlace, now: float
) -> CaptureOutcome:
    """The user's correction stored as it is: never folded into the item it corrects."""
    new_id = insert_observation(
        conn,
        project,
        new,
        branch=place.branch,
        commit=place.commit,
        shared_commit=place.shared_commit,
        agent="user",
        created_at=now,
    )
    mark_files(conn, new_id, new, place)
    return CaptureOutcome(new_id, "superseded")


def supersede_observation(
    store: ObservationStore,
    old_id: int,
    new: NewObservation,
    *,
    cwd: str | Path | None,
    session: str | None,
    agent: str | None,
    now: float | None = None,
    reason: str | None = None,
    fold: bool = True,
) -> CaptureOutcome:
    """Store `new` (captured on cwd's branch, deduplicated like any capture) and mark the live
    observation old_id as superseded by it, with `reason` when given ("corrected by the user").
    With fold False `new` is stored as given (a user's correction), never folded into a stored
    one. Refused when old_id belongs to another branch."""
    place = capture_place(cwd)
    stamp = time.time() if now is None else now
    cleaned = clean_new(redact_new(new))

    def run(conn: sqlite3.Connection) -> CaptureOutcome:
        old = _live(conn, old_id)
        if old.branch is not None and place.branch is not None and old.branch != place.branch:
            raise RevisionError(
                f"observation O{old_id} belongs to branch {old.branch!r} and this is "
                f"{place.branch!r}; a branch only supersedes its own observations"
            )
        if not fold:
            outcome = _insert_version(conn, store.project, cleaned, place, stamp)
        else:
            outcome = store_candidate(
                conn, store.project, cleaned, place, session=session, agent=agent, now=stamp
            )
        if outcome.id == old_id:
            raise RevisionError(
                f"the new observation says the same as O{old_id}; change fields with an update"
            )
        conn.execute("UPDATE observations SET superseded_by = ? WHERE id = ?", (outcome.id, old_id))
        if reason:
            conn.execute(
                "INSERT OR REPLACE INTO supersede_reasons (older, reason) VALUES (?, ?)",
                (old_id, reason),
            )
        pass_on_overrides(conn, outcome.id, [old_id])
        return outcome

    return store.write(run)
