"""The Stop hook: queue the turn that just ended for the map updater; make sure a worker runs.

Records where the turn ends in the transcript (its size now), the Stop's last message (cleaned
and redacted) and the prompt cached at UserPromptSubmit. The transcript itself is never read
here (the worker reads the turn), so a Stop costs the same on any transcript. Prints nothing.
"""

from __future__ import annotations

import os

from cms.hooks.launch import ensure_worker
from cms.hooks.promptcache import cached_prompt
from cms.hooks.queue import MAP_UPDATE, add_job, turn_payload
from cms.log import log_event
from cms.project import identify_project
from cms.transcripts.cleanup import ASSISTANT_LIMIT, clean_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.config import Config
    from cms.hooks.events import HookEvent


def handle(event: HookEvent, config: Config) -> None:
    """Queue the turn (when there is one) and start a worker unless one runs."""
    path = event.transcript_path or None
    end = None
    if path is not None:
        try:
            end = os.stat(path).st_size  # never opened here: the worker refuses a non-file
        except OSError as exc:
            log_event("warning", "transcript_unreadable", str(exc), session=event.session_id)
            path = None
    message = clean_text(event.last_assistant_message or "", ASSISTANT_LIMIT, 0.3)
    if path is None and not message:
        log_event("debug", "no_exchange", session=event.session_id)
        return None
    payload = turn_payload(
        transcript=path,
        end=end,
        agent="codex" if event.agent == "codex" else "claude_code",
        last_message=message,
        prompt=cached_prompt(event.session_id),
        project=identify_project(event.cwd).id,
        cwd=event.cwd,
    )
    add_job(event.session_id, MAP_UPDATE, payload)
    ensure_worker(event.session_id)
    return None
