"""What each hook event does (DESIGN.md section 4); returns the reply text or None.

SessionStart and UserPromptSubmit inject (index, briefing, relevant observations) and record
what the chat was shown; Stop, SessionEnd and PreCompact only queue a job and make sure a worker
runs. No model call and no heavy import happens here; errors reach the runner's boundary.
"""

from __future__ import annotations

import json
import os

from cms import paths
from cms.errors import CmsError
from cms.log import log_event

TYPE_CHECKING = False  # typing stays off the hook path; mypy still reads these imports
if TYPE_CHECKING:
    from cms.config import Config
    from cms.hooks.events import HookEvent
    from cms.hooks.indexview import IndexView

PROMPT_CACHE = "last-prompt.json"
IN_FORCE_HEADING = "[Project rules and decisions in force (newest version; ids for `cms get`)]"
BRIEFING_HEADING = "[Project observations from earlier sessions]"
RECALL_HEADING = "[Project memory that may be relevant to this prompt]"


def handle_event(event: HookEvent, config: Config) -> str | None:
    """Run the event's handler; subagent payloads (agent_id) are left alone."""
    if event.agent_id:
        return None
    handler = _HANDLERS.get(event.name)
    return handler(event, config) if handler else None


def _index_view(session_id: str, limit: int) -> IndexView | None:
    from cms.hooks import inject
    from cms.hooks.indexview import load_index_view

    try:
        return load_index_view(session_id, inject.index_budget(limit))
    except (CmsError, OSError) as exc:
        log_event("warning", "map_unreadable", str(exc), session=session_id)
        return None


def _shown_ids(notes: list[tuple[tuple[str, ...], str]], context: str) -> list[str]:
    """The ids (a note may have several) of the notes that made it in."""
    return [i for note_ids, line in notes if line in context for i in note_ids]


def session_start(event: HookEvent, config: Config) -> str | None:
    """Inject the map index (if any), the project's rules in force and the briefing; remember
    what was shown and the folder the chat runs in."""
    from cms.hooks import inject
    from cms.hooks.projectnotes import start_notes

    limit = inject.inject_limit(config.hooks.inject_max_chars)
    view = _index_view(event.session_id, limit)
    rules, notes = start_notes(event.cwd, config.hooks.in_force_chars, config.hooks.briefing_limit)
    sections = []
    if view is not None and view.text:
        sections.append(inject.index_section(view))
    sections.append(inject.observation_section(IN_FORCE_HEADING, [line for _, line in rules]))
    sections.append(inject.observation_section(BRIEFING_HEADING, [line for _, line in notes]))
    context = inject.compose_context(sections, event.session_id, limit)
    before = inject.load_state(event.session_id)  # a resumed or compacted chat keeps its log
    state = inject.InjectionState(
        index=view.text if view is not None and context else "",
        entries=view.entries if view is not None and context else {},
        shown=_shown_ids(rules + notes, context),
        cwd=event.cwd,
        first=before.first,
        log=before.log,
    )
    if context:
        state.record("SessionStart", context, state.shown)
    inject.save_state(event.session_id, state)
    return inject.hook_reply("SessionStart", context) if context else None


