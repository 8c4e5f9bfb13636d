"""The local side of a team sync: what changed in a project's SQLite store since the last push,
and applying what other machines stored.

Triggers (made when a store first syncs, so a store that never syncs pays nothing) note each
written observation and fact in `team_outbox` and each deleted one in `team_gone`; rows written
while pulled items are applied are not noted (the `applying` mark in `team_state`). An item's
identity travels: an observation's `uid` (`<machine>:<local id>` where it was made), a fact's
session and fact id. Text is redacted again on the way out. Knows nothing of PostgreSQL.
"""

from __future__ import annotations

from typing import Any

from cms import jsonio
from cms.observations.migrations import KINDS
from cms.observations.model import title_key
from cms.record import Record, field
from cms.transcripts.redact import redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable

OBSERVATION = "observation"
FACT = "fact"
BRANCHES = "branches"  # one per machine: the branches (-> tip) its clone has
RETIRED = "0"  # superseded by nothing that is stored (a fact an update model retired)
_QUIET = "NOT EXISTS (SELECT 1 FROM team_state WHERE key = 'applying')"
_SHARED_OBSERVATION = (
    'kind, title, body, files, importance, branch, "commit", shared_commit, superseded_by, '
    "archived_at, context"
)
_SHARED_FACT = 'sun, planet, text, kind, archived, branch, "commit", shared_commit, superseded_by'


def _noted(key: str) -> str:
    return f"INSERT INTO team_outbox (item) VALUES ({key}) ON CONFLICT (item) DO UPDATE SET seq = seq + 1"


def _gone(uid: str) -> str:
    return (
        f"INSERT INTO team_gone (uid) VALUES ({uid}) ON CONFLICT (uid) DO UPDATE SET seq = seq + 1"
    )


def _trigger(name: str, event: str, statement: str) -> str:
    return f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} WHEN {_QUIET} BEGIN {statement}; END"


TRIGGERS = (
    _trigger("team_observation_added", "INSERT ON observations", _noted("'o:' || new.id")),
    _trigger(
        "team_observation_changed",
        f"UPDATE OF {_SHARED_OBSERVATION} ON observations",
        _noted("'o:' || new.id"),
    ),
    _trigger(
        "team_observation_removed",
        "DELETE ON observations",
        _gone(
            "COALESCE(old.uid, (SELECT value FROM team_state WHERE key = 'machine') || ':' || old.id)"
        ),
    ),
    _trigger("team_fact_added", "INSERT ON facts", _noted("'f:' || new.id")),
    _trigger("team_fact_changed", f"UPDATE OF {_SHARED_FACT} ON facts", _noted("'f:' || new.id")),
    _trigger(
        "team_fact_removed", "DELETE ON facts", _gone("'f:' || old.session || '/' || old.fact_id")
    ),
)


class Item(Record, frozen=True):
    """One shared item as it travels: its identity, sort (observation or fact), its fields, the
    uid of what supersedes it (RETIRED, or None), whether it was deleted, and where it was made."""

    uid: str
    sort: str
    fields: dict[str, Any] = field(default_factory=dict)
    created_at: float = 0.0
    superseded_by: str | None = None
    deleted: bool = False
    machine: str = ""


class Outgoing(Record, frozen=True):
    """What a push sends, and the outbox entries (with their counters) it clears once sent."""

    items: tuple[Item, ...] = ()
    noted: tuple[tuple[str, int], ...] = ()
    gone: tuple[tuple[str, int], ...] = ()


# ---------------------------------------------------------------------------- state


