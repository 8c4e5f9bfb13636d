"""One map update: propose ops for the latest exchange, validate, apply, save; retry once.

The glue between a chat map, an exchange and a provider: the local extractor answers in code,
a model provider is asked with the full map view; when every op of a model answer is rejected
the model is asked once more with the reasons. The model call runs outside the map's lock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cms.config import Config
from cms.errors import BudgetExhaustedError, MapNotFoundError, OpsError
from cms.log import log_event
from cms.map.model import CorrelationMap, new_map
from cms.map.ops import ApplyReport, apply_answer
from cms.map.render import render_full
from cms.map.store import edit_map, load_map
from cms.providers.base import ModelProvider
from cms.transcripts.exchange import Exchange

EXCHANGE_CHARS = 12_000


def _current_map(path: Path, session_id: str, project: str) -> CorrelationMap:
    try:
        return load_map(path)
    except MapNotFoundError:
        return new_map(session_id, project)


def _propose_local(cmap: CorrelationMap, exchange: Exchange) -> Any:
    from cms.providers.local import extract_ops

    return extract_ops(cmap, exchange)


def _apply(
    path: Path, answer: Any, *, config: Config, session_id: str, project: str, turn: int
) -> ApplyReport:
    def change(cmap: CorrelationMap) -> tuple[ApplyReport, bool]:
        report = apply_answer(cmap, answer, turn=turn, max_planets=config.map.max_planets)
        return report, report.changed

    report = edit_map(path, change, session_id=session_id, project=project)
    for reason in report.reasons():
        log_event("warning", "op_rejected", reason, session=session_id)
    return report


def update_chat_map(
    path: Path,
    exchange: Exchange,
    *,
    config: Config,
    session_id: str,
    project: str,
    provider: ModelProvider | None,
) -> ApplyReport:
    """Update the map at path from one exchange; raise CmsError when nothing could be applied.

    With provider None (or the daily budget spent) the local extractor proposes the ops. A model
    answer whose every op is rejected (or that is not `{"ops": [...]}`) is asked for once more,
    with the reasons; a second bad answer leaves the map as it was.
    """

    def apply(answer: Any) -> ApplyReport:
        return _apply(
            path, answer, config=config, session_id=session_id, project=project, turn=exchange.turn
        )

    if provider is None:
        return apply(_propose_local(_current_map(path, session_id, project), exchange))
    from cms.providers.model_calls import ask_for_ops

    exchange_text = exchange.render(EXCHANGE_CHARS)

    def ask(reasons: list[str] | None) -> Any:
        map_view = render_full(_current_map(path, session_id, project))
        return ask_for_ops(
            provider,
            config,
            map_view=map_view,
            exchange_text=exchange_text,
            reasons=reasons,
            project=project,
        )

    try:
        answer = ask(None)
    except BudgetExhaustedError:
        return apply(_propose_local(_current_map(path, session_id, project), exchange))
    try:
        report = apply(answer)
        if not report.all_rejected:
            return report
        reasons = report.reasons()
    except OpsError as exc:
        reasons = [str(exc)]
    log_event(
        "info", "update_retry", f"answer rejected; asking again: {reasons[0]}", session=session_id
    )
    return apply(ask(reasons))
