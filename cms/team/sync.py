"""One sync of a store with the team database: push what changed here, then pull what others
stored; and what `cms team status` reports.

A push sends batches of noted items and clears them from the outbox only after the server
committed them (a sync killed between the two sends them again: the server's rows are keyed by
item, so nothing is duplicated). A pull applies what others changed and moves its cursor in one
local transaction (killed midway: applied again next time). One sync per store at a time (a
lock file beside it; a second one waits a little, then gives up). The time of each attempt and
its error are kept in the store's `team_state` for status and for the worker's pacing.
"""

from __future__ import annotations

import os
import time
from functools import partial
from typing import TYPE_CHECKING

from cms import jsonio
from cms.config import team_url
from cms.errors import LockTimeoutError, TeamError
from cms.locking import exclusive_lock
from cms.record import Record
from cms.team import local
from cms.team.identity import machine_id, project_key, user_key
from cms.team.server import START, TeamServer, hidden_password

if TYPE_CHECKING:
    import sqlite3

    from cms.config import Config
    from cms.observations.store import ObservationStore

BATCH = 500
LOCK_WAIT_SECONDS = 30.0


class SyncReport(Record, frozen=True):
    """What one sync of one store did."""

    key: str
    pushed: int = 0
    pulled: int = 0
    busy: bool = False

    def line(self) -> str:
        if self.busy:
            return f"{self.key}: another sync of this store is running"
        return f"{self.key}: pushed {self.pushed}, pulled {self.pulled}"


def sync_store(
    store: ObservationStore,
    key: str,
    url: str,
    *,
    root: str | None = None,
    timeout: float = 5.0,
    wait: float = LOCK_WAIT_SECONDS,
) -> SyncReport:
    """Push then pull one store under the team key; TeamError when the server fails (the time
    and the error are recorded in the store first)."""
    machine = machine_id()
    try:
        with exclusive_lock(f"{store.path}.team", timeout=wait):
            return _sync_locked(store, key, url, machine, timeout, root)
    except LockTimeoutError:
        return SyncReport(key=key, busy=True)


def _sync_locked(
    store: ObservationStore, key: str, url: str, machine: str, timeout: float, root: str | None
) -> SyncReport:
    store.write(lambda c: local.set_state(c, "attempt", f"{time.time():.3f}"))
    try:
        with TeamServer(url, connect_timeout=timeout) as server:
            server.prepare()
            store.write(lambda c: local.enable(c, machine, key))
            pushed = _push(store, server, key, machine)
            if root is not None:
                _push_branches(store, server, key, machine, root)
            pulled = _pull(store, server, key, machine)
        if root is not None:
            _write_branches_elsewhere(store)
    except TeamError as exc:
        message = str(exc)
        store.write(lambda c: local.set_state(c, "error", message))
        raise
    stamp = f"{time.time():.3f}"

    def done(c: sqlite3.Connection) -> None:
        local.set_state(c, "synced", stamp)
        local.set_state(c, "error", None)

    store.write(done)
    return SyncReport(key=key, pushed=pushed, pulled=pulled)


def _push_branches(
    store: ObservationStore, server: TeamServer, key: str, machine: str, root: str
) -> None:
    """This clone's branches, when they changed since the last push (other clones then know
    which of its branches exist: their items are not a deleted branch's)."""
    from cms.observations.scope import read_git_state

    state = read_git_state(root)
    if state is None:
        return
    item = local.branch_item(machine, state.branches)
    text = jsonio.dumps(item.fields)
    if store.read(lambda c: local.get_state(c, "branches")) == text:
        return
    server.push(key, item.machine, [item])
    store.write(lambda c: local.set_state(c, "branches", text))


def _write_branches_elsewhere(store: ObservationStore) -> None:
    from cms.observations.access import TEAM_BRANCHES_NAME
    from cms.privatefile import write_atomically

    tips = store.read(local.branches_elsewhere)
    path = os.path.join(os.path.dirname(store.path), TEAM_BRANCHES_NAME)
    write_atomically(path, jsonio.dumps(tips).encode("utf-8"))


def _push(store: ObservationStore, server: TeamServer, key: str, machine: str) -> int:
    total = 0
    while True:
        outgoing = store.write(lambda c: local.collect(c, machine, BATCH))
        if not outgoing.noted and not outgoing.gone:
            return total
        links = server.push(key, machine, outgoing.items) if outgoing.items else {}
        store.write(partial(local.settle, sent=outgoing, links=links))
        total += len(outgoing.items)


def _pull(store: ObservationStore, server: TeamServer, key: str, machine: str) -> int:
    cursor = store.read(lambda c: local.get_state(c, "cursor")) or START
    items, horizon = server.pull(key, machine, cursor)

    def apply(conn: sqlite3.Connection) -> int:
        changed = local.apply_items(conn, store.project, items)
        local.set_state(conn, "cursor", horizon)
        return changed

    result: int = store.write(apply)
    return result


def sync_project(cwd: str, config: Config) -> list[SyncReport]:
    """Sync the project of cwd (and the user tier when [team] share_user is set)."""
    from cms.observations.access import open_project_memory, open_user_memory

    url = team_url(config)
    if not url:
        raise TeamError("no team database: set [team] url in cms.toml or CMS_TEAM_URL")
    memory = open_project_memory(cwd)
    if memory is None:
        raise TeamError(f"{cwd} is not in a project")
    timeout = config.team.connect_timeout_seconds
    reports = []
    with memory:
        key = project_key(memory.project.root)
        if key is None:
            raise TeamError(
                "the project has no git commit yet: a team project is keyed by its first commit"
            )
        reports.append(
            sync_store(memory.store, key, url, root=memory.project.root, timeout=timeout)
        )
    if config.team.share_user:
        user = user_key(config.team.user)
        mine = open_user_memory(create=True)
        if user is not None and mine is not None:
            with mine:
                reports.append(sync_store(mine.store, user, url, timeout=timeout))
    return reports


def status_lines(store: ObservationStore, url: str) -> list[str]:
    """What `cms team status` prints for one store."""

    def read(conn: sqlite3.Connection) -> tuple[dict[str, str | None], int]:
        keys = ("project", "synced", "attempt", "error")
        return {k: local.get_state(conn, k) for k in keys}, local.pending(conn)

    state, waiting = store.read(read)
    lines = [f"team database: {hidden_password(url) if url else '(not set)'}"]
    lines.append(f"team key: {state['project'] or '(not synced yet)'}")
    lines.append(f"this machine: {machine_id()}")
    lines.append(
        f"pending: {waiting} item(s) not pushed yet"
        if state["project"]
        else "pending: everything (never synced)"
    )
    lines.append(f"last sync: {_ago(state['synced'])}")
    if state["error"]:
        lines.append(f"last error ({_ago(state['attempt'])}): {state['error']}")
    return lines


def _ago(stamp: str | None) -> str:
    if not stamp:
        return "never"
    seconds = max(0.0, time.time() - float(stamp))
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.1f} h ago"
