"""One map update: propose ops for the latest exchange, validate, apply, save; retry once.

The glue between a chat map, an exchange and a provider: the local extractor answers in code,
a model provider is asked with the full map view; when every op of a model answer is rejected
the model is asked once more with the reasons. The model call runs outside the map's lock.
Each exchange is applied once: its key (agent and last transcript record) is kept beside the map.
A trivial exchange makes no model call: it waits for the next one (cms.worker.deferred).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from cms.config import Config
from cms.errors import (
    BudgetExhaustedError,
    CorruptMapError,
    MapError,
    MapNotFoundError,
    OpsError,
)
from cms.jsonio import dump_json, parse_json
from cms.log import log_event
from cms.map.model import CorrelationMap, new_map
from cms.map.ops import ApplyReport, apply_answer
from cms.map.render import render_full
from cms.map.store import edit_map, load_map, write_atomically
from cms.providers.base import ModelProvider
from cms.providers.local import extract_ops
from cms.providers.model_calls import ask_for_ops
from cms.supersede import split_supersede
from cms.transcripts.cleanup import LAST_RECORD
from cms.transcripts.exchange import Exchange
from cms.worker.deferred import (
    clear_deferred,
    defer_turn,
    deferred_turns,
    is_trivial,
    with_deferred,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.paths import StrPath

EXCHANGE_CHARS = 12_000
APPLIED_FILE = "applied.json"  # beside map.json: the keys of the exchanges applied to it
APPLIED_KEEP = 256


def exchange_key(exchange: Exchange) -> str | None:
    """What identifies an exchange across repeated Stops: its agent and the id of its last
    transcript record; None when it has none (no transcript: it cannot be told from another)."""
    record = exchange.extra.get(LAST_RECORD)
    return f"{exchange.agent}:{record}" if record else None


def _applied_file(path: StrPath) -> str:
    return os.path.join(os.path.dirname(os.fspath(path)), APPLIED_FILE)


def _applied(path: StrPath, cmap: CorrelationMap) -> list[str]:
    """The keys applied to this very map. A map made afresh (e.g. by `replay --fresh`) has none:
    the file names the map by its creation time and the ids it had drawn (ids only grow)."""
    try:
        with open(_applied_file(path), "rb") as handle:
            data = parse_json(handle.read())
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("map_created_at") != cmap.created_at:
        return []
    drawn = data.get("map_next_id")
    if not isinstance(drawn, int) or cmap.next_id < drawn:
        return []
    keys = data.get("keys")
    return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []


def _remember_applied(path: StrPath, cmap: CorrelationMap, key: str) -> None:
    earlier = [k for k in _applied(path, cmap) if k != key]
    keys = [*earlier[max(0, len(earlier) - APPLIED_KEEP + 1) :], key]
    data = {
        "version": 1,
        "map_created_at": cmap.created_at,
        "map_next_id": cmap.next_id,
        "keys": keys,
    }
    try:
        write_atomically(_applied_file(path), dump_json(data))
    except OSError as exc:  # the map is saved; a lost key only risks one repeat
        log_event("warning", "applied_unsaved", str(exc))


def _remember_keys(path: StrPath, keys: list[str]) -> None:
    """Count these exchanges as applied to the map at path (turns sent with another's answer)."""
    try:
        cmap = load_map(path)
    except MapError:
        return
    for key in keys:
        _remember_applied(path, cmap, key)


def _already_applied(path: StrPath, key: str | None) -> bool:
    if key is None:
        return False
    try:
        return key in _applied(path, load_map(path))
    except MapError:  # no map yet (or a damaged one: applying reports that)
        return False


def _current_map(path: StrPath, session_id: str, project: str) -> CorrelationMap:
    """The chat's map; a new one when it has none, or when its file is corrupt (that file is
    renamed aside for inspection, logged, never overwritten: the chat's memory goes on)."""
    try:
        return load_map(path)
    except MapNotFoundError:
        return new_map(session_id, project)
    except CorruptMapError as exc:
        aside = f"{path}.corrupt-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}"
        try:
            os.replace(path, aside)
        except OSError as moved:
            raise MapError(f"{exc}; and it cannot be set aside: {moved.strerror}") from exc
        log_event("warning", "map_set_aside", f"{exc}; kept as {aside}", session=session_id)
        return new_map(session_id, project)


def _propose_local(cmap: CorrelationMap, exchange: Exchange) -> Any:
    return extract_ops(cmap, exchange)


def _apply(
    path: StrPath,
    answer: Any,
    *,
    config: Config,
    session_id: str,
    project: str,
    turn: int,
    key: str | None = None,
) -> ApplyReport:
    """Apply an answer under the map's lock; with `key`, unless that exchange was applied
    meanwhile (checked under the lock), and remember the key once the map is saved (not when
    every op was rejected: the model is asked again, or the next Stop tries again)."""
    applied_to: list[CorrelationMap] = []

    def change(cmap: CorrelationMap) -> tuple[ApplyReport, bool]:
        if key is not None and key in _applied(path, cmap):
            return ApplyReport(), False
        report = apply_answer(cmap, answer, turn=turn, max_planets=config.map.max_planets)
        applied_to.append(cmap)
        return report, report.changed

    report = edit_map(path, change, session_id=session_id, project=project)
    for reason in report.reasons():
        log_event("warning", "op_rejected", reason, session=session_id)
    if key is not None and applied_to and not report.all_rejected:  # else it is asked again
        _remember_applied(path, applied_to[0], key)
    return report


def update_chat_map(
    path: StrPath,
    exchange: Exchange,
    *,
    config: Config,
    session_id: str,
    project: str,
    provider: ModelProvider | None,
    earlier: Mapping[str, str] | None = None,
    retire: Callable[[list[str]], None] | None = None,
) -> ApplyReport:
    """Update the map at path from one exchange; raise CmsError when nothing could be applied.

    earlier ({id: text}) are related items in force from earlier chats, shown to a model, which
    may supersede them by id (cms.supersede); retire is called with the accepted ids.

    With provider None (or the daily budget spent) the local extractor proposes the ops (the
    report says so: proposed_by "local"). A model
    answer whose every op is rejected (or that is not `{"ops": [...]}`) is asked for once more,
    with the reasons; a second bad answer leaves the map as it was. An exchange already applied
    to this map (the same key, see exchange_key) is skipped: an empty report comes back.
    """
    key = exchange_key(exchange)
    if _already_applied(path, key):
        log_event("info", "exchange_already_applied", str(key), session=session_id)
        return ApplyReport()

    def apply(answer: Any) -> ApplyReport:
        return _apply(
            path,
            answer,
            config=config,
            session_id=session_id,
            project=project,
            turn=exchange.turn,
            key=key,
        )

    def local() -> ApplyReport:
        report = apply(_propose_local(_current_map(path, session_id, project), exchange))
        report.proposed_by = "local"
        return report

    if provider is None:
        return local()
    waiting = deferred_turns(path)
    if key is not None and is_trivial(exchange):
        current = _current_map(path, session_id, project)
        if not _propose_local(current, exchange)["ops"]:  # nothing to keep but the words
            defer_turn(path, key, exchange)
            log_event("info", "trivial_turn_deferred", key, session=session_id)
            return ApplyReport(proposed_by="deferred")
    exchange_text = with_deferred(waiting, exchange.render(EXCHANGE_CHARS))

    offered = dict(earlier or {})
    retired: list[str] = []

    def ask(reasons: list[str] | None) -> Any:
        map_view = render_full(_current_map(path, session_id, project))
        answer = ask_for_ops(
            provider,
            config,
            map_view=map_view,
            exchange_text=exchange_text,
            reasons=reasons,
            project=project,
            earlier=offered,
        )
        answer, accepted, rejected = split_supersede(answer, offered)
        for reason in rejected:
            log_event("warning", "op_rejected", reason, session=session_id)
        retired[:] = accepted
        return answer

    def done(report: ApplyReport) -> ApplyReport:
        if retired and retire is not None:
            retire(list(retired))
        if waiting and not report.all_rejected:  # the waiting turns went with this answer
            sent = [k for k, _text in waiting]
            _remember_keys(path, sent)
            clear_deferred(path, sent)
        return report

    try:
        answer = ask(None)
    except BudgetExhaustedError:
        return local()
    try:
        report = apply(answer)
        if not report.all_rejected:
            return done(report)
        reasons = report.reasons()
    except OpsError as exc:
        reasons = [str(exc)]
    log_event(
        "info", "update_retry", f"answer rejected; asking again: {reasons[0]}", session=session_id
    )
    return done(apply(ask(reasons)))
