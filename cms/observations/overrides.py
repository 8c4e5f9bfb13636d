"""Branch-scoped supersession: a later observation captured on one branch that changes an older
one of another branch visible there (the default branch's, a merged or deleted branch's) hides
that older one wherever the later one is visible, and nowhere else (DESIGN.md section 5).

Owns the `overrides` rows (older id, newer id): recording them, passing them on when the newer
one is itself superseded, dropping them with forgotten observations, and reading which version
of a subject is in force under a branch scope. Decides no visibility (scope.py) and no ranking
(recall.py); standard library only (on the prompt hook's path).
"""

from __future__ import annotations

from cms.observations.model import COLUMNS, Observation, row_to_observation

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Mapping, Sequence

    from cms.observations.scope import BranchScope
    from cms.observations.store import ObservationStore

    Versions = Mapping[int, Sequence[Observation]]

CHUNK = 500  # ids per IN list (old SQLite builds allow 999 parameters)
CHAIN = 8  # at most this many later versions followed from one observation


def record_overrides(conn: sqlite3.Connection, newer: int, older: Iterable[int]) -> None:
    """Note that newer changes each of older for the branch it was captured on."""
    conn.executemany(
        "INSERT OR IGNORE INTO overrides (older, newer) VALUES (?, ?)",
        [(old, newer) for old in older if old != newer],
    )


def pass_on_overrides(conn: sqlite3.Connection, newer: int, superseded: Sequence[int]) -> None:
    """newer supersedes these observations of its own branch: it now overrides what they did."""
    if not superseded:
        return
    marks = ",".join("?" * len(superseded))
    conn.execute(
        "INSERT OR IGNORE INTO overrides (older, newer) SELECT older, ? FROM overrides "
        f"WHERE newer IN ({marks}) AND older != ?",
        (newer, *superseded, newer),
    )


def drop_overrides(conn: sqlite3.Connection, where: str, args: Sequence[object]) -> None:
    """Forget the overrides of the observations matching a WHERE clause (before they go)."""
    chosen = f"(SELECT id FROM observations WHERE {where})"
    conn.execute(
        f"DELETE FROM overrides WHERE older IN {chosen} OR newer IN {chosen}", (*args, *args)
    )


def _newer_rows(conn: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, Observation]]:
    cols = ", ".join(f"n.{c.strip()}" for c in COLUMNS.split(","))
    found: list[tuple[int, Observation]] = []
    for start in range(0, len(ids), CHUNK):
        part = ids[start : start + CHUNK]
        rows = conn.execute(
            f"SELECT v.older, {cols} FROM overrides v JOIN observations n ON n.id = v.newer "
            f"WHERE v.older IN ({','.join('?' * len(part))}) AND n.superseded_by IS NULL",
            tuple(part),
        ).fetchall()
        found += [(int(row[0]), row_to_observation(row[1:])) for row in rows]
    return found


def newer_versions(store: ObservationStore, ids: Iterable[int]) -> dict[int, list[Observation]]:
    """older id -> the live observations recorded as changing it on their own branch, newest
    first, for ids and (followed up to CHAIN steps) for those later versions themselves. Costs
    one indexed read when no branch ever changed another's memory."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}

    def run(conn: sqlite3.Connection) -> dict[int, list[Observation]]:
        result: dict[int, list[Observation]] = {}
        if conn.execute("SELECT 1 FROM overrides LIMIT 1").fetchone() is None:
            return result
        todo, asked = wanted, set(wanted)
        for _ in range(CHAIN):
            found = _newer_rows(conn, todo)
            for older, obs in found:
                result.setdefault(older, []).append(obs)
            todo = list(dict.fromkeys(obs.id for _older, obs in found if obs.id not in asked))
            asked.update(todo)
            if not todo:
                break
        for versions in result.values():
            versions.sort(key=lambda o: (-o.created_at, -o.id))
        return result

    return store.read(run)


def version_here(
    obs: Observation, why: str, versions: Versions, scope: BranchScope
) -> tuple[Observation, str]:
    """The version of obs's subject in force in scope, with why it is visible: the newest later
    version visible here (following later versions of later versions), else obs itself."""
    current, reason, seen = obs, why, {obs.id}
    for _ in range(CHAIN):
        for later in versions.get(current.id, ()):
            if later.id in seen:
                continue
            found = scope.visibility(later.branch, later.commit, later.shared_commit)
            if found is not None:
                current, reason = later, found
                seen.add(later.id)
                break
        else:
            return current, reason
    return current, reason


def overridden_here(store: ObservationStore, scope: BranchScope, ids: Iterable[int]) -> set[int]:
    """The ids among these whose subject a later version visible in scope has changed."""
    wanted = list(ids)
    versions = newer_versions(store, wanted)
    return {
        i
        for i in wanted
        if any(scope.is_visible(o.branch, o.commit, o.shared_commit) for o in versions.get(i, ()))
    }