def user_prompt_submit(event: HookEvent, config: Config) -> str | None:
    """Inject the index when its subtopics changed since this chat last got it (the new and
    archived ones only), plus the project's facts and observations relevant to the prompt that
    the chat has not been shown yet."""
    from cms.hooks import inject
    from cms.hooks.projectnotes import relevant_notes

    state = inject.load_state(event.session_id)
    named = False
    if event.prompt:  # Stop falls back on it when the transcript lacks the prompt
        prompt = _cache_prompt(event)
        if not state.first and prompt.strip():
            from cms.excerpt import fit_text

            first = fit_text(prompt, inject.FIRST_PROMPT_CHARS)  # one huge word: left unnamed
            state.first, named = first if len(first) <= 2 * inject.FIRST_PROMPT_CHARS else "", True
    limit = inject.inject_limit(config.hooks.inject_max_chars)
    view = _index_view(event.session_id, limit)
    sections = []
    index_changed = False
    if view is not None and view.text:
        if not state.index:  # this chat has never been shown the index
            index_changed = True
            sections.append(inject.index_section(view))
        elif inject.structure_changed(state.entries, view):
            index_changed = True
            sections.append(inject.delta_section(state.entries, view))
    notes = relevant_notes(
        event.cwd,
        event.prompt,
        config.hooks.recall_limit,
        min_relevance=config.observations.min_relevance,
        shown=set(state.shown),
        session=event.session_id,
    )
    sections.append(inject.observation_section(RECALL_HEADING, [line for _, line in notes]))
    if not state.cwd and event.cwd:
        state.cwd, named = event.cwd, True
    context = inject.compose_context(sections, event.session_id, limit) if any(sections) else ""
    if not context:
        if named:
            inject.save_state(event.session_id, state)
        return None
    if view is not None and index_changed:
        state.index, state.entries = view.text, view.entries
    ids = _shown_ids(notes, context)
    state.shown += ids
    state.record("UserPromptSubmit", context, ids)
    inject.save_state(event.session_id, state)
    return inject.hook_reply("UserPromptSubmit", context)


def _cache_prompt(event: HookEvent) -> str:
    """Keep the (redacted) prompt for Stop: some Codex runs give no transcript, and a Stop may
    come before the CLI has written the prompt to it. Returns the redacted prompt."""
    from cms.hooks.statefile import write_state
    from cms.transcripts.redact import redact_text

    prompt = redact_text(event.prompt)
    path = os.path.join(paths.chat_dir_str(event.session_id), PROMPT_CACHE)
    write_state(path, {"prompt": prompt})
    return prompt


def cached_prompt(session_id: str) -> str:
    """The chat's latest prompt as UserPromptSubmit cached it (redacted); "" when none."""
    try:
        with open(
            os.path.join(paths.chat_dir_str(session_id), PROMPT_CACHE), encoding="utf-8"
        ) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return ""
    prompt = data.get("prompt") if isinstance(data, dict) else None
    return prompt if isinstance(prompt, str) else ""


def stop(event: HookEvent, config: Config) -> None:
    """Queue the turn that just ended for the map updater and make sure a worker runs: where it
    ends in the transcript (its size now), the Stop's last message (cleaned and redacted) and the
    prompt cached at UserPromptSubmit. The transcript itself is never read here (the worker reads
    the turn), so a Stop costs the same on any transcript. Prints nothing."""
    from cms.hooks import jobs, queue
    from cms.hooks.launch import ensure_worker
    from cms.project import identify_project
    from cms.transcripts.cleanup import ASSISTANT_LIMIT, clean_text

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
    payload = jobs.turn_payload(
        transcript=path,
        end=end,
        agent="codex" if event.agent == "codex" else "claude_code",
        last_message=message,
        prompt=cached_prompt(event.session_id),
        project=identify_project(event.cwd).id,
        cwd=event.cwd,
    )
    queue.add_job(event.session_id, jobs.MAP_UPDATE, payload)
    ensure_worker(event.session_id)
    return None


def queue_capture(event: HookEvent, config: Config) -> None:
    """SessionEnd and PreCompact: queue observation capture for the session. Prints nothing."""
    from cms.hooks import jobs, queue
    from cms.hooks.launch import ensure_worker
    from cms.project import identify_project

    payload = jobs.capture_payload(
        project=identify_project(event.cwd).id,
        cwd=event.cwd,
        transcript=event.transcript_path,
        agent=event.agent,
        reason=f"{event.name}:{event.reason}" if event.reason else event.name,
    )
    queue.add_job(event.session_id, jobs.CAPTURE, payload)
    ensure_worker(event.session_id)
    return None


_HANDLERS = {
    "SessionStart": session_start,
    "UserPromptSubmit": user_prompt_submit,
    "Stop": stop,
    "SessionEnd": queue_capture,
    "PreCompact": queue_capture,
}
