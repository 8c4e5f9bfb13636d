"""Upkeep of a project's observations (`cms gc`): stale low-importance ones archived, and
near-duplicates of one subject folded into the newest (the older kept as its history).

Owns the plan and its application; nothing is ever deleted here. Uses the subject rules of
capture (cms.language.subject); knows nothing of the CLI or providers.
"""

from __future__ import annotations

from cms.language.subject import SAME, is_poorer, relation
from cms.observations.matching import or_expression, query_terms
from cms.observations.model import COLUMNS, Observation, row_to_observation
from cms.observations.overrides import pass_on_overrides
from cms.observations.store import ObservationStore
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

RELATED = 12  # FTS hits judged per observation, as capture does
_STALE = (
    "archived_at IS NULL AND superseded_by IS NULL AND importance <= ? "
    "AND MAX(COALESCE(last_recalled_at, 0), updated_at) < ?"
)


class Fold(Record):
    """An older observation that a newer one of the same subject replaces."""

    older: Observation
    newer: Observation
    same: bool  # a restatement (else a changed value)

    def describe(self) -> str:
        how = "restates" if self.same else "changes"
        return f"O{self.older.id} {self.older.title!r} -> O{self.newer.id} {self.newer.title!r} ({how} it)"


def stale_observations(
    store: ObservationStore, *, now: float, stale_after_days: int, max_importance: int
) -> list[Observation]:
    """Live observations of importance <= max_importance not recalled (nor updated) for
    stale_after_days."""
    cutoff = now - stale_after_days * 86400.0
    rows = store.read(
        lambda c: c.execute(
            f"SELECT {COLUMNS} FROM observations WHERE {_STALE} ORDER BY id",
            (max_importance, cutoff),
        ).fetchall()
    )
    return [row_to_observation(r) for r in rows]


def archive_stale(
    store: ObservationStore, *, now: float, stale_after_days: int, max_importance: int
) -> int:
    """Archive the stale observations (stale_observations); returns how many."""
    stale = stale_observations(
        store, now=now, stale_after_days=stale_after_days, max_importance=max_importance
    )
    return archive_observations(store, [o.id for o in stale], now)


def archive_observations(store: ObservationStore, ids: list[int], now: float) -> int:
    """Archive these observations (out of recall, kept in the store); returns how many."""
    marks = ",".join("?" * len(ids))
    return store.write(
        lambda c: c.execute(
            f"UPDATE observations SET archived_at = ? WHERE id IN ({marks}) "
            "AND archived_at IS NULL",
            (now, *ids),
        ).rowcount
    ) if ids else 0  # fmt: skip


def _live(conn: sqlite3.Connection) -> list[Observation]:
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM observations WHERE superseded_by IS NULL "
        "AND archived_at IS NULL AND source IS NULL ORDER BY created_at, id"
    ).fetchall()
    return [row_to_observation(r) for r in rows]


def _related_ids(conn: sqlite3.Connection, obs: Observation) -> list[int]:
    expr = or_expression(query_terms(f"{obs.title} {obs.body}")[:16])
    if expr is None:
        return []
    rows = conn.execute(
        "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? "
        "ORDER BY bm25(observations_fts, 1, 1, 1, 0) LIMIT ?",
        (f"{{title body files}} : ({expr})", RELATED),
    )
    return [int(r[0]) for r in rows]


def fold_plan(store: ObservationStore) -> list[Fold]:
    """Pairs of live observations (without a source fact: those follow their fact) of one kind
    and branch where the newer restates or changes the older, by the subject rules capture
    uses; each older one folds into its newest such observation once."""

    def plan(conn: sqlite3.Connection) -> list[Fold]:
        live = {o.id: o for o in _live(conn)}
        folds: dict[int, Fold] = {}
        for newer in sorted(live.values(), key=lambda o: (o.created_at, o.id), reverse=True):
            if newer.id in folds or not newer.body.strip():
                continue  # already folding into a newer one
            for old_id in _related_ids(conn, newer):
                older = live.get(old_id)
                if older is None or older.id in folds:
                    continue
                found = observation_retires(newer, older)
                if found is not None:
                    folds[older.id] = Fold(older, newer, found == SAME)
        return sorted(folds.values(), key=lambda f: f.older.id)

    return store.read(plan)


def observation_retires(new: Observation, old: Observation) -> str | None:
    """SAME or CHANGED when new, said later, restates or changes old by the subject rules of
    capture: one kind and branch, neither promoted from a chat fact (those follow their fact),
    both with a body; None otherwise (a poorer restatement retires nothing)."""
    if (old.created_at, old.id) >= (new.created_at, new.id):
        return None
    if old.kind != new.kind or old.branch != new.branch or old.source or new.source:
        return None
    if not (old.body.strip() and new.body.strip()):
        return None
    found = relation(new.body, old.body)
    if found is None or (found == SAME and is_poorer(new.body, old.body)):
        return None
    return found


def apply_folds(store: ObservationStore, folds: list[Fold]) -> int:
    """Mark each fold's older observation superseded by its newer one (still live when this
    runs); a restatement passes its higher importance on. Returns how many were folded."""

    def run(conn: sqlite3.Connection) -> int:
        count = 0
        for fold in folds:
            folded = conn.execute(
                "UPDATE observations SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL",
                (fold.newer.id, fold.older.id),
            ).rowcount
            if folded:
                pass_on_overrides(conn, fold.newer.id, [fold.older.id])
            count += folded
            if fold.same:
                conn.execute(
                    "UPDATE observations SET importance = MAX(importance, ?) WHERE id = ?",
                    (fold.older.importance, fold.newer.id),
                )
        return count

    return store.write(run) if folds else 0
