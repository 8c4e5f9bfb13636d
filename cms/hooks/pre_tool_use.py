"""The PreToolUse hook: before a tool reads or changes a file, or runs a command, that stored
memory names, inject those few items (a bugfix in that file, a rule about that kind of file, a
command's notes), each once per chat.

Reads the project's file notes (a JSON file the worker keeps; never the store), so a tool call
that memory does not name costs a file read. No model call; errors reach the runner.
"""

from __future__ import annotations

import os

from cms.hooks import inject
from cms.observations.filekeys import file_keys, read_notes, tool_command_keys
from cms.project import identify_project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cms.config import Config
    from cms.hooks.events import HookEvent

ITEMS_PER_CALL = 3  # the newest items that name the file or command, not yet shown in this chat


def handle(event: HookEvent, config: Config) -> str | None:
    """The reply that injects what memory says of the tool's file or command, or None."""
    if not (event.tool_file or event.tool_command):
        return None
    project = identify_project(event.cwd)
    notes = read_notes(project.id)
    if notes is None:
        return None
    keys, items, marks = notes
    if event.tool_file:
        wanted = file_keys(os.path.join(event.cwd, event.tool_file), project.root)
        target = event.tool_file
    else:
        wanted = tool_command_keys(event.tool_command)
        target = wanted[0].removeprefix("cmd:") if wanted else ""
    found = [i for key in wanted for i in keys.get(key, ()) if isinstance(i, str)]
    if not found:
        return None
    state = inject.load_state(event.session_id)
    shown, branch = set(state.shown), _branch_filter(event.cwd)
    fresh: list[tuple[tuple[str, ...], str]] = []
    for item in dict.fromkeys(found):
        entry = items.get(item)
        if not (isinstance(entry, list) and len(entry) in (3, 4) and isinstance(entry[0], str)):
            continue
        line: str = entry[0]
        aliases, item_branch = entry[1], entry[2]
        ids = [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []
        ids = ids or [item]
        if shown & set(ids) or not branch(item_branch):
            continue
        changed_on = entry[3] if len(entry) == 4 and isinstance(entry[3], list) else ()
        if any(branch(other) for other in changed_on):
            continue  # a branch shown here changed it: its later version is in force
        fresh.append((tuple(ids), line + _moved_on(project.root, marks.get(item))))
        if len(fresh) >= ITEMS_PER_CALL:
            break
    if not fresh:
        return None
    heading = f"[Stored memory about {os.path.basename(target) or target}]"
    section = inject.observation_section(heading, [line for _ids, line in fresh])
    limit = inject.inject_limit(config.hooks.inject_max_chars)
    context = inject.compose_context(
        [section], event.session_id, limit, receipt=config.hooks.receipt
    )
    if not context:
        return None
    ids = inject.shown_ids(fresh, context)
    state.shown += ids
    state.record("PreToolUse", context, ids)
    inject.save_state(event.session_id, state)
    return inject.hook_reply("PreToolUse", context)


def _moved_on(root: str, marks: object) -> str:
    """What the item's line gains when a file it named changed since it was stored: a space and
    "(file changed since: a.py)"; "" when none did."""
    if not isinstance(marks, list):
        return ""
    from cms.observations.filestate import staleness

    valid = [
        (m[0], m[1], m[2], m[3])
        for m in marks
        if isinstance(m, list) and len(m) == 4 and isinstance(m[0], str) and isinstance(m[1], str)
        and isinstance(m[2], int) and isinstance(m[3], int)
    ]  # fmt: skip
    note = staleness(root, valid)
    return f" {note}" if note else ""


def _branch_filter(cwd: str) -> Callable[[object], bool]:
    """Whether an item captured on a branch is shown here: no branch, this branch or a default
    one (the prompt hook's full ancestry check is left to recall: this is a tool call)."""
    from cms.observations.scope import read_git_state

    state = read_git_state(cwd)
    if state is None:
        return lambda _branch: True
    here = {state.branch, *state.default_branches}
    return lambda branch: branch is None or branch in here
