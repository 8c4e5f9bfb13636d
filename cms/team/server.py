"""The team database: a PostgreSQL server reached with psycopg 3 (the only module importing it).

Owns the server's schema as named, append-only steps (`cms_team_migrations`), a push (rows,
then supersession links, then deletions, one transaction under the project's advisory lock so
that pushes of one project take turns) and a pull (what others changed since a cursor). A link
is decided the same way whoever pushes it: an item keeps the newest item said to supersede it
(by creation time, then uid), so machines that supersede one item at once end alike. A pull's
cursor is a transaction id below which no transaction is still running, so nothing committed
late is skipped. Every error is a TeamError that never carries the password.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from cms.errors import TeamError
from cms.team.local import RETIRED, Item

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

SCHEMA: list[tuple[str, str]] = [
    (
        "001_items",
        """
        CREATE TABLE cms_items (
            project TEXT NOT NULL,
            uid TEXT NOT NULL,
            sort TEXT NOT NULL,
            fields JSONB NOT NULL DEFAULT '{}',
            created_at DOUBLE PRECISION NOT NULL DEFAULT 0,
            superseded_by TEXT,
            deleted BOOLEAN NOT NULL DEFAULT FALSE,
            machine TEXT NOT NULL,
            writer TEXT NOT NULL,
            changed XID8 NOT NULL DEFAULT pg_current_xact_id(),
            PRIMARY KEY (project, uid)
        );
        CREATE INDEX cms_items_changed ON cms_items (project, changed);
        CREATE INDEX cms_items_links ON cms_items (project, superseded_by)
            WHERE superseded_by IS NOT NULL;
        """,
    ),
]
_SCHEMA_LOCK = 0x636D735F7465616D  # "cms_team": one migration at a time, whoever starts it
START = "0"  # the cursor of a machine that never pulled


def hidden_password(url: str) -> str:
    """The URL as it may be shown: without its password."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://(unreadable url)"
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def _scrubbed(text: str, url: str) -> str:
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    text = text.replace(url, hidden_password(url))
    if password:
        text = text.replace(password, "***")
    return " ".join(text.split())[:300]


