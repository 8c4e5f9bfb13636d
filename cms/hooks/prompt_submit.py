"""The UserPromptSubmit hook: what is new for this chat, relevant to this prompt.

Injects the map index when its subtopics changed since the chat last got it (the new and
archived ones only), plus the project's facts and observations relevant to the prompt that the
chat has not been shown yet; caches the prompt for Stop. No model call; errors reach the runner.
"""

from __future__ import annotations

from cms.hooks import inject
from cms.hooks.indexview import readable_index_view
from cms.hooks.projectnotes import relevant_notes
from cms.hooks.promptcache import cache_prompt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.config import Config
    from cms.hooks.events import HookEvent

RECALL_HEADING = "[Project memory that may be relevant to this prompt]"


def handle(event: HookEvent, config: Config) -> str | None:
    """The reply that injects what is new and relevant, or None when there is nothing."""
    state = inject.load_state(event.session_id)
    named = False
    if event.prompt:  # Stop falls back on it when the transcript lacks the prompt
        prompt = cache_prompt(event.session_id, event.prompt)
        if not state.first and prompt.strip():
            from cms.excerpt import fit_text  # only the chat's first prompt is shortened

            first = fit_text(prompt, inject.FIRST_PROMPT_CHARS)  # one huge word: left unnamed
            state.first, named = first if len(first) <= 2 * inject.FIRST_PROMPT_CHARS else "", True
    limit = inject.inject_limit(config.hooks.inject_max_chars)
    view = readable_index_view(event.session_id, inject.index_budget(limit))
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
    context = ""
    if any(sections):
        context = inject.compose_context(
            sections, event.session_id, limit, receipt=config.hooks.receipt
        )
    if not context:
        if named:
            inject.save_state(event.session_id, state)
        return None
    if view is not None and index_changed:
        state.index, state.entries = view.text, view.entries
    ids = inject.shown_ids(notes, context)
    state.shown += ids
    state.record("UserPromptSubmit", context, ids)
    inject.save_state(event.session_id, state)
    return inject.hook_reply("UserPromptSubmit", context)
