"""What a queued job holds and how the worker carries it out.

Two kinds: `map_update` (one turn to fold into the chat map: where the Stop hook saw it end in
the transcript, read here by the worker, or an exchange already read) and `capture` (turn the
session into project observations). Job payloads hold redacted text only, never a raw
transcript. Running a job imports the heavy parts (providers, SDKs); building one does not.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing stays off the hook paths; mypy still reads these imports
if TYPE_CHECKING:
    from typing import Any

    from cms.config import Config
    from cms.transcripts.exchange import Exchange

MAP_UPDATE = "map_update"
CAPTURE = "capture"
SESSION_TEXT_CHARS = 24_000  # the recent exchanges sent to the observe model
RECENT_EXCHANGES = 12


def exchange_to_dict(exchange: Exchange) -> dict[str, Any]:
    return {
        "user": exchange.user,
        "assistant": exchange.assistant,
        "tools": [
            {"name": t.name, "input": t.input, "output": t.output, "is_error": t.is_error}
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


def exchange_from_dict(data: dict[str, Any]) -> Exchange:
    """The exchange stored in a job (tolerant: odd fields become empty)."""
    from cms.transcripts.exchange import Exchange, ToolCall

    tools = []
    for raw in data.get("tools") or []:
        if isinstance(raw, dict):
            tools.append(
                ToolCall(
                    name=_str(raw.get("name"), "?"),
                    input=_str(raw.get("input")),
                    output=_str(raw.get("output")),
                    is_error=raw.get("is_error") is True,
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


def turn_payload(
    *,
    transcript: str | None,
    end: int | None,
    agent: str,
    last_message: str,
    prompt: str,
    project: str,
    cwd: str,
) -> dict[str, Any]:
    """A map_update job for the turn a Stop saw end: where it ends in the transcript (path and
    size), the Stop's last message and the cached prompt, both already redacted. The worker reads
    the turn (exchange_of_job)."""
    turn = {
        "path": transcript,
        "end": end,
        "agent": agent,
        "last_message": last_message,
        "prompt": prompt,
    }
    return {"turn": turn, "project": project, "cwd": cwd}


def capture_payload(
    *, project: str, cwd: str, transcript: str | None, agent: str, reason: str
) -> dict[str, Any]:
    return {
        "project": project,
        "cwd": cwd,
        "transcript": transcript,
        "agent": agent,
        "reason": reason,
    }


# ----------------------------------------------------------------------------- running jobs


def run_map_update(
    session_id: str, payload: dict[str, Any], config: Any, *, force_local: bool = False
) -> str:
    """Fold the job's exchange into the chat map; return a short summary for the log."""
    from cms import paths
    from cms.hooks.indexview import warm_index_cache
    from cms.hooks.inject import index_budget, inject_limit
    from cms.update import update_chat_map

    exchange = exchange_of_job(session_id, payload)
    if exchange is None:
        return "no exchange in the transcript"
    provider = None
    if not force_local:
        from cms.providers.select import make_provider

        provider = make_provider(config)
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
    facts, promoted, marked = sync_project_memory(
        session_id, cwd, exchange.agent, exchange, retired
    )
    via = "local" if provider is None else getattr(provider, "name", "model")
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
    from cms.errors import CmsError, JobError

    turn = payload.get("turn")
    if not isinstance(turn, dict):
        raise JobError("map_update job without an exchange or a turn")
    from cms.hooks.turncount import load_turn_count, save_turn_count
    from cms.log import log_event
    from cms.transcripts.reader import read_latest_exchange

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
    from cms.observations.access import open_project_memory
    from cms.observations.chatsync import related_in_force

    memory = open_project_memory(cwd, create=False) if cwd else None
    if memory is None:
        return {}
    with memory:
        return related_in_force(memory, session_id, f"{exchange.user}\n{exchange.assistant}")


PASSAGE_CHARS = 300
TOOL_CALL_CHARS = 200


