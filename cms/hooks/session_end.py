"""The SessionEnd and PreCompact hooks: queue observation capture for the session; make sure a
worker runs. The transcript is read by the worker, never here. Prints nothing.
"""

from __future__ import annotations

from cms.hooks.launch import ensure_worker
from cms.hooks.queue import CAPTURE, add_job, capture_payload
from cms.project import identify_project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.config import Config
    from cms.hooks.events import HookEvent


def handle(event: HookEvent, config: Config) -> None:
    """Queue a capture job (its reason: the event and its trigger) and start a worker."""
    payload = capture_payload(
        project=identify_project(event.cwd).id,
        cwd=event.cwd,
        transcript=event.transcript_path,
        agent=event.agent,
        reason=f"{event.name}:{event.reason}" if event.reason else event.name,
    )
    add_job(event.session_id, CAPTURE, payload)
    ensure_worker(event.session_id)
    return None
