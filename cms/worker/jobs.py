"""How the worker carries out a queued job (cms.hooks.queue writes them).

Three kinds: `map_update` (one turn to fold into the chat map: read here from where the Stop hook
saw it end in the transcript, or an exchange already read), `capture` (cms.worker.capture) and
`team_sync` (cms.worker.teamsync).
Job payloads hold redacted text only, never a raw transcript. Raises on failure: the drain loop
(cms.worker.drain) counts, retries and logs.
"""

from __future__ import annotations

from typing import Any

from cms import paths
from cms.config import Config
from cms.errors import CmsError, JobError
from cms.hooks.indexview import warm_index_cache
from cms.hooks.inject import index_budget, inject_limit
from cms.hooks.queue import CAPTURE, MAP_UPDATE, TEAM_SYNC
from cms.log import log_event
from cms.observations.access import open_project_memory
from cms.observations.chatsync import related_in_force
from cms.providers.select import make_provider
from cms.transcripts.exchange import Exchange, ToolCall
from cms.transcripts.reader import read_latest_exchange
from cms.worker.capture import run_capture
from cms.worker.currenttask import update_task
from cms.worker.projectsync import sync_project_memory
from cms.worker.queue import Job
from cms.worker.teamsync import sync_team
from cms.worker.turncount import load_turn_count, save_turn_count
from cms.worker.update import update_chat_map


def run_job(job: Job, config: Config, *, force_local: bool = False) -> str:
    """Carry out one job; return a one-line summary. Raises on failure."""
    if job.kind == MAP_UPDATE:
        return run_map_update(job.session_id, job.payload, config, force_local=force_local)
    if job.kind == CAPTURE:
        return run_capture(job.session_id, job.payload, config, force_local=force_local)
    if job.kind == TEAM_SYNC:
        return sync_team(job.payload.get("cwd"), config, force=True)
    raise JobError(f"unknown job kind {job.kind!r}")


def exchange_to_dict(exchange: Exchange) -> dict[str, Any]:
    return {
        "user": exchange.user,
        "assistant": exchange.assistant,
        "tools": [
            {
                "name": t.name,
                "input": t.input,
                "output": t.output,
                "is_error": t.is_error,
                **({"replaced": [list(pair) for pair in t.replaced]} if t.replaced else {}),
            }
            for t in exchange.tools
        ],
        "files": list(exchange.files),
        "turn": exchange.turn,
        "timestamp": exchange.timestamp,
        "agent": exchange.agent,
        "extra": dict(exchange.extra),
    }


def _str(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    """A list of two-string lists as pairs; anything else left out."""
    if not isinstance(value, list):
        return ()
    return tuple(
        (pair[0], pair[1])
        for pair in value
        if isinstance(pair, list | tuple)
        and len(pair) == 2
        and all(isinstance(side, str) for side in pair)
    )


def exchange_from_dict(data: dict[str, Any]) -> Exchange:
    """The exchange stored in a job (tolerant: odd fields become empty)."""
    tools = []
    for raw in data.get("tools") or []:
        if isinstance(raw, dict):
            tools.append(
                ToolCall(
                    name=_str(raw.get("name"), "?"),
                    input=_str(raw.get("input")),
                    output=_str(raw.get("output")),
                    is_error=raw.get("is_error") is True,
                    replaced=_pairs(raw.get("replaced")),
                )
            )
    extra = data.get("extra")
    turn = data.get("turn")
    return Exchange(
        user=_str(data.get("user")),
        assistant=_str(data.get("assistant")),
        tools=tuple(tools),
        files=tuple(f for f in data.get("files") or [] if isinstance(f, str)),
        turn=turn if isinstance(turn, int) and not isinstance(turn, bool) else 0,
        timestamp=data.get("timestamp") if isinstance(data.get("timestamp"), str) else None,
        agent=_str(data.get("agent"), "claude_code"),
        extra={k: v for k, v in extra.items() if isinstance(v, str)}
        if isinstance(extra, dict)
        else {},
    )


def map_update_payload(exchange: Exchange, *, project: str, cwd: str) -> dict[str, Any]:
    """A map_update job for an exchange already read (and so redacted) by the transcript reader
    (the form earlier versions queued; tests queue it too)."""
    return {"exchange": exchange_to_dict(exchange), "project": project, "cwd": cwd}


def run_map_update(
    session_id: str, payload: dict[str, Any], config: Config, *, force_local: bool = False
) -> str:
    """Fold the job's exchange into the chat's current task and map; return a short summary
    for the log."""
    exchange = exchange_of_job(session_id, payload)
    if exchange is None:
        return "no exchange in the transcript"
    update_task(session_id, [exchange])
    provider = None if force_local else make_provider(config)
    cwd = _str(payload.get("cwd"))
    retired: list[str] = []
    report = update_chat_map(
        paths.map_path(session_id),
        exchange,
        config=config,
        session_id=session_id,
        project=_str(payload.get("project")),
        provider=provider,
        earlier=earlier_items(session_id, cwd, exchange) if provider is not None else None,
        retire=retired.extend,
    )
    warm_index_cache(session_id, index_budget(inject_limit(config.hooks.inject_max_chars)))
    offline = provider is None or report.proposed_by == "local"  # no model, or budget spent
    facts, promoted, marked = sync_project_memory(
        session_id, cwd, exchange.agent, exchange, retired, offline=offline
    )
    via = "local" if offline else getattr(provider, "name", "model")
    via = "deferred (a trivial turn)" if report.proposed_by == "deferred" else via
    return (
        f"turn={exchange.turn} via={via} accepted={len(report.accepted)} "
        f"rejected={len(report.rejected)} indexed={facts} promoted={promoted} superseded={marked}"
    )


def exchange_of_job(session_id: str, payload: dict[str, Any]) -> Exchange | None:
    """The job's exchange: as queued, or read now from where the Stop hook saw its turn end
    ({"path", "end", "agent", "last_message", "prompt"}). The chat's prompt count is carried
    between jobs, so only the transcript's new part is scanned. None when no turn is there."""
    exchange_data = payload.get("exchange")
    if isinstance(exchange_data, dict):
        return exchange_from_dict(exchange_data)
    turn = payload.get("turn")
    if not isinstance(turn, dict):
        raise JobError("map_update job without an exchange or a turn")
    path, end = turn.get("path"), turn.get("end")
    counted = load_turn_count(session_id)
    kept = counted.to_json()
    try:
        found = read_latest_exchange(
            path if isinstance(path, str) and path else None,
            _str(turn.get("last_message")) or None,
            agent="codex" if turn.get("agent") == "codex" else "claude_code",
            memo=counted,
            end=end if isinstance(end, int) and not isinstance(end, bool) else None,
        )
    except (CmsError, OSError) as exc:
        log_event("warning", "transcript_unreadable", str(exc), session=session_id)
        return None
    if counted.to_json() != kept:
        save_turn_count(session_id, counted)
    prompt = _str(turn.get("prompt"))
    if found is not None and not found.user and prompt:  # not flushed to the transcript yet
        found = found.replace(user=prompt)
    return found


def earlier_items(session_id: str, cwd: str, exchange: Exchange) -> dict[str, str]:
    """The related items in force from the project's earlier chats, offered to the update
    model to supersede ({} without a project store)."""
    memory = open_project_memory(cwd, create=False) if cwd else None
    if memory is None:
        return {}
    with memory:
        return related_in_force(memory, session_id, f"{exchange.user}\n{exchange.assistant}")
