"""The SessionStart hook (startup, resume, clear, compact): what a chat is shown first.

Injects, after compaction or on resume, the chat's current task first (what it was doing and
what comes next), then the map index (if any), the project's rules in force and the briefing
(when the project has a memory but none of these, a line saying so, so that the search command
still reaches the chat), and records what was shown and the folder the chat runs in; with a
team database, queues a sync for the worker. No model call; errors reach the runner.
"""

from __future__ import annotations

from cms.config import team_url
from cms.hooks import inject
from cms.hooks.indexview import readable_index_view
from cms.hooks.projectnotes import start_notes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.config import Config
    from cms.hooks.events import HookEvent

IN_FORCE_HEADING = "[Project rules and decisions in force (newest version; ids for `cms get`)]"
BRIEFING_HEADING = "[Project observations from earlier sessions]"
SEARCHABLE = (  # a project with a memory but nothing to push: the search command still reaches it
    "[Project memory]",
    "Earlier chats of this project are stored; nothing of them is pushed here. Search them"
    " before asking the user something that may have been said already.",
)
TASK_SOURCES = ("compact", "resume")  # a chat that goes on; startup and clear begin anew


def task_section(session_id: str) -> list[str]:
    """The chat's current task as a section (heading first), or [] when it has none."""
    from cms.task.model import load_task, task_heading, task_lines  # only compact and resume

    task = load_task(session_id)
    return [task_heading(task), *task_lines(task)] if task is not None else []


def handle(event: HookEvent, config: Config) -> str | None:
    """The reply that injects the chat's start context, or None when there is nothing."""
    limit = inject.inject_limit(config.hooks.inject_max_chars)
    view = readable_index_view(event.session_id, inject.index_budget(limit))
    rules, notes, searchable = start_notes(
        event.cwd, config.hooks.in_force_chars, config.hooks.briefing_limit
    )
    sections = [task_section(event.session_id)] if event.source in TASK_SOURCES else []
    if view is not None and view.text:
        sections.append(inject.index_section(view))
    sections.append(inject.observation_section(IN_FORCE_HEADING, [line for _, line in rules]))
    sections.append(inject.observation_section(BRIEFING_HEADING, [line for _, line in notes]))
    if searchable and not any(sections):
        sections.append(list(SEARCHABLE))
    context = inject.compose_context(
        sections, event.session_id, limit, receipt=config.hooks.receipt
    )
    before = inject.load_state(event.session_id)  # a resumed or compacted chat keeps its log
    state = inject.InjectionState(
        index=view.text if view is not None and context else "",
        entries=view.entries if view is not None and context else {},
        shown=inject.shown_ids(rules + notes, context),
        cwd=event.cwd,
        first=before.first,
        log=before.log,
    )
    if context:
        state.record("SessionStart", context, state.shown)
    inject.save_state(event.session_id, state)
    if team_url(config):  # what other machines stored since, for the prompts to come
        from cms.hooks.launch import ensure_worker
        from cms.hooks.queue import TEAM_SYNC, add_job

        add_job(event.session_id, TEAM_SYNC, {"cwd": event.cwd})
        ensure_worker(event.session_id)
    return inject.hook_reply("SessionStart", context) if context else None
