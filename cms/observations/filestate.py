"""Whether the files an observation names changed since it was captured.

At capture each named file of the work tree is recorded with its git blob id (the SHA-1 git
gives its content), its size and its modification time (`file_marks`, migration 018). Reading
compares cheaply: an unchanged size and time means unchanged; otherwise the content is hashed
and compared with the blob; a file no longer there is gone. Standard library only, no git
subprocess (the hooks call it); knows nothing of hooks or the CLI.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence

    from cms.observations.store import ObservationStore

    Mark = tuple[str, str, int, int]  # (path relative to the root, blob id, size, mtime in ns)

BATCH = 500  # ids per query
MAX_HASHED = 4 * 1024 * 1024  # a bigger file is judged by size and time alone
CHANGED = "file changed since"
GONE = "file gone"


def blob_id(data: bytes) -> str:
    """The id git gives a file's content (`git hash-object`)."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _inside(root: str, name: str) -> str | None:
    """The absolute path of a file named relative to root, or None when it leaves the root."""
    if not name or os.path.isabs(name) or "://" in name:
        return None
    full = os.path.normpath(os.path.join(root, name))
    return full if full.startswith(os.path.join(os.path.normpath(root), "")) else None


def current_marks(root: str, files: Iterable[str]) -> list[Mark]:
    """The state of each named file that exists under root now (what a capture records)."""
    marks: list[Mark] = []
    for name in dict.fromkeys(files):
        full = _inside(root, name)
        if full is None:
            continue
        try:
            info = os.stat(full)
            if not os.path.isfile(full):
                continue
            with open(full, "rb") as handle:
                data = handle.read(MAX_HASHED + 1)
        except OSError:
            continue
        blob = blob_id(data) if len(data) <= MAX_HASHED else ""
        marks.append((name, blob, info.st_size, info.st_mtime_ns))
    return marks


def record_marks(conn: sqlite3.Connection, observation: int, marks: Sequence[Mark]) -> None:
    """Store the files' state for one observation, inside the caller's transaction."""
    conn.executemany(
        "INSERT OR REPLACE INTO file_marks (observation, path, blob, size, mtime_ns) "
        "VALUES (?, ?, ?, ?, ?)",
        [(observation, *mark) for mark in marks],
    )


def stored_marks(conn: sqlite3.Connection, observations: Sequence[int]) -> dict[int, list[Mark]]:
    """The recorded file states of these observations (those without files are absent); asked
    in batches, so any number of ids stays under SQLite's limit of query parameters."""
    found: dict[int, list[Mark]] = {}
    for start in range(0, len(observations), BATCH):
        batch = tuple(observations[start : start + BATCH])
        marks = ",".join("?" * len(batch))
        for obs, path, blob, size, mtime in conn.execute(
            f"SELECT observation, path, blob, size, mtime_ns FROM file_marks "
            f"WHERE observation IN ({marks}) ORDER BY observation, path",
            batch,
        ):
            found.setdefault(int(obs), []).append((str(path), str(blob), int(size), int(mtime)))
    return found


def file_state(root: str, mark: Mark) -> str:
    """ "" when the file is as recorded, else GONE or CHANGED."""
    name, blob, size, mtime = mark
    full = _inside(root, name)
    try:
        info = os.stat(full) if full else None
    except OSError:
        info = None
    if info is None:
        return GONE
    if info.st_size == size and info.st_mtime_ns == mtime:
        return ""
    if info.st_size != size or not blob:
        return CHANGED
    try:
        with open(full or "", "rb") as handle:
            data = handle.read(MAX_HASHED + 1)
    except OSError:
        return GONE
    return "" if blob_id(data) == blob else CHANGED


def staleness(root: str, marks: Sequence[Mark]) -> str:
    """What to append to an item's line: "(file changed since: a.py)", "(file gone: b.py)",
    both, or ""."""
    by_state: dict[str, list[str]] = {}
    for mark in marks:
        state = file_state(root, mark)
        if state:
            by_state.setdefault(state, []).append(mark[0])
    return " ".join(f"({state}: {', '.join(names)})" for state, names in by_state.items())


def files_moved_on(store: ObservationStore, root: str, ids: Sequence[int]) -> dict[int, str]:
    """For the observations among ids whose named files changed or vanished since capture:
    id -> what to append to its line (staleness)."""
    marks = store.read(lambda c: stored_marks(c, ids)) if ids else {}
    return {i: note for i, found in marks.items() if (note := staleness(root, found))}