def get_state(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM team_state WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_state(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM team_state WHERE key = ?", (key,))
    else:
        conn.execute("INSERT OR REPLACE INTO team_state (key, value) VALUES (?, ?)", (key, value))


def enable(conn: sqlite3.Connection, machine: str, project: str) -> None:
    """Make the triggers and, the first time this store syncs with `project`, note every item
    (so the whole history is pushed once). A store moved to another team key starts over."""
    for statement in TRIGGERS:
        conn.execute(statement)
    set_state(conn, "machine", machine)
    if get_state(conn, "project") == project:
        return
    conn.execute("INSERT OR IGNORE INTO team_outbox (item) SELECT 'o:' || id FROM observations")
    conn.execute(
        "INSERT OR IGNORE INTO team_outbox (item) SELECT 'f:' || id FROM facts WHERE origin IS NULL"
    )
    set_state(conn, "project", project)
    set_state(conn, "cursor", None)


def pending(conn: sqlite3.Connection) -> int:
    """Items noted here and not yet pushed."""
    return int(
        conn.execute(
            "SELECT (SELECT COUNT(*) FROM team_outbox) + (SELECT COUNT(*) FROM team_gone)"
        ).fetchone()[0]
    )


# ---------------------------------------------------------------------------- outgoing


_TEXTS = frozenset(("title", "body", "context", "text", "files", "sun", "planet"))


def _fields(names: str, values: tuple[object, ...]) -> dict[str, object]:
    """A row as fields, its texts redacted again (a row may predate a redaction rule)."""
    row = dict(zip(_names(names), values, strict=True))
    return {k: redact_text(v) if k in _TEXTS and isinstance(v, str) else v for k, v in row.items()}


_OBS_FIELDS = (
    'kind, title, body, files, importance, branch, "commit", shared_commit, session, agent, '
    "created_at, updated_at, archived_at, source, turn, context"
)
_FACT_FIELDS = (
    "session, fact_id, sun, planet, text, kind, turn, created_at, updated_at, archived, branch, "
    '"commit", shared_commit'
)


def _names(columns: str) -> list[str]:
    return [c.strip().strip('"') for c in columns.split(",")]


def observation_uid(conn: sqlite3.Connection, row_id: int, machine: str) -> str:
    """The uid of a local observation, given one (`<machine>:<id>`) when it has none yet."""
    row = conn.execute("SELECT uid FROM observations WHERE id = ?", (row_id,)).fetchone()
    if row is not None and row[0]:
        return str(row[0])
    uid = f"{machine}:{row_id}"
    conn.execute("UPDATE observations SET uid = ? WHERE id = ? AND uid IS NULL", (uid, row_id))
    return uid


def _fact_uid(conn: sqlite3.Connection, row_id: int) -> str | None:
    row = conn.execute("SELECT session, fact_id FROM facts WHERE id = ?", (row_id,)).fetchone()
    return None if row is None else f"f:{row[0]}/{row[1]}"


def _observation_item(conn: sqlite3.Connection, row_id: int, machine: str) -> Item | None:
    row = conn.execute(
        f"SELECT {_OBS_FIELDS}, superseded_by, uid FROM observations WHERE id = ?", (row_id,)
    ).fetchone()
    if row is None:
        return None
    fields = _fields(_OBS_FIELDS, row[:-2])
    reason = conn.execute(
        "SELECT reason FROM supersede_reasons WHERE older = ?", (row_id,)
    ).fetchone()
    if reason is not None:
        fields["reason"] = reason[0]
    newer = row[-2]
    uid = observation_uid(conn, row_id, machine)
    return Item(
        uid=uid,
        sort=OBSERVATION,
        fields=fields,
        created_at=_number(fields["created_at"]),
        superseded_by=None if newer is None else observation_uid(conn, int(newer), machine),
        machine=uid.partition(":")[0],
    )


def _fact_item(conn: sqlite3.Connection, row_id: int, machine: str) -> Item | None:
    row = conn.execute(
        f"SELECT {_FACT_FIELDS}, superseded_by, origin FROM facts WHERE id = ?", (row_id,)
    ).fetchone()
    if row is None:
        return None
    fields = _fields(_FACT_FIELDS, row[:-2])
    newer = row[-2]
    link = None if newer is None else RETIRED if newer == 0 else _fact_uid(conn, int(newer))
    return Item(
        uid=f"f:{fields['session']}/{fields['fact_id']}",
        sort=FACT,
        fields=fields,
        created_at=_number(fields["created_at"]),
        superseded_by=link,
        machine=str(row[-1] or machine),
    )


def collect(conn: sqlite3.Connection, machine: str, limit: int) -> Outgoing:
    """Up to `limit` noted items (inside the caller's write transaction: uids are given here)
    and the deletions not undone since (an item deleted and made again is alive)."""
    noted = conn.execute("SELECT item, seq FROM team_outbox LIMIT ?", (limit,)).fetchall()
    items: list[Item] = []
    for key, _seq in noted:
        sort, _, number = str(key).partition(":")
        made = (_observation_item if sort == "o" else _fact_item)(conn, int(number), machine)
        if made is not None:
            items.append(made)
    gone = conn.execute("SELECT uid, seq FROM team_gone LIMIT ?", (limit,)).fetchall()
    alive = {item.uid for item in items}
    for uid, _seq in gone:
        if uid not in alive and find_local(conn, str(uid)) is None:
            items.append(Item(uid=str(uid), sort=_sort_of(str(uid)), deleted=True, machine=machine))
    return Outgoing(
        items=tuple(items),
        noted=tuple((str(k), int(s)) for k, s in noted),
        gone=tuple((str(u), int(s)) for u, s in gone),
    )


def acknowledge(conn: sqlite3.Connection, sent: Outgoing) -> None:
    """Clear the outbox entries a push sent, unless they were noted again since."""
    conn.executemany("DELETE FROM team_outbox WHERE item = ? AND seq = ?", sent.noted)
    conn.executemany("DELETE FROM team_gone WHERE uid = ? AND seq = ?", sent.gone)


def settle(conn: sqlite3.Connection, sent: Outgoing, links: dict[str, str | None]) -> None:
    """After the server committed a push: clear what it sent from the outbox and take the
    server's link for each item (another machine's newer one may have won)."""
    acknowledge(conn, sent)
    set_state(conn, "applying", "1")
    for uid, link in links.items():
        set_link(conn, Item(uid=uid, sort=_sort_of(uid), superseded_by=link))
    set_state(conn, "applying", None)


# ---------------------------------------------------------------------------- incoming


def _sort_of(uid: str) -> str:
    return FACT if uid.startswith("f:") else OBSERVATION


def find_local(conn: sqlite3.Connection, uid: str) -> int | None:
    """The local row id of an item by its uid (an observation's own uid, or a fact's session and
    fact id; a local observation not yet given its uid by `<machine>:<id>`)."""
    if uid.startswith("f:"):
        session, _, fact_id = uid[2:].partition("/")
        row = conn.execute(
            "SELECT id FROM facts WHERE session = ? AND fact_id = ?", (session, fact_id)
        ).fetchone()
        return None if row is None else int(row[0])
    row = conn.execute("SELECT id FROM observations WHERE uid = ?", (uid,)).fetchone()
    if row is not None:
        return int(row[0])
    machine, _, number = uid.partition(":")
    if machine == get_state(conn, "machine") and number.isdigit():
        row = conn.execute(
            "SELECT id FROM observations WHERE id = ? AND uid IS NULL", (int(number),)
        ).fetchone()
        return None if row is None else int(row[0])
    return None


def _number(value: object, default: float = 0.0) -> float:
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _put_observation(conn: sqlite3.Connection, project: str, item: Item, local: int | None) -> int:
    f = item.fields
    kind = f.get("kind") if f.get("kind") in KINDS else "other"
    title = _text(f.get("title")) or "(untitled)"
    files = f.get("files") if isinstance(f.get("files"), str) else "[]"
    importance = min(5, max(1, int(_number(f.get("importance"), 3))))
    values = (
        kind, title, title_key(title), _text(f.get("body")) or "", files, importance,
        _text(f.get("branch")), _text(f.get("commit")), int(bool(f.get("shared_commit"))),
        _text(f.get("session")), _text(f.get("agent")), _number(f.get("created_at")),
        _number(f.get("updated_at")), f.get("archived_at") if _number(f.get("archived_at"), -1) >= 0 else None,
        _text(f.get("source")), int(_number(f.get("turn"))), _text(f.get("context")) or "",
    )  # fmt: skip
    columns = (
        'kind, title, title_key, body, files, importance, branch, "commit", shared_commit, '
        "session, agent, created_at, updated_at, archived_at, source, turn, context"
    )
    if local is None:
        cursor = conn.execute(
            f"INSERT INTO observations (project, uid, {columns}) "
            f"VALUES (?, ?, {', '.join('?' * len(values))})",
            (project, item.uid, *values),
        )
        return int(cursor.lastrowid or 0)
    sets = ", ".join(f"{name} = ?" for name in columns.split(", "))
    conn.execute(f"UPDATE observations SET {sets} WHERE id = ?", (*values, local))
    return local


def _put_fact(conn: sqlite3.Connection, item: Item, local: int | None) -> int:
    f = item.fields
    session, _, fact_id = item.uid[2:].partition("/")
    values = (
        _text(f.get("sun")) or "", _text(f.get("planet")) or "", _text(f.get("text")) or "",
        _text(f.get("kind")) or "other", int(_number(f.get("turn"))), _number(f.get("created_at")),
        _number(f.get("updated_at")), int(bool(f.get("archived"))), _text(f.get("branch")),
        _text(f.get("commit")), int(bool(f.get("shared_commit"))),
    )  # fmt: skip
    columns = (
        'sun, planet, text, kind, turn, created_at, updated_at, archived, branch, "commit", '
        "shared_commit"
    )
    if local is None:
        cursor = conn.execute(
            f"INSERT INTO facts (session, fact_id, origin, {columns}) "
            f"VALUES (?, ?, ?, {', '.join('?' * len(values))})",
            (session, fact_id, item.machine or "?", *values),
        )
        return int(cursor.lastrowid or 0)
    sets = ", ".join(f"{name} = ?" for name in columns.split(", "))
    conn.execute(f"UPDATE facts SET {sets} WHERE id = ? AND origin IS NOT NULL", (*values, local))
    return local


def _delete(conn: sqlite3.Connection, sort: str, local: int) -> None:
    """Delete a row others deleted; what it superseded is back in force, as on one machine."""
    if sort == FACT:
        conn.execute("UPDATE facts SET superseded_by = NULL WHERE superseded_by = ?", (local,))
        conn.execute("DELETE FROM facts WHERE id = ?", (local,))
        return
    conn.execute("UPDATE observations SET superseded_by = NULL WHERE superseded_by = ?", (local,))
    conn.execute("DELETE FROM supersede_reasons WHERE older = ?", (local,))
    conn.execute("DELETE FROM observations WHERE id = ?", (local,))


def set_link(conn: sqlite3.Connection, item: Item) -> bool:
    """Give the local copy of item the server's supersession link; False when its newer item is
    not here yet (kept in team_state and tried again after the next pull)."""
    local = find_local(conn, item.uid)
    if local is None:
        return True
    table = "facts" if item.sort == FACT else "observations"
    if item.superseded_by is None:
        return True  # a link is only ever cleared by deleting the newer item
    if item.superseded_by == RETIRED:
        target: int | None = 0
    else:
        target = find_local(conn, item.superseded_by)
    if target is None:
        set_state(conn, f"link:{item.uid}", item.superseded_by)
        return False
    conn.execute(
        f"UPDATE {table} SET superseded_by = ? WHERE id = ? AND superseded_by IS NOT ?",
        (target, local, target),
    )
    set_state(conn, f"link:{item.uid}", None)
    if item.sort == OBSERVATION and isinstance(item.fields.get("reason"), str) and target:
        conn.execute(
            "INSERT OR REPLACE INTO supersede_reasons (older, reason) VALUES (?, ?)",
            (local, item.fields["reason"]),
        )
    return True


def branch_item(machine: str, tips: dict[str, str]) -> Item:
    """This clone's branches as an item to push (its `fields` are what `branches` records once
    the server has it)."""
    return Item(
        uid=f"{BRANCHES}:{machine}",
        sort=BRANCHES,
        fields={"branches": dict(sorted(tips.items()))},
        machine=machine,
    )


def branches_elsewhere(conn: sqlite3.Connection) -> dict[str, str]:
    """Every branch (-> tip) the other clones reported."""
    tips: dict[str, str] = {}
    for (text,) in conn.execute("SELECT value FROM team_state WHERE key LIKE 'branches:%'"):
        found = jsonio.loads(text)
        if isinstance(found, dict):
            tips.update({k: v for k, v in found.items() if isinstance(v, str)})
    return tips


def _waiting_links(conn: sqlite3.Connection) -> list[Item]:
    rows = conn.execute("SELECT key, value FROM team_state WHERE key LIKE 'link:%'").fetchall()
    return [Item(uid=str(k)[5:], sort=_sort_of(str(k)[5:]), superseded_by=str(v)) for k, v in rows]


def apply_items(conn: sqlite3.Connection, project: str, items: Iterable[Item]) -> int:
    """Store what others stored (inside the caller's write transaction, unnoted): rows first,
    then links, then links that waited for their newer item. Returns how many rows changed."""
    set_state(conn, "applying", "1")
    changed = 0
    kept: list[Item] = []
    for item in items:
        if item.sort == BRANCHES:
            tips = item.fields.get("branches")
            set_state(conn, item.uid, jsonio.dumps(tips if isinstance(tips, dict) else {}))
            continue
        local = find_local(conn, item.uid)
        if item.deleted:
            if local is not None:
                _delete(conn, item.sort, local)
                changed += 1
            continue
        mine = item.machine == get_state(conn, "machine")
        if not mine:
            if item.sort == FACT:
                _put_fact(conn, item, local)
            else:
                _put_observation(conn, project, item, local)
            changed += 1
        kept.append(item)
    for item in [*kept, *_waiting_links(conn)]:
        set_link(conn, item)
    set_state(conn, "applying", None)
    return changed