def exchange_passages(exchange: Exchange) -> list[tuple[str, str]]:
    """What an exchange said and did, as (speaker, text) passages of whole sentences (at most
    PASSAGE_CHARS each, never a word cut): the prompt, the answer, each tool call (whole when
    short, else its sentences), what each tool returned (as trimmed by the reader) and the files
    touched; questions, narration of the next step and our own injected context are left out.
    Redacted."""
    from cms.excerpt import sentences, split_text
    from cms.observations.wording import is_narration, is_question
    from cms.providers.local.sentences import clean_text
    from cms.transcripts.redact import redact_text

    def statements(text: str) -> list[str]:  # no questions, no narration of the next step
        kept = [s for s in sentences(clean_text(text)) if not is_question(s)]
        return split_text(" ".join(s for s in kept if not is_narration(s)), PASSAGE_CHARS)

    found = [("user", p) for p in statements(exchange.user)]
    found += [("assistant", p) for p in statements(exchange.assistant)]
    for tool in exchange.tools:  # a call whole when short, else its sentences; what it returned
        call = " ".join(f"{tool.name}: {tool.input}".split())
        if len(call) <= TOOL_CALL_CHARS:
            found.append(("tool", call))
        else:
            found += [("tool", p) for p in statements(tool.input)]
        found += [("tool", p) for p in statements(tool.output)]
    if exchange.files:
        found.append(("tool", "Files touched: " + ", ".join(exchange.files)))
    kept = dict.fromkeys((who, redact_text(text)) for who, text in found if len(text.split()) >= 3)
    return list(kept)


def sync_project_memory(
    session_id: str,
    cwd: str,
    agent: str | None,
    exchange: Exchange | None = None,
    retired: list[str] | None = None,
) -> tuple[int, int, int]:
    """Sync the chat's map into its project's fact index and standing rules (see chatsync),
    index what the exchange said and mark the earlier items the update model superseded;
    (facts new or changed, observations stored, items marked), zeros without a map or folder."""
    from cms import paths
    from cms.errors import MapNotFoundError
    from cms.map.store import load_map
    from cms.observations.access import open_project_memory
    from cms.observations.chatsync import sync_chat_memory

    if not cwd:
        return 0, 0, 0
    try:
        cmap = load_map(paths.map_path(session_id))
    except MapNotFoundError:
        return 0, 0, 0
    memory = open_project_memory(cwd, create=True)
    if memory is None:  # pragma: no cover - create=True always opens
        return 0, 0, 0
    with memory:
        if exchange is not None:
            from cms.observations.chatsync import index_exchange

            index_exchange(memory, session_id, exchange.turn, exchange_passages(exchange))
        prompts = {exchange.turn: exchange.user} if exchange is not None else None
        result = sync_chat_memory(memory, cmap, cwd=cwd, agent=agent, prompts=prompts)
        marked = 0
        if retired:
            from cms.observations.chatsync import retire_items

            marked = retire_items(memory, retired, result)
        return len(result.facts), len(result.observations), marked


def update_semantic_index(cwd: str, config: Config) -> int:
    """Compute the vectors the project's new or changed items lack, when the semantic index is
    usable here (the extra and a model installed), and retire what the new items restate or
    change among their semantic neighbours; returns how many vectors were computed."""
    from cms.observations.access import open_project_memory
    from cms.semantic import load_embedder, update_vectors

    embedder = load_embedder(config)
    memory = open_project_memory(cwd, create=False) if embedder is not None else None
    if embedder is None or memory is None:
        return 0
    with memory:
        return update_vectors(memory.store, embedder, supersede=True)


def session_text(session_id: str, transcript: str | None) -> str:
    """What the observe model reads: the chat map in full, then the latest exchanges."""
    import contextlib

    from cms import paths
    from cms.errors import MapNotFoundError
    from cms.map.render import render_full
    from cms.map.store import load_map

    parts = []
    with contextlib.suppress(MapNotFoundError):
        parts += [
            "## Memory map of this session",
            render_full(load_map(paths.map_path(session_id))),
        ]
    if transcript:
        from cms.transcripts.reader import read_exchanges

        recent = read_exchanges(transcript)[-RECENT_EXCHANGES:]
        if recent:
            per = max(1000, SESSION_TEXT_CHARS // len(recent))
            parts.append("## Latest exchanges")
            parts += [e.render(per) for e in recent]
    return "\n\n".join(parts)
