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
    capture_place,
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
from cms.observations.store import ObservationStore


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


def supersede_observation(
    store: ObservationStore,
    old_id: int,
    new: NewObservation,
    *,
    cwd: str | Path | None,
    session: str | None,
    agent: str | None,
    now: float | None = None,
) -> CaptureOutcome:
    """Store `new` (captured on cwd's branch, deduplicated like any capture) and mark the live
    observation old_id as superseded by it. Refused when old_id belongs to another branch."""
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
        outcome = store_candidate(
            conn, store.project, cleaned, place, session=session, agent=agent, now=stamp
        )
        if outcome.id == old_id:
            raise RevisionError(
                f"the new observation says the same as O{old_id}; change fields with an update"
            )
        conn.execute("UPDATE observations SET superseded_by = ? WHERE id = ?", (outcome.id, old_id))
        pass_on_overrides(conn, outcome.id, [old_id])
        return outcome

    return store.write(run)
