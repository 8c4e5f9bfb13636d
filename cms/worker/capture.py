"""The capture job: turn a session into project observations (at SessionEnd and PreCompact;
at PreCompact the chat's current task is first brought up to date, cms.worker.currenttask), the
user's own preferences into the user tier.

With a model provider the observe model reads the chat map and the latest exchanges; without
one the transcript's turns no Stop folded in are folded into the map first (a session whose
Stops never ran still leaves memory), then the observations are derived from the map in code.
Either way the candidates go through the observation store's own capture step.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from cms import paths
from cms.config import Config
from cms.errors import CmsError, JobError, MapNotFoundError
from cms.log import log_event
from cms.map.model import CorrelationMap
from cms.map.render import render_full
from cms.map.store import load_map
from cms.observations.access import open_project_memory
from cms.observations.capture import capture_with_outcomes, observations_from_map
from cms.observations.chatsync import SyncResult, related_in_force, retire_items
from cms.observations.matching import tidy_text_indexes
from cms.observations.model import NewObservation
from cms.observations.personal import capture_personal, split_personal
from cms.providers.model_calls import ask_for_observations
from cms.providers.select import make_provider
from cms.transcripts.reader import read_exchanges
from cms.worker.currenttask import catch_up_task
from cms.worker.projectsync import index_chat_summaries, sync_project_memory
from cms.worker.update import APPLIED_KEEP, update_chat_map

SESSION_TEXT_CHARS = 24_000  # the recent exchanges sent to the observe model
RECENT_EXCHANGES = 12


def _map_or_none(session_id: str) -> CorrelationMap | None:
    try:
        return load_map(paths.map_path(session_id))
    except MapNotFoundError:
        return None


def session_text(session_id: str, transcript: str | None) -> str:
    """What the observe model reads: the chat map in full, then the latest exchanges."""
    parts = []
    with suppress(MapNotFoundError):
        parts += [
            "## Memory map of this session",
            render_full(load_map(paths.map_path(session_id))),
        ]
    if transcript:
        recent = read_exchanges(transcript)[-RECENT_EXCHANGES:]
        if recent:
            per = max(1000, SESSION_TEXT_CHARS // len(recent))
            parts.append("## Latest exchanges")
            parts += [e.render(per) for e in recent]
    return "\n\n".join(parts)


def _prompts(session_id: str, transcript: str | None) -> dict[int, str]:
    """The user's prompt by turn, from the transcript (none when there is none or it cannot
    be read: logged)."""
    if not transcript:
        return {}
    try:
        return {e.turn: e.user for e in read_exchanges(transcript)}
    except (CmsError, OSError) as exc:
        log_event("warning", "transcript_unreadable", str(exc), session=session_id)
        return {}


def fold_unfolded_turns(session_id: str, transcript: str, config: Config, project: str) -> int:
    """Fold into the chat map, with the local extractor, the transcript's turns that no Stop
    folded in (among its latest APPLIED_KEEP: those applied already are skipped by key);
    return how many changed the map. An unreadable transcript is logged and folds nothing."""
    try:
        exchanges = read_exchanges(transcript)
    except (CmsError, OSError) as exc:
        log_event("warning", "transcript_unreadable", str(exc), session=session_id)
        return 0
    folded = 0
    for exchange in [e for e in exchanges if e.turn > 0][-APPLIED_KEEP:]:
        try:
            report = update_chat_map(
                paths.map_path(session_id),
                exchange,
                config=config,
                session_id=session_id,
                project=project,
                provider=None,
            )
        except CmsError as exc:  # one bad turn does not lose the others
            log_event("warning", "capture_fold_failed", str(exc)[:300], session=session_id)
            continue
        folded += bool(report.accepted)
    return folded


def run_capture(
    session_id: str, payload: dict[str, Any], config: Config, *, force_local: bool = False
) -> str:
    """Capture observations for the session (at PreCompact, after bringing the chat's current
    task up to date); return a one-line summary for the log."""
    transcript = payload.get("transcript")
    transcript = transcript if isinstance(transcript, str) and transcript else None
    reason = payload.get("reason")
    if transcript and isinstance(reason, str) and reason.startswith("PreCompact"):
        catch_up_task(session_id, transcript)
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        raise JobError("capture job without a cwd")
    agent = payload.get("agent") if isinstance(payload.get("agent"), str) else "claude_code"
    provider = None if force_local else make_provider(config)
    if provider is None and transcript:
        project_name = payload.get("project")
        project_name = project_name if isinstance(project_name, str) else ""
        fold_unfolded_turns(session_id, transcript, config, project_name)
    prompts = _prompts(session_id, transcript) if provider is None else None
    # the fact index is whole before capture
    sync_project_memory(session_id, cwd, agent, offline=provider is None, prompts=prompts)
    if transcript:  # what the agent wrote of the turns it compacted away stays searchable
        index_chat_summaries(session_id, cwd, transcript)
    memory = open_project_memory(cwd, create=True)
    if memory is None:  # pragma: no cover - create=True always opens
        return "no store"
    replaces: dict[int, list[str]] = {}  # id() of a candidate: the offered ids it replaces
    with memory:
        if provider is None:
            cmap = _map_or_none(session_id)
            candidates = (
                observations_from_map(cmap, prompts=prompts, offline=True)
                if cmap is not None
                else []
            )
            via = "local"
        else:
            text = session_text(session_id, transcript)
            if not text.strip():
                return "nothing to capture"
            offered = related_in_force(memory, session_id, text)
            items = ask_for_observations(
                provider, config, session_text=text, project=memory.project.id, offered=offered
            )
            candidates = []
            for item in items:
                candidate = NewObservation(
                    kind=item["kind"],
                    title=item["title"],
                    body=item.get("body", ""),
                    files=tuple(item.get("files", ())),
                    importance=int(item.get("importance", 3)),
                )
                replaces[id(candidate)] = list(item.get("replaces", ()))
                candidates.append(candidate)
            via = getattr(provider, "name", "model")
        if not candidates:
            return f"via={via} candidates=0"
        project, personal = split_personal(candidates)
        outcomes = capture_with_outcomes(
            memory.store, project, session=session_id, agent=agent, cwd=cwd
        )
        stored = [o.id for o in outcomes if o.status != "duplicate"]
        retired = sum(
            retire_items(memory, replaces[id(candidate)], SyncResult([], [outcome.id]))
            for candidate, outcome in zip(project, outcomes, strict=False)
            if replaces.get(id(candidate))
        )
        memory.store.write(tidy_text_indexes)
    mine = capture_personal(personal, session=session_id, agent=agent)
    kept = sum(o.status != "duplicate" for o in mine)
    return (
        f"via={via} candidates={len(candidates)} stored={len(stored)} personal={kept} "
        f"replaced={retired}"
    )
