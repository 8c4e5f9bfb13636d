"""The worker's team sync: after its jobs (paced by [team] sync_interval_seconds) and when a
chat starts (a `team_sync` job the SessionStart hook queues). Never raises: a server that is
down is logged and tried again later; what was not pushed stays noted in the store.
"""

from __future__ import annotations

import time

from cms.config import Config, team_url
from cms.errors import CmsError
from cms.log import log_event
from cms.team.sync import sync_project


def _paced(cwd: str, config: Config) -> bool:
    """Whether the project's last attempt is too recent for another sync after a job."""
    from cms.observations.access import open_project_memory
    from cms.team.local import get_state

    memory = open_project_memory(cwd, create=False)
    if memory is None:
        return True
    with memory:
        try:
            stamp = memory.store.read(lambda c: get_state(c, "attempt"))
        except CmsError:
            return False
    waited = time.time() - float(stamp) if stamp else float("inf")
    return waited < config.team.sync_interval_seconds


def sync_team(cwd: object, config: Config, *, force: bool) -> str:
    """Sync the project of cwd when a team database is set; a one-line summary."""
    if not team_url(config) or not isinstance(cwd, str) or not cwd:
        return "team sync: no team database"
    try:
        if not force and _paced(cwd, config):
            return "team sync: not due"
        reports = sync_project(cwd, config)
    except CmsError as exc:
        log_event("warning", "team_sync_failed", str(exc))
        return f"team sync failed: {exc}"
    except Exception as exc:  # noqa: BLE001 - the worker's jobs go on without the team
        log_event("error", "team_sync_failed", f"{type(exc).__name__}: {str(exc)[:300]}")
        return f"team sync failed: {type(exc).__name__}"
    summary = "; ".join(report.line() for report in reports)
    log_event("info", "team_synced", summary)
    return f"team sync: {summary}"
