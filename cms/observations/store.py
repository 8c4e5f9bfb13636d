"""The observation store of one project: a SQLite file (WAL, FTS5, named migrations).

Owns connections, transactions and plain row reads and writes (the records and their row form
are model.py's). Writes run in BEGIN IMMEDIATE under a busy timeout and are retried, so "database
is locked" never reaches a caller; every sqlite failure becomes a one-line StoreError. Knows
nothing of git, ranking, hooks or the CLI, and imports only the standard library (it is on the
prompt hook's path).
"""

from __future__ import annotations

import os
import time

from cms import jsonio, paths, privatefile
from cms.errors import StoreError
from cms.observations.migrations import SCHEMA_VERSION, apply_migrations
from cms.observations.model import (
    COLUMNS,
    NewObservation,
    Observation,
    clean_new,
    row_to_observation,
    title_key,
)
from cms.observations.overrides import drop_overrides

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, TypeVar

    from cms.paths import StrPath

    T = TypeVar("T")
else:
    try:  # the C module itself: the sqlite3 package also imports datetime for date adapters
        import _sqlite3 as sqlite3  # that the store never uses
    except ImportError:  # pragma: no cover - an interpreter without CPython's _sqlite3
        import sqlite3


def store_path(project_id: str) -> str:
    """Where the store of a project lives: <CMS_HOME>/projects/<id>/observations.db."""
    return paths.observations_db(project_id)


