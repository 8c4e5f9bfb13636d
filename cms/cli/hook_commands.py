"""Commands of the live loop: `cms hook EVENT`, `cms worker`, `cms replay TRANSCRIPT`.

`cms hook` is normally routed by cms.entry straight to the hook runner (no typer); it is listed
here so --help shows it. `cms worker` drains queues in the foreground; `cms replay` builds a
chat map from an existing transcript turn by turn, then captures observations.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from cms import paths
from cms.console import load_command_config, print_json
from cms.errors import ProviderError


def hook(
    event: Annotated[
        str, typer.Argument(help="SessionStart, UserPromptSubmit, Stop, SessionEnd or PreCompact.")
    ],
) -> None:
    """Run one agent hook: JSON payload on stdin, reply (or nothing) on stdout, always exit 0."""
    from cms.hooks.runner import run_hook

    raise typer.Exit(run_hook([event]))


def worker(
    session: Annotated[
        str | None, typer.Option("--session", help="Only this chat (default: every queue).")
    ] = None,
) -> None:
    """Run the queued map updates and captures now, in the foreground, until the queues are empty."""
    from cms.worker import queue
    from cms.worker.drain import run_worker

    result = run_worker(session)
    print(
        f"applied {result.applied} jobs, {result.failed} failed attempts, "
        f"{result.set_aside} set aside"
        + (" (model unavailable: local extractor used)" if result.provider_down else "")
    )
    sessions = [session] if session else queue.queued_sessions()
    left = sum(len(queue.list_jobs(s)) for s in sessions)
    if left:
        print(f"{left} jobs still queued (another worker holds them, or they wait for a retry)")


def _fresh_start(session_id: str) -> None:
    from cms.hooks.indexview import CACHE_NAME
    from cms.hooks.inject import STATE_NAME
    from cms.task.model import FILE_NAME as TASK_NAME

    chat = paths.chat_dir(session_id)
    for name in ("map.json", CACHE_NAME, STATE_NAME, TASK_NAME):
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(chat, name))


def replay(
    transcript: Annotated[Path, typer.Argument(help="A Claude Code .jsonl or Codex rollout.")],
    session: Annotated[
        str | None, typer.Option("--session", help="Chat id for the map (default: file name).")
    ] = None,
    cwd: Annotated[
        Path | None, typer.Option("--cwd", help="Project folder (default: current folder).")
    ] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Start from an empty map.")] = False,
    capture: Annotated[
        bool, typer.Option("--capture/--no-capture", help="Capture observations at the end.")
    ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """Build memory from an existing transcript: the map turn by turn, the current task, then
    observations."""
    from cms.hooks.indexview import warm_index_cache
    from cms.hooks.inject import index_budget, inject_limit
    from cms.hooks.queue import CAPTURE, capture_payload
    from cms.project import identify_project
    from cms.providers.select import make_provider
    from cms.transcripts.reader import read_exchanges
    from cms.worker import queue
    from cms.worker.currenttask import update_task
    from cms.worker.drain import drain_chat
    from cms.worker.projectsync import index_chat_summaries, index_replayed, sync_project_memory
    from cms.worker.update import update_chat_map

    config = load_command_config()
    session_id = session or transcript.stem
    folder = (cwd or Path.cwd()).absolute()
    project = identify_project(folder).id
    exchanges = read_exchanges(transcript)
    if fresh:
        _fresh_start(session_id)
    provider = make_provider(config)
    map_file = paths.map_path(session_id)
    accepted = rejected = fallbacks = 0
    for exchange in exchanges:
        try:
            report = update_chat_map(
                map_file,
                exchange,
                config=config,
                session_id=session_id,
                project=project,
                provider=provider,
            )
        except ProviderError as exc:
            print(
                f"cms: warning: turn {exchange.turn}: {exc}; using the local extractor",
                file=sys.stderr,
            )
            fallbacks += 1
            report = update_chat_map(
                map_file,
                exchange,
                config=config,
                session_id=session_id,
                project=project,
                provider=None,
            )
        accepted += len(report.accepted)
        rejected += len(report.rejected)
    update_task(session_id, exchanges)
    if os.path.exists(map_file):
        warm_index_cache(session_id, index_budget(inject_limit(config.hooks.inject_max_chars)))
        sync_project_memory(
            session_id,
            str(folder),
            exchanges[-1].agent if exchanges else None,
            offline=provider is None,
            prompts={e.turn: e.user for e in exchanges},
        )
        index_replayed(str(folder), session_id, exchanges)
        index_chat_summaries(session_id, str(folder), str(transcript))
    captured = None
    if capture and exchanges:
        queue.enqueue(
            session_id,
            CAPTURE,
            capture_payload(
                project=project,
                cwd=str(folder),
                transcript=str(transcript.absolute()),
                agent=exchanges[-1].agent,
                reason="replay",
            ),
        )
        result = drain_chat(session_id, config, idle=0.0)
        captured = result.applied > 0
    summary = {
        "session": session_id,
        "map": str(map_file),
        "turns": len(exchanges),
        "accepted": accepted,
        "rejected": rejected,
        "local_fallbacks": fallbacks,
        "provider": getattr(provider, "name", "local") if provider is not None else "local",
        "captured": captured,
    }
    if as_json:
        print_json(summary)
        return
    print(f"replayed {len(exchanges)} turns of {transcript} into {map_file}")
    print(f"{accepted} ops accepted, {rejected} rejected (provider: {summary['provider']})")
    if captured is not None:
        print("observations captured" if captured else "observation capture failed (see log)")


def register(app: typer.Typer) -> None:
    app.command()(hook)
    app.command()(worker)
    app.command()(replay)
