"""Commands on chat maps: `cms show`, `cms ops apply`, `cms search`.

Finds the map (--map PATH, --session ID, else the most recently updated chat), calls the map
engine and prints results; all errors are CmsError and reach the boundary in cms.cli.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cms.chats import locate_map
from cms.cli.output import print_json
from cms.config import Config, load_config
from cms.errors import MapNotFoundError, OpsError
from cms.jsonio import JSONDecodeError, parse_json
from cms.map.model import CorrelationMap, new_map
from cms.map.render import render_full, render_index
from cms.map.store import edit_map, load_map
from cms.search import FactHit, search_local, search_with_selector

if TYPE_CHECKING:
    from cms.map.ops import ApplyReport

SessionOpt = Annotated[str | None, typer.Option("--session", help="Chat (session) id.")]
MapOpt = Annotated[Path | None, typer.Option("--map", help="Path of a map file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _config() -> Config:
    config = load_config()
    for warning in config.warnings:
        print(f"cms: warning: {config.source}: {warning}", file=sys.stderr)
    return config


def show(session: SessionOpt = None, map_file: MapOpt = None, as_json: JsonOpt = False) -> None:
    """Print a chat map: the index shown to the agent, then every fact with its id."""
    path = locate_map(session, map_file)
    cmap = load_map(path)
    if as_json:
        print_json(cmap.to_dict())
        return
    print(f"map: {path}")
    print(render_index(cmap) or "(the map is empty)")
    print()
    print(render_full(cmap))
    if cmap.archive:
        print(f"\narchived subtopics: {', '.join(f'{p.id} {p.title}' for p in cmap.archive)}")


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
    except JSONDecodeError as exc:
        raise OpsError(f"{file} is not valid JSON: {exc}") from exc
    config = _config()

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
    k: Annotated[int, typer.Option("-k", min=1, max=50, help="How many facts.")] = 5,
    as_json: JsonOpt = False,
) -> None:
    """Print the stored facts that match QUERY, verbatim, with id and topic path."""
    path = locate_map(session, map_file)
    try:
        cmap = load_map(path)
    except MapNotFoundError:
        cmap = new_map(session or "", "")
    hits, selector = _select(cmap, query, k)
    if as_json:
        print_json({"query": query, "selector": selector, "facts": [h.to_dict() for h in hits]})
        return
    if not hits:
        print(f"no stored fact matches {query!r}")
        return
    for hit in hits:
        print(hit.render())


def _select(cmap: CorrelationMap, query: str, k: int) -> tuple[list[FactHit], str]:
    """The model selector when a provider is configured, else (and on failure) local BM25."""
    config = _config()
    try:
        from cms.providers.select import make_search_selector
    except ImportError:
        return search_local(cmap, query, k), "local"
    selector = make_search_selector(config, project=cmap.project)
    if selector is None:
        return search_local(cmap, query, k), "local"
    return search_with_selector(cmap, query, k, selector)


def register(app: typer.Typer) -> None:
    app.command()(show)
    app.command()(search)
    ops_app = typer.Typer(help="Diff operations on a map.", no_args_is_help=True)
    ops_app.command("apply")(apply)
    app.add_typer(ops_app, name="ops")
