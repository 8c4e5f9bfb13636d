"""The capture job: turn a session into project observations (at SessionEnd and PreCompact).

With a model provider the observe model reads the chat map and the latest exchanges; without
one (or when the model fails on the last attempt) the observations are derived from the map in
code. Either way the candidates go through the observation store's own capture step.
"""

from __future__ import annotations

from typing import Any

from cms.hooks.jobs import session_text, sync_project_memory


def _map_or_none(session_id: str) -> Any:
    from cms import paths
    from cms.errors import MapNotFoundError
    from cms.map.store import load_map

    try:
        return load_map(paths.map_path(session_id))
    except MapNotFoundError:
        return None


def run_capture(
    session_id: str, payload: dict[str, Any], config: Any, *, force_local: bool = False
) -> str:
    """Capture observations for the session; return a one-line summary for the log."""
    from cms.errors import JobError
    from cms.observations.access import open_project_memory
    from cms.observations.capture import capture_observations, observations_from_map
    from cms.observations.model import NewObservation

    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        raise JobError("capture job without a cwd")
    transcript = payload.get("transcript")
    transcript = transcript if isinstance(transcript, str) and transcript else None
    agent = payload.get("agent") if isinstance(payload.get("agent"), str) else "claude_code"
    provider = None
    if not force_local:
        from cms.providers.select import make_provider

        provider = make_provider(config)
    sync_project_memory(session_id, cwd, agent)  # the fact index is whole before capture
    memory = open_project_memory(cwd, create=True)
    if memory is None:  # pragma: no cover - create=True always opens
        return "no store"
    with memory:
        if provider is None:
            cmap = _map_or_none(session_id)
            candidates = observations_from_map(cmap) if cmap is not None else []
            via = "local"
        else:
            from cms.providers.model_calls import ask_for_observations

            text = session_text(session_id, transcript)
            if not text.strip():
                return "nothing to capture"
            items = ask_for_observations(
                provider, config, session_text=text, project=memory.project.id
            )
            candidates = [
                NewObservation(
                    kind=item["kind"],
                    title=item["title"],
                    body=item.get("body", ""),
                    files=tuple(item.get("files", ())),
                    importance=int(item.get("importance", 3)),
                )
                for item in items
            ]
            via = getattr(provider, "name", "model")
        if not candidates:
            return f"via={via} candidates=0"
        stored = capture_observations(
            memory.store, candidates, session=session_id, agent=agent, cwd=cwd
        )
    return f"via={via} candidates={len(candidates)} stored={len(stored)}"
