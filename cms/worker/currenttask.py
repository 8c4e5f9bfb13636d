"""The worker's side of the chat's current task (cms.task): folding in each exchange a map_update
job reads, and at PreCompact the transcript's turns that no Stop folded in.

An exchange is folded in once: the task keeps the turn and key (cms.worker.update.exchange_key)
of the last one, so a repeated Stop or a turn PreCompact already read changes nothing twice.
A failure here is logged and never fails the job: the map update and capture go on.
"""

from __future__ import annotations

from collections.abc import Sequence

from cms.errors import CmsError
from cms.log import log_event
from cms.map.model import utc_now
from cms.task.derive import fold
from cms.task.model import CurrentTask, load_task, save_task
from cms.transcripts.exchange import Exchange
from cms.transcripts.reader import read_exchanges
from cms.worker.update import exchange_key

CATCH_UP_TURNS = 20  # at most this many unfolded turns are read at PreCompact (the latest)


def is_unfolded(task: CurrentTask, exchange: Exchange) -> bool:
    """Whether the exchange is newer than what the task was last brought up to date from: a
    later turn, or the same turn read further (another key). Without turn numbers either way
    (no transcript) it counts as new: folding an exchange twice only repeats what it said."""
    if exchange.turn <= 0 or task.turn <= 0:
        return True
    if exchange.turn != task.turn:
        return exchange.turn > task.turn
    key = exchange_key(exchange)
    return key is None or key != task.key


def fold_exchanges(session_id: str, exchanges: Sequence[Exchange]) -> bool:
    """Fold the exchanges not yet folded into the chat's task, in order, and save it when it
    changed (never an empty one). Returns whether it was saved; raises OSError, CmsError."""
    before = load_task(session_id) or CurrentTask()
    task = before
    for exchange in exchanges:
        if not is_unfolded(task, exchange):
            continue
        task = fold(task, exchange).replace(
            turn=exchange.turn or task.turn,
            key=exchange_key(exchange) or "",
            updated_at=utc_now(),
        )
    if task == before or task.is_empty():
        return False
    save_task(session_id, task)
    return True


def update_task(session_id: str, exchanges: Sequence[Exchange]) -> None:
    """fold_exchanges for a job: a failure is logged, never raised."""
    try:
        fold_exchanges(session_id, exchanges)
    except Exception as exc:  # noqa: BLE001 - the task is a side record: the job goes on
        detail = f"{type(exc).__name__}: {exc}"
        log_event("warning", "task_update_failed", detail[:300], session=session_id)


def catch_up_task(session_id: str, transcript: str) -> None:
    """Bring the task up to date from the transcript's turns that no Stop folded in (at
    PreCompact: a turn still running, or one that was interrupted), among its latest
    CATCH_UP_TURNS turns. An unreadable transcript is logged."""
    try:
        exchanges = read_exchanges(transcript)
    except (CmsError, OSError) as exc:
        log_event("warning", "transcript_unreadable", str(exc), session=session_id)
        return
    turns = [e for e in exchanges if e.turn > 0]  # turn 0: what precedes the first prompt
    update_task(session_id, turns[-CATCH_UP_TURNS:])  # those folded in already are skipped
