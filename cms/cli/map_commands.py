"""Commands on chat maps: `cms show`, `cms ops apply`, `cms search`.

Finds the map (--map PATH, --session ID, else the most recently updated chat), calls the map
engine and prints results (`cms show` also the chat's current task, the task.json beside the
map); all errors are CmsError and reach the boundary in cms.cli.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cms.chats import latest_map, locate_map
from cms.console import config_checked, load_command_config, print_json
from cms.errors import MapNotFoundError, OpsError
from cms.jsonio import parse_json
from cms.map.model import CorrelationMap
from cms.map.render import render_full, render_index
from cms.map.store import edit_map, load_map
from cms.project import identify_project
from cms.search.command import MAX_K, print_search
from cms.task.model import CurrentTask, read_task_file, task_file, task_lines

if TYPE_CHECKING:
    from cms.map.ops import ApplyReport

SessionOpt = Annotated[str | None, typer.Option("--session", help="Chat (session) id.")]
MapOpt = Annotated[Path | None, typer.Option("--map", help="Path of a map file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def show(session: SessionOpt = None, map_file: MapOpt = None, as_json: JsonOpt = False) -> None:
    """Print a chat: its current task, the map index shown to the agent, then every fact with
    its id (without --session or --map, the chat of this folder's project updated last)."""
    project = identify_project(Path.cwd()).id
    if session is None and map_file is None and latest_map(project) is None:
        _first_contact(as_json, others=latest_map() is not None)
        return
    path = locate_map(session, None if map_file is None else str(map_file), project)
    task = _task_beside(path)
    try:
        cmap = load_map(path)
    except MapNotFoundError:
        if task is None:
            raise
        cmap = None  # a chat whose exchanges gave a task but no fact yet
    if as_json:
        data = cmap.to_dict() if cmap is not None else {}
        print_json({**data, "current_task": task.to_dict() if task is not None else None})
        return
    print(f"map: {path}")
    _print_task(task)
    if cmap is None:
        print("(no map yet)")
        return
    print(render_index(cmap) or "(the map is empty)")
    print()
    print(render_full(cmap))
    if cmap.archive:
        print(f"\narchived subtopics: {', '.join(f'{p.id} {p.title}' for p in cmap.archive)}")


def _first_contact(as_json: bool, *, others: bool) -> None:
    """What `cms show` says before a chat of this project has a map: nothing is wrong, here is
    what fills it (another project's chats are never shown in its place)."""
    if as_json:
        print_json({"chats": 0})
        return
    if others:
        print(
            "No chat of this project yet (chats of other projects: run `cms show` in their "
            "folder, or pass --session ID). cms fills this from your next chat here."
        )
        return
    print(
        "No chat yet. cms fills this from your next chat: after each answer the chat's map of "
        "topics and facts is updated, and `cms show` prints the latest one (or --session ID). "
        "Not wired into an agent yet? Run `cms install` (`cms doctor` shows what is set up)."
    )


def _task_beside(map_path: str) -> CurrentTask | None:
    """The current task of the chat whose map.json is at map_path (None for a map file of
    another name: not a chat's folder)."""
    if os.path.basename(map_path) != "map.json":
        return None
    return read_task_file(task_file(os.path.dirname(map_path) or "."))


def _print_task(task: CurrentTask | None) -> None:
    """The chat's current task under a heading that says when and from which turn it was last
    brought up to date, and a blank line; nothing when there is none."""
    if task is None:
        return
    turn = f"turn {task.turn}, " if task.turn else ""
    print(f"current task ({turn}updated {task.updated_at or 'at an unknown time'}):")
    for line in task_lines(task):
        print(f"  {line}")
    print()


def apply(
    file: Annotated[Path, typer.Argument(help='An update answer: {"ops": [...]}; - for stdin.')],
    map_file: Annotated[Path, typer.Option("--map", help="The map to change.")],
    as_json: JsonOpt = False,
    turn: Annotated[int, typer.Option(help="Turn number recorded on new facts.")] = 0,
) -> None:
    """Validate and apply ops to a map; print what was accepted and rejected, and why."""
    from cms.map.ops import apply_answer  # jsonschema: only the commands that validate ops

    raw = sys.stdin.buffer.read() if str(file) == "-" else _read_ops_file(file)
    try:
        answer = parse_json(raw)
    except ValueError as exc:  # not UTF-8, not JSON
        raise OpsError(f"{file} is not valid JSON: {exc}") from exc
    config = load_command_config()

    def change(cmap: CorrelationMap) -> tuple[ApplyReport, bool]:
        report = apply_answer(cmap, answer, turn=turn, max_planets=config.map.max_planets)
        return report, report.changed

    session = map_file.parent.name if map_file.name == "map.json" else map_file.stem
    report = edit_map(map_file, change, session_id=session, project="")
    data = report.to_dict()
    if as_json:
        print_json(data)
        return
    for outcome in report.outcomes:
        name = outcome.op.get("op", "?") if isinstance(outcome.op, dict) else "?"
        if outcome.accepted:
            created = f" -> {', '.join(outcome.created)}" if outcome.created else ""
            print(f"accepted #{outcome.index} {name}{created}")
        else:
            print(f"rejected #{outcome.index} {name}: {outcome.reason}")
    for planet_id in data["archived"]:
        print(f"archived {planet_id} (over map.max_planets)")
    verdict = "saved" if data["accepted"] or data["archived"] else "unchanged"
    print(f"{len(data['accepted'])} accepted, {len(data['rejected'])} rejected; map {verdict}")


def _read_ops_file(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError as exc:
        raise OpsError(f"cannot read {file}: {exc.strerror}") from exc


def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    session: SessionOpt = None,
    map_file: MapOpt = None,
    k: Annotated[int, typer.Option("-k", min=1, max=MAX_K, help="How many facts.")] = 5,
    as_json: JsonOpt = False,
) -> None:
    """Print the stored facts that match QUERY, verbatim, with id and topic path."""
    print_search(query, session, None if map_file is None else str(map_file), k, as_json)


def register(app: typer.Typer) -> None:
    app.command()(config_checked(show))
    app.command()(config_checked(search))
    ops_app = typer.Typer(help="Diff operations on a map.", no_args_is_help=True)
    ops_app.command("apply")(config_checked(apply))
    app.add_typer(ops_app, name="ops")
