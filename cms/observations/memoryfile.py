"""Memory views for people who commit memory with the repository: a budgeted MEMORY.md-style
index of what is in force (`claude-md`) and a `## Memory` section for AGENTS.md (`agents-md`),
each inside a marked block that a later export replaces in place (cms.observations.export
reads it back).

Owns both layouts, the block markers and the budget; reads through recall and knows nothing of
the CLI. Entries are whole (an entry that does not fit is left out, never cut).
"""

from __future__ import annotations

import time

from cms.observations.export import BLOCK, BLOCK_BEGIN, BLOCK_END, HEADINGS
from cms.observations.model import Observation
from cms.observations.overrides import overridden_here
from cms.observations.recall import in_force
from cms.observations.scope import BranchScope
from cms.observations.store import ObservationStore

VIEWS = ("claude-md", "agents-md")
DEFAULT_BUDGET = 6000  # characters of entries; Claude Code reads the first 200 lines of MEMORY.md


def entry_line(obs: Observation) -> str:
    """`- **Title** — body` on one line (the bullet shape `cms import` reads); an HTML comment
    opener in stored text is escaped, so it can never end the block."""
    body = " ".join(obs.body.split())
    if obs.files:
        body = f"{body} (files: {', '.join(obs.files)})".strip()
    line = f"- **{' '.join(obs.title.split())}** — {body}" if body else f"- **{obs.title}**"
    return line.replace("<!--", "&lt;!--")


def chosen_observations(
    store: ObservationStore, scope: BranchScope, budget: int, now: float | None = None
) -> list[Observation]:
    """What the view holds, within budget characters: the standing rules in force on this
    branch (most important, then most recently confirmed, first), then the other live
    observations visible here by importance and recency. An entry that does not fit is skipped
    (a shorter one further down may)."""
    now = time.time() if now is None else now
    rules = [r.observation for r in in_force(store, scope, now=now)]
    taken = {o.id for o in rules}
    others = [
        o
        for o in store.list_observations(include_archived=False)
        if o.id not in taken
        and o.superseded_by is None
        and scope.visibility(o.branch, o.commit, o.shared_commit) is not None
    ]
    changed = overridden_here(store, scope, [o.id for o in others])  # by a branch visible here
    others = [o for o in others if o.id not in changed]
    others.sort(key=lambda o: (-o.importance, -o.updated_at, o.id))
    chosen, used = [], 0
    for obs in [*rules, *others]:
        size = len(entry_line(obs)) + 1
        if used + size <= budget:
            chosen.append(obs)
            used += size
    return chosen


def render_view(view: str, project: str, observations: list[Observation]) -> str:
    """The marked block of a view: a section of bullets per kind, observations in the order
    given (chosen_observations: what matters most first)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}")
    level = "##" if view == "claude-md" else "###"
    lines = [f"{BLOCK_BEGIN} ({view}; `cms export --format {view}` rewrites this block) -->"]
    if view == "claude-md":
        lines += [f"# Memory: {project}", ""]
    else:
        lines += ["## Memory", ""]
    lines.append(
        "What is in force in this project, most important first (kept by cms; "
        "`cms search QUERY` finds more)."
    )
    kinds = dict.fromkeys(o.kind for o in observations if o.kind in HEADINGS)
    for kind in kinds:  # in the order of each kind's first entry: what matters most first
        group = [entry_line(o) for o in observations if o.kind == kind]
        lines += ["", f"{level} {HEADINGS[kind]}", "", *group]
    return "\n".join([*lines, BLOCK_END]) + "\n"


def merge_block(existing: str | None, block: str) -> str:
    """A file's text with its (first) cms block replaced by block, appended when it has none;
    the rest of the file is kept as it was, in its own line endings."""
    if not existing:
        return block
    newline = "\r\n" if "\r\n" in existing else "\n"
    block = block.replace("\n", newline)
    if BLOCK.search(existing):
        return BLOCK.sub(lambda _m: block.rstrip("\r\n"), existing, count=1)
    return existing.rstrip("\r\n") + newline * 2 + block
