"""Commands on the project's whole memory: `cms get ID...` (an item whole, with its history) and
`cms reindex` (rebuild the project's fact index from its chat maps).

Finds the project from --cwd (default: the current folder) or from the chat given by
--session; prints text or JSON; errors are CmsError and reach the boundary in cms.cli.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cms.console import config_checked, print_json
from cms.errors import CmsError, MapError
from cms.observations.access import ProjectMemory, open_project_memory
from cms.observations.export import iso, observation_record
from cms.observations.facts import IndexedFact, fact_by_id, find_facts, superseded_chain
from cms.observations.store import COLUMNS, Observation, row_to_observation

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]
SessionOpt = Annotated[
    str | None, typer.Option("--session", help="A chat of the project (its folder is used).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


class UnknownItemError(CmsError):
    """An id names no fact or observation of this project."""


def _open(cwd: Path | None, session: str | None, *, create: bool = False) -> ProjectMemory:
    from cms.hooks.inject import chat_folder

    folder = cwd or chat_folder(session) or Path.cwd()
    memory = open_project_memory(folder, create=create)
    if memory is None:
        raise UnknownItemError(f"the project of {folder} has no memory yet")
    return memory


def _observation_id(item: str) -> int | None:
    text = item.removeprefix("#").removeprefix("O").removeprefix("o")
    return int(text) if text.isdigit() else None


def _observation_rows(
    memory: ProjectMemory, where: str, args: tuple[Any, ...]
) -> list[Observation]:
    rows = memory.store.read(
        lambda c: c.execute(
            f"SELECT {COLUMNS} FROM observations WHERE {where} ORDER BY created_at DESC", args
        ).fetchall()
    )
    return [row_to_observation(r) for r in rows]


def _observation_item(memory: ProjectMemory, obs: Observation) -> dict[str, Any]:
    history: list[Observation] = []
    frontier = [obs.id]
    while frontier and len(history) < 50:
        marks = ",".join("?" * len(frontier))
        older = _observation_rows(memory, f"superseded_by IN ({marks})", tuple(frontier))
        history += older
        frontier = [o.id for o in older]
    return observation_record(obs) | {
        "id": f"O{obs.id}",
        "type": "observation",
        "source_fact": obs.source,
        "turn": obs.turn,
        "state": _state(obs.superseded_by, obs.archived_at is not None, prefix="O"),
        "history": [
            {
                "id": f"O{o.id}",
                "text": f"{o.title} \u2014 {o.body}",
                "updated_at": iso(o.updated_at),
            }
            for o in history
        ],
    }


def _state(superseded_by: int | str | None, archived: bool, prefix: str = "") -> str:
    if superseded_by is not None:
        return f"superseded by {prefix}{superseded_by}"
    return "archived" if archived else "in force"


def _fact_item(memory: ProjectMemory, fact: IndexedFact) -> dict[str, Any]:
    newer = fact_by_id(memory.store, fact.superseded_by) if fact.superseded_by else None
    state = _state(newer.key if newer else None, fact.archived)
    if fact.superseded_by == 0:
        state = "retracted by a later chat"
    return {
        "id": fact.key,
        "type": "fact",
        "path": fact.path,
        "text": fact.text,
        "kind": fact.kind,
        "session": fact.session,
        "turn": fact.turn,
        "created_at": iso(fact.created_at),
        "updated_at": iso(fact.updated_at),
        "state": state,
        "history": [
            {"id": f.key, "text": f.text, "updated_at": iso(f.updated_at)}
            for f in superseded_chain(memory.store, fact)
        ],
    }


def _items(memory: ProjectMemory, wanted: list[str]) -> list[dict[str, Any]]:
    items = []
    for item in wanted:
        number = _observation_id(item)
        if number is not None:
            obs = memory.store.get(number)
            if obs is None:
                raise UnknownItemError(f"no observation {item} in this project")
            items.append(_observation_item(memory, obs))
            continue
        facts = find_facts(memory.store, item)
        if not facts:
            raise UnknownItemError(
                f"no fact {item} in this project (ids look like O12 or 1a2b3c4d/F7)"
            )
        items += [_fact_item(memory, f) for f in facts]
    return items


def _print_item(item: dict[str, Any]) -> None:
    where = item.get("path") or item.get("kind")
    print(f"{item['id']} [{where}] ({item['state']})")
    if item["type"] == "fact":
        print(item["text"])
    else:
        print(item["title"])
        if item["body"]:
            print(item["body"])
        if item["files"]:
            print("files: " + ", ".join(item["files"]))
    chat = item.get("session") or "-"
    print(f"chat {chat}, turn {item.get('turn') or '-'}, created {item['created_at']}, "
          f"updated {item['updated_at']}")  # fmt: skip
    for old in item["history"]:
        print(f"  was ({old['id']}, {old['updated_at']}): {old['text']}")


@config_checked
def get(
    ids: Annotated[list[str], typer.Argument(help="Ids as injected: O12, 1a2b3c4d/F7.")],
    session: SessionOpt = None,
    cwd: CwdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print stored items whole, with their state and the versions they replaced."""
    with _open(cwd, session) as memory:
        items = _items(memory, ids)
    if as_json:
        print_json({"items": items})
        return
    for n, item in enumerate(items):
        if n:
            print()
        _print_item(item)


@config_checked
def reindex(cwd: CwdOpt = None) -> None:
    """Rebuild this project's fact index from every chat map of the project."""
    from cms.chats import chat_maps
    from cms.map.store import load_map
    from cms.observations.chatsync import rebuild_fact_index

    started = time.monotonic()
    with _open(cwd, None, create=True) as memory:
        maps = []
        for path in chat_maps():
            try:
                cmap = load_map(path)
            except MapError as exc:
                print(f"cms: warning: skipped {path}: {exc}")
                continue
            if cmap.project == memory.project.id:
                maps.append(cmap)
        count = rebuild_fact_index(memory, maps)
    took = time.monotonic() - started
    print(f"indexed {count} facts from {len(maps)} chats of {memory.project.id} in {took:.1f}s")


def register(app: typer.Typer) -> None:
    app.command()(get)
    app.command()(reindex)
