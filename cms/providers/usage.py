"""Token usage of model calls (per call, per UTC day, per project) and the daily token budget.

Owns the usage database at paths.usage_path() (SQLite, safe for many processes). It never calls
a model. Recording and the budget check fail open (logged, never raised) so a broken usage file
cannot stop the memory loop; only `summarize_usage` raises StoreError, for `cms stats`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import Any

from cms import paths
from cms.config import Config
from cms.errors import BudgetExhaustedError, StoreError
from cms.log import log_event
from cms.privatefile import ensure_file

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    day TEXT NOT NULL,
    project TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    purpose TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_by_day ON calls(day);
CREATE TABLE IF NOT EXISTS budget_notices (day TEXT PRIMARY KEY, at TEXT NOT NULL);
"""


def utc_now() -> datetime:
    return datetime.now(UTC)


@contextmanager
def _connect(*, create: bool = True) -> Iterator[sqlite3.Connection]:
    path = paths.usage_path()
    if create:
        ensure_file(path)  # 0600 in a 0700 folder: SQLite gives its -wal and -shm that mode
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 10000")
        if create:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.executescript(_SCHEMA)
        yield conn
    finally:
        conn.close()


def record_usage(
    *,
    provider: str,
    model: str,
    project: str,
    purpose: str,
    input_tokens: int,
    output_tokens: int,
    when: datetime | None = None,
) -> None:
    """Add one call's token counts; a failure to record is logged, never raised."""
    when = when or utc_now()
    row = (
        when.isoformat(timespec="seconds"),
        when.date().isoformat(),
        project or "",
        provider,
        model,
        purpose,
        max(0, int(input_tokens)),
        max(0, int(output_tokens)),
    )
    try:
        with _connect() as conn:
            conn.execute(
                "INSERT INTO calls (at, day, project, provider, model, purpose, input_tokens,"
                " output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
    except sqlite3.Error as exc:
        log_event("error", "usage_error", f"cannot record token usage: {exc}")


def tokens_spent(day: date) -> int:
    """Input plus output tokens of every call on that UTC day (0 when nothing is recorded)."""
    if not os.path.exists(paths.usage_path()):
        return 0
    with _connect() as conn:
        row = conn.execute(
            "SELECT COALESCE(SUM(input_tokens + output_tokens), 0) FROM calls WHERE day = ?",
            (day.isoformat(),),
        ).fetchone()
    return int(row[0])


def check_budget(config: Config, *, today: date | None = None) -> None:
    """Raise BudgetExhaustedError when today's (UTC) tokens reached provider.daily_token_budget.

    A budget of 0 means no limit. The first refusal of a day is logged once (across processes);
    the next UTC day starts from zero.
    """
    budget = config.provider.daily_token_budget
    if budget <= 0:
        return
    day = today or utc_now().date()
    try:
        spent = tokens_spent(day)
    except sqlite3.Error as exc:
        log_event("error", "usage_error", f"cannot read token usage, budget not enforced: {exc}")
        return
    if spent < budget:
        return
    message = (
        f"daily token budget of {budget} spent ({spent} tokens on {day.isoformat()} UTC);"
        " model calls resume tomorrow"
    )
    try:
        with _connect() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO budget_notices (day, at) VALUES (?, ?)",
                (day.isoformat(), utc_now().isoformat(timespec="seconds")),
            )
            first = cursor.rowcount == 1
    except sqlite3.Error:
        first = True
    if first:
        log_event("warning", "budget_exhausted", message)
    raise BudgetExhaustedError(message)


def _totals(
    conn: sqlite3.Connection, where: str = "", args: tuple[Any, ...] = ()
) -> dict[str, int]:
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0)"
        f" FROM calls {where}",
        args,
    ).fetchone()
    return {"calls": int(row[0]), "input_tokens": int(row[1]), "output_tokens": int(row[2])}


def _grouped(conn: sqlite3.Connection, column: str, limit: int) -> list[dict[str, Any]]:
    order = "day DESC" if column == "day" else "SUM(input_tokens + output_tokens) DESC"
    rows = conn.execute(
        f"SELECT {column}, COUNT(*), SUM(input_tokens), SUM(output_tokens) FROM calls"
        f" GROUP BY {column} ORDER BY {order} LIMIT ?",
        (limit,),
    ).fetchall()
    return [
        {column: r[0], "calls": int(r[1]), "input_tokens": int(r[2]), "output_tokens": int(r[3])}
        for r in rows
    ]


def summarize_usage(
    config: Config | None = None, *, today: date | None = None, days: int = 30
) -> dict[str, Any]:
    """Totals, today, the last `days` days, and per project / model / purpose; plus the budget."""
    day = today or utc_now().date()
    empty = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
    summary: dict[str, Any] = {
        "path": str(paths.usage_path()),
        "total": dict(empty),
        "today": dict(empty, day=day.isoformat()),
        "by_day": [],
        "by_project": [],
        "by_model": [],
        "by_purpose": [],
    }
    if os.path.exists(paths.usage_path()):
        try:
            with _connect() as conn:
                summary["total"] = _totals(conn)
                summary["today"] = dict(
                    _totals(conn, "WHERE day = ?", (day.isoformat(),)), day=day.isoformat()
                )
                summary["by_day"] = _grouped(conn, "day", days)
                summary["by_project"] = _grouped(conn, "project", 100)
                summary["by_model"] = _grouped(conn, "model", 100)
                summary["by_purpose"] = _grouped(conn, "purpose", 100)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read token usage at {paths.usage_path()}: {exc}") from exc
    if config is not None:
        budget = config.provider.daily_token_budget
        spent = summary["today"]["input_tokens"] + summary["today"]["output_tokens"]
        summary["budget"] = {
            "daily_tokens": budget,
            "spent_today": spent,
            "remaining_today": max(0, budget - spent) if budget > 0 else None,
        }
    return summary