class TeamServer:
    """One connection to the team database (open it per sync; not shared across threads)."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise TeamError(
                "team sync needs psycopg: pip install 'cms[team]' (or psycopg[binary])"
            ) from exc
        self.url = url
        self._errors: type[Exception] = psycopg.Error
        try:
            self._conn: psycopg.Connection[Any] = psycopg.connect(
                url, connect_timeout=max(1, int(connect_timeout)), application_name="cms"
            )
        except psycopg.Error as exc:
            raise self._error("cannot connect to", exc) from exc

    def _error(self, doing: str, exc: BaseException) -> TeamError:
        where = hidden_password(self.url)
        return TeamError(f"team database {where}: {doing} failed: {_scrubbed(str(exc), self.url)}")

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> TeamServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, doing: str, step: Any) -> Any:
        """step(cursor) in one transaction; a server error becomes one TeamError line."""
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                return step(cur)
        except self._errors as exc:
            raise self._error(doing, exc) from exc

    # -- schema -------------------------------------------------------------------------

    def prepare(self) -> list[str]:
        """Apply the schema steps the server lacks (one client at a time); a server with steps
        this cms does not know is newer: TeamError. Returns the steps applied."""

        def run(cur: Any) -> list[str]:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            cur.execute(
                "CREATE TABLE IF NOT EXISTS cms_team_migrations ("
                "name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            cur.execute("SELECT name FROM cms_team_migrations")
            done = {row[0] for row in cur.fetchall()}
            known = [name for name, _ in SCHEMA]
            unknown = sorted(done - set(known))
            if unknown:
                raise TeamError(
                    f"the team database has schema steps this cms does not know "
                    f"({', '.join(unknown)}): upgrade cms on this machine"
                )
            applied = []
            for name, sql in SCHEMA:
                if name not in done:
                    cur.execute(sql)
                    cur.execute("INSERT INTO cms_team_migrations (name) VALUES (%s)", (name,))
                    applied.append(name)
            return applied

        result: list[str] = self._run("preparing the schema", run)
        return result

    # -- push ---------------------------------------------------------------------------

    def push(self, project: str, machine: str, items: Sequence[Item]) -> dict[str, str | None]:
        """Store items (rows, links, deletions) in one transaction; returns the server's link
        for every item pushed alive or relinked, which the caller applies (another machine's
        may have won)."""

        def run(cur: Any) -> dict[str, str | None]:
            cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (project,))
            alive = [i for i in items if not i.deleted]
            cur.executemany(
                "INSERT INTO cms_items (project, uid, sort, fields, created_at, machine, writer) "
                "VALUES (%s, %s, %s, %s::jsonb, %s, %s, %s) "
                "ON CONFLICT (project, uid) DO UPDATE SET fields = excluded.fields, "
                "created_at = excluded.created_at, writer = excluded.writer, "
                "changed = pg_current_xact_id() "
                "WHERE NOT cms_items.deleted AND cms_items.fields IS DISTINCT FROM excluded.fields",
                [
                    (project, i.uid, i.sort, json.dumps(i.fields), i.created_at, i.machine, machine)
                    for i in alive
                ],
            )
            relinked = self._push_links(cur, project, machine, alive)
            gone = [i.uid for i in items if i.deleted]
            if gone:
                self._push_deletions(cur, project, machine, gone)
            uids = [i.uid for i in alive] + relinked
            cur.execute(
                "SELECT uid, superseded_by FROM cms_items WHERE project = %s AND uid = ANY(%s)",
                (project, uids),
            )
            return {str(uid): link for uid, link in cur.fetchall()}

        result: dict[str, str | None] = self._run("push", run)
        return result

    @staticmethod
    def _push_links(cur: Any, project: str, machine: str, items: Sequence[Item]) -> list[str]:
        """Each item's link where it is new or newer than the one stored. When two items are
        said to supersede one item (two machines changed it at once), the newer of the two
        wins and the older becomes its history too. RETIRED ranks below any item; a push
        never clears a link."""
        linked = {i.uid: i.superseded_by for i in items if i.superseded_by is not None}
        if not linked:
            return []
        cur.execute(
            "SELECT uid, superseded_by, created_at FROM cms_items WHERE project = %s "
            "AND NOT deleted AND (uid = ANY(%s) OR uid = ANY(%s))",
            (project, list(linked), [t for t in linked.values() if t != RETIRED]),
        )
        stored: dict[str, str | None] = {}
        born: dict[str, float] = {}
        for uid, link, created in cur.fetchall():
            stored[str(uid)], born[str(uid)] = link, float(created)
        cur.execute(
            "SELECT uid, superseded_by, created_at FROM cms_items WHERE project = %s "
            "AND NOT deleted AND uid = ANY(%s)",
            (project, [v for v in stored.values() if v and v != RETIRED and v not in born]),
        )
        for uid, link, created in cur.fetchall():
            stored[str(uid)], born[str(uid)] = link, float(created)

        def rank(uid: str | None) -> tuple[float, str]:
            return (born[uid], uid) if uid in born else (float("-inf"), uid or "")

        changed: dict[str, str] = {}
        todo = [(uid, newer) for uid, newer in linked.items()]
        while todo:
            uid, newer = todo.pop()
            current = changed.get(uid, stored.get(uid))
            if uid not in born or newer == current or (newer != RETIRED and newer not in born):
                continue  # deleted or unknown here, or its newer item not on the server yet
            if current is None or rank(newer) > rank(current):
                changed[uid] = newer
                loser, winner = current, newer
            else:
                loser, winner = newer, current
            if loser and loser != RETIRED and loser != winner:
                todo.append((loser, winner))
        cur.executemany(
            "UPDATE cms_items SET superseded_by = %s, writer = %s, changed = pg_current_xact_id() "
            "WHERE project = %s AND uid = %s",
            [(newer, machine, project, uid) for uid, newer in changed.items()],
        )
        return list(changed)

    @staticmethod
    def _push_deletions(cur: Any, project: str, machine: str, gone: list[str]) -> None:
        """Deleted items keep a row without their text (so that every machine deletes them);
        what they superseded is back in force."""
        cur.executemany(
            "INSERT INTO cms_items (project, uid, sort, deleted, machine, writer) "
            "VALUES (%s, %s, %s, TRUE, %s, %s) ON CONFLICT (project, uid) DO UPDATE SET "
            "deleted = TRUE, fields = '{}', superseded_by = NULL, writer = excluded.writer, "
            "changed = pg_current_xact_id() WHERE NOT cms_items.deleted",
            [
                (project, uid, "fact" if uid.startswith("f:") else "observation", machine, machine)
                for uid in gone
            ],
        )
        cur.execute(
            "UPDATE cms_items SET superseded_by = NULL, writer = %s, "
            "changed = pg_current_xact_id() WHERE project = %s AND superseded_by = ANY(%s)",
            (machine, project, gone),
        )

    # -- pull ---------------------------------------------------------------------------

    def pull(self, project: str, machine: str, cursor: str) -> tuple[list[Item], str]:
        """What other machines changed since cursor, oldest first, and the next cursor."""

        def run(cur: Any) -> tuple[list[Item], str]:
            cur.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text")
            horizon = str(cur.fetchone()[0])
            cur.execute(
                "SELECT uid, sort, fields, created_at, superseded_by, deleted, machine "
                "FROM cms_items WHERE project = %s AND changed >= %s::xid8 "
                "AND changed < %s::xid8 AND writer <> %s ORDER BY changed, uid",
                (project, cursor, horizon, machine),
            )
            found = [
                Item(
                    uid=str(uid),
                    sort=str(sort),
                    fields=dict(fields or {}),
                    created_at=float(created or 0.0),
                    superseded_by=link,
                    deleted=bool(deleted),
                    machine=str(made),
                )
                for uid, sort, fields, created, link, deleted, made in cur.fetchall()
            ]
            return found, horizon

        result: tuple[list[Item], str] = self._run("pull", run)
        return result
