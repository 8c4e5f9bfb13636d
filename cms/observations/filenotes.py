"""Building a project's file notes (filekeys.py): which live facts and observations name a
file, a kind of file or a command, each with the line the PreToolUse hook shows for it.

Written atomically beside the store by whatever changes the items: the worker after each job,
`cms remember`, `forget`, `import`, `gc`, `reindex` and the MCP write tools; reads through the
store and knows nothing of hooks.
"""

from __future__ import annotations

import os
import sqlite3

from cms.jsonio import dump_json
from cms.language.kinds import STANDING_KINDS
from cms.observations.facts import FACT_COLUMNS, IndexedFact
from cms.observations.filekeys import (
    NOTES_NAME,
    NOTES_VERSION,
    command_keys,
    mention_keys,
    rule_keys,
)
from cms.observations.filestate import stored_marks
from cms.observations.ids import item_aliases
from cms.observations.model import COLUMNS, Observation, row_to_observation
from cms.observations.recall import observation_text
from cms.observations.store import ObservationStore
from cms.privatefile import write_atomically

LINE_CHARS = 320  # as the injected lines of the other hooks
MAX_ITEMS = 2000  # the newest items that name something; the notes stay a small file
MAX_ROWS = 3000  # rows read per table at most: the notes' cost is the same at any store size


def _observation_keys(obs: Observation) -> list[str]:
    keys = [k for f in obs.files for k in mention_keys(f)]
    keys += mention_keys(f"{obs.title}\n{obs.body}")
    if obs.kind in STANDING_KINDS:
        keys += rule_keys(f"{obs.title}\n{obs.body}")
    if obs.kind == "command":
        keys += command_keys(f"{obs.title}\n{obs.body}")
    return list(dict.fromkeys(keys))


def file_notes(store: ObservationStore) -> dict[str, object]:
    """The notes of a project: keys -> item ids (newest first), ids -> [line, aliases, branch]
    (a chat fact has none), plus the branches that changed it for themselves when some did
    (overrides.py), and marks: ids -> the state of the files it named when stored (filestate). Only
    live items: no superseded or archived ones, no passages; an observation promoted from a
    chat fact is left to its fact."""
    return store.read(_build_notes)


def _build_notes(conn: sqlite3.Connection) -> dict[str, object]:
    """file_notes inside one read transaction: the newest items first, read row by row and
    stopped once MAX_ITEMS are noted or MAX_ROWS read (the worker runs this after every job:
    its cost must not grow with the store; an old item that names a file is found by search)."""
    changed_on: dict[int, list[str | None]] = {}  # observation -> branches that changed it
    for older, branch in conn.execute(
        "SELECT v.older, n.branch FROM overrides v JOIN observations n ON n.id = v.newer "
        "WHERE n.superseded_by IS NULL ORDER BY v.older, n.branch"
    ):
        changed_on.setdefault(older, []).append(branch)
    keys: dict[str, list[str]] = {}
    items: dict[str, list[object]] = {}

    def add(
        item: str,
        line: str,
        aliases: tuple[str, ...],
        branch: str | None,
        found: list[str],
        changed: list[str | None] | None = None,
    ) -> None:
        if not found:
            return
        items[item] = [line, list(aliases), branch] + ([changed] if changed else [])
        for key in found:
            keys.setdefault(key, []).append(item)

    for row in conn.execute(
        f"SELECT {COLUMNS} FROM observations INDEXED BY observations_live_recent "
        "WHERE superseded_by IS NULL "
        "AND archived_at IS NULL AND source IS NULL ORDER BY updated_at DESC, id DESC LIMIT ?",
        (MAX_ROWS,),
    ):
        if len(items) >= MAX_ITEMS:
            break
        obs = row_to_observation(row)
        item = f"O{obs.id}"
        line = f"{item} [{obs.kind}] {observation_text(obs, LINE_CHARS)}"
        aliases, found = item_aliases(item, obs.source), _observation_keys(obs)
        add(item, line, aliases, obs.branch, found, changed_on.get(obs.id))
    noted = [int(item[1:]) for item in items if item[:1] == "O"]
    marks = {f"O{i}": [list(m) for m in found] for i, found in stored_marks(conn, noted).items()}
    for row in conn.execute(
        f"SELECT {FACT_COLUMNS} FROM facts INDEXED BY facts_live_recent "
        "WHERE superseded_by IS NULL AND archived = 0 "
        "AND kind != 'passage' ORDER BY updated_at DESC, id DESC LIMIT ?",
        (MAX_ROWS,),
    ):
        if len(items) >= MAX_ITEMS:
            break
        fact = IndexedFact.from_row(row)
        text = " ".join(fact.text.split())
        found = mention_keys(text) + (command_keys(text) if fact.kind == "command" else [])
        add(fact.key, f"{fact.key} [{fact.path}] {text}", (fact.key,), None, found)
    return {"version": NOTES_VERSION, "keys": keys, "items": items, "marks": marks}


def write_file_notes(store: ObservationStore) -> int:
    """Write the project's file notes beside its store (where filekeys.read_notes finds them
    for a project's own store); returns how many items they hold."""
    notes = file_notes(store)
    write_atomically(os.path.join(os.path.dirname(store.path), NOTES_NAME), dump_json(notes))
    items = notes["items"]
    return len(items) if isinstance(items, dict) else 0