def insert_observation(
    conn: sqlite3.Connection,
    project: str,
    new: NewObservation,
    *,
    branch: str | None,
    commit: str | None,
    shared_commit: bool = False,
    session: str | None = None,
    agent: str | None = None,
    created_at: float | None = None,
    updated_at: float | None = None,
    archived_at: float | None = None,
) -> int:
    """Insert one already-cleaned observation inside the caller's write transaction."""
    created = time.time() if created_at is None else created_at
    cursor = conn.execute(
        "INSERT INTO observations (project, kind, title, title_key, body, files, importance, "
        'branch, "commit", shared_commit, session, agent, created_at, updated_at, archived_at, '
        "source, turn, context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            project,
            new.kind,
            new.title,
            title_key(new.title),
            new.body,
            jsonio.dumps(list(new.files), ensure_ascii=False),
            new.importance,
            branch,
            commit,
            int(shared_commit),
            session,
            agent,
            created,
            created if updated_at is None else updated_at,
            archived_at,
            new.source,
            new.turn,
            new.context,
        ),
    )
    return int(cursor.lastrowid or 0)


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class ObservationStore:
    """One project's store. Open it per process; the connection is not shared across threads."""

    def __init__(
        self,
        path: StrPath,
        project: str,
        *,
        busy_timeout: float = 10.0,
        patience: float = 60.0,
        read_only: bool = False,
    ) -> None:
        """Open (and create or upgrade) the store at path; read_only opens an existing store of
        this schema without ever writing to it (StoreError otherwise)."""
        self.path = path = os.fspath(path)
        self.project = project
        self.patience = patience
        try:
            if read_only:
                from urllib.parse import quote

                target = f"file:{quote(path)}?mode=ro"
            else:
                privatefile.ensure_file(path)  # 0600 in a 0700 folder; -wal and -shm follow it
                target = path
            self._conn = sqlite3.connect(
                target,
                timeout=busy_timeout,
                isolation_level=None,
                check_same_thread=False,
                uri=read_only,
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open observation store {path}: {exc}") from exc
        if read_only:
            self._check_schema()
        else:
            self._prepare()

    def _check_schema(self) -> None:
        found = self._retrying(
            lambda: int(self._conn.execute("PRAGMA user_version").fetchone()[0]), "open", None
        )
        if found != SCHEMA_VERSION:
            self._conn.close()
            raise StoreError(
                f"observation store {self.path} has schema {found}, this cms reads "
                f"{SCHEMA_VERSION}; run any cms command in the project (cms stats) to upgrade it"
            )

    @classmethod
    def for_project(cls, project_id: str) -> ObservationStore:
        return cls(store_path(project_id), project_id)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ObservationStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -------------------------------------------------------------------

    def _retrying(self, step: Callable[[], T], what: str, patience: float | None) -> T:
        deadline = time.monotonic() + (self.patience if patience is None else patience)
        delay = 0.005
        while True:
            try:
                return step()
            except sqlite3.Error as exc:
                if _is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(delay * (0.5 + (time.perf_counter_ns() % 1009) / 1009))  # jitter
                    delay = min(delay * 2, 0.2)
                    continue
                raise StoreError(f"observation store {self.path}: {what} failed: {exc}") from exc

    def _transaction(self, fn: Callable[[sqlite3.Connection], T], begin: str) -> T:
        conn = self._conn
        conn.execute(begin)
        try:
            result = fn(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                try:  # noqa: SIM105 - no contextlib on the hook path
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise
        return result

    def write(self, fn: Callable[[sqlite3.Connection], T], *, patience: float | None = None) -> T:
        """Run fn in one BEGIN IMMEDIATE transaction, retried whole while the db is busy."""
        return self._retrying(lambda: self._transaction(fn, "BEGIN IMMEDIATE"), "write", patience)

    def read(self, fn: Callable[[sqlite3.Connection], T], *, patience: float | None = None) -> T:
        """Run fn in one read transaction (a consistent snapshot), retried while busy."""
        return self._retrying(lambda: self._transaction(fn, "BEGIN"), "read", patience)

    def _prepare(self) -> None:
        def version() -> int:
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

        self._retrying(lambda: self._conn.execute("PRAGMA synchronous=NORMAL"), "open", None)
        current = self._retrying(version, "open", None)
        if current == SCHEMA_VERSION:
            return
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"observation store {self.path} has schema {current}, newer than this cms "
                f"({SCHEMA_VERSION}); upgrade cms"
            )
        self._retrying(
            lambda: self._conn.execute("PRAGMA journal_mode=WAL").fetchone(), "open", None
        )
        self.write(apply_migrations)

    # -- reads --------------------------------------------------------------------------

    def get(self, observation_id: int) -> Observation | None:
        row = self.read(
            lambda c: c.execute(
                f"SELECT {COLUMNS} FROM observations WHERE id = ?", (observation_id,)
            ).fetchone()
        )
        return None if row is None else row_to_observation(row)

    def list_observations(
        self,
        *,
        include_archived: bool = False,
        include_superseded: bool = False,
        kind: str | None = None,
        branch: str | None = None,
        limit: int | None = None,
    ) -> list[Observation]:
        """Observations oldest first; by default only live ones (not archived, not superseded)."""
        where, args = [], []  # type: tuple[list[str], list[Any]]
        if not include_archived:
            where.append("archived_at IS NULL")
        if not include_superseded:
            where.append("superseded_by IS NULL")
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        if branch is not None:
            where.append("branch = ?")
            args.append(branch)
        sql = f"SELECT {COLUMNS} FROM observations"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        rows = self.read(lambda c: c.execute(sql, args).fetchall())
        return [row_to_observation(r) for r in rows]

    def stats(self) -> dict[str, Any]:
        """Counts for `cms stats`: totals, live by kind and by branch, store size in bytes."""
        import contextlib

        def collect(c: sqlite3.Connection) -> dict[str, Any]:
            total, archived, superseded = c.execute(
                "SELECT COUNT(*), COUNT(archived_at), COUNT(superseded_by) FROM observations"
            ).fetchone()
            live = "archived_at IS NULL AND superseded_by IS NULL"
            by_kind = dict(
                c.execute(f"SELECT kind, COUNT(*) FROM observations WHERE {live} GROUP BY kind")
            )
            by_branch = {
                (b if b is not None else "(no git)"): n
                for b, n in c.execute(
                    f"SELECT branch, COUNT(*) FROM observations WHERE {live} GROUP BY branch"
                )
            }
            oldest, newest = c.execute(
                "SELECT MIN(created_at), MAX(created_at) FROM observations"
            ).fetchone()
            return {
                "total": total,
                "live": c.execute(f"SELECT COUNT(*) FROM observations WHERE {live}").fetchone()[0],
                "archived": archived,
                "superseded": superseded,
                "by_kind": by_kind,
                "by_branch": by_branch,
                "oldest": oldest,
                "newest": newest,
            }

        result = self.read(collect)
        size = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                size += os.stat(self.path + suffix).st_size
        result["bytes"] = size
        return result

    # -- writes -------------------------------------------------------------------------

    def add(
        self,
        new: NewObservation,
        *,
        branch: str | None = None,
        commit: str | None = None,
        session: str | None = None,
        agent: str | None = None,
        created_at: float | None = None,
    ) -> int:
        """Store one observation as given (no redaction, no dedup: capture.py does those)."""
        cleaned = clean_new(new)
        return self.write(
            lambda c: insert_observation(
                c,
                self.project,
                cleaned,
                branch=branch,
                commit=commit,
                session=session,
                agent=agent,
                created_at=created_at,
            )
        )

    def forget(
        self, *, ids: Iterable[int] = (), branch: str | None = None, session: str | None = None
    ) -> int:
        """Delete observations by id, by branch or by session (with the session's indexed facts
        and passages); returns how many observations went.

        What the deleted ones superseded becomes live again; so do the originals of a deleted
        summary (`cms gc`), out of the archive.
        """
        clauses: list[tuple[str, tuple[Any, ...]]] = []
        id_list = list(ids)
        if id_list:
            marks = ",".join("?" * len(id_list))
            clauses.append((f"id IN ({marks})", tuple(id_list)))
        if branch is not None:
            clauses.append(("branch = ?", (branch,)))
        if session is not None:
            clauses.append(("session = ?", (session,)))
        if not clauses:
            return 0

        def run(c: sqlite3.Connection) -> int:
            count = 0
            for clause, args in clauses:
                drop_overrides(c, clause, args)
                c.execute(
                    f"UPDATE observations SET superseded_by = NULL WHERE superseded_by IN "
                    f"(SELECT id FROM observations WHERE {clause})",
                    args,
                )
                c.execute(
                    "UPDATE observations SET summarised_into = NULL, archived_at = NULL WHERE "
                    f"summarised_into IN (SELECT id FROM observations WHERE {clause})",
                    args,
                )
                count += c.execute(f"DELETE FROM observations WHERE {clause}", args).rowcount
            if session is not None:  # the chat's facts and passages go with it
                c.execute(
                    "UPDATE facts SET superseded_by = NULL WHERE superseded_by IN "
                    "(SELECT id FROM facts WHERE session = ?)",
                    (session,),
                )
                c.execute("DELETE FROM facts WHERE session = ?", (session,))
            return count

        return self.write(run)

    def mark_recalled(self, ids: Sequence[int], now: float, *, patience: float = 1.0) -> bool:
        """Record that these were just recalled or injected: when, and one more use (one batched
        UPDATE); False if the db stayed busy.

        Bookkeeping only: the caller may ignore a failure, so the wait is short.
        """
        if not ids:
            return True
        marks = ",".join("?" * len(ids))
        try:
            self.write(
                lambda c: c.execute(
                    f"UPDATE observations SET last_recalled_at = ?, use_count = use_count + 1 "
                    f"WHERE id IN ({marks})",
                    (now, *ids),
                ),
                patience=patience,
            )
        except StoreError:
            return False
        return True
