"""`cms search`: the agent runs it on every lookup, so it starts without typer (argparse).

Owns the scope rules: the whole project's memory by default (the given chat first), one chat
map with `--chat-only` or `--map`; a model selector when one is configured, else local.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from cms.chats import locate_map
from cms.console import load_command_config, print_json
from cms.errors import CmsError, MapNotFoundError
from cms.map.model import CorrelationMap, new_map
from cms.map.store import load_map
from cms.search import FactHit, search_local, search_with_selector

MAX_K = 50
MODEL_POOL = 30  # project hits a model selector chooses from

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.config import Config
    from cms.observations.access import ProjectMemory
    from cms.project_search import MemoryHit


def select_facts(cmap: CorrelationMap, query: str, k: int) -> tuple[list[FactHit], str]:
    """The model selector when a provider is configured, else (and on failure) local BM25."""
    config = load_command_config()
    from cms.providers.select import make_search_selector

    selector = make_search_selector(config, project=cmap.project)
    if selector is None:
        return search_local(cmap, query, k), "local"
    return search_with_selector(cmap, query, k, selector)


def print_chat_search(
    query: str, session: str | None, map_file: Path | None, k: int, as_json: bool
) -> None:
    """Print the facts of one chat map that match query, verbatim, with id and topic path."""
    path = locate_map(session, map_file)
    try:
        cmap = load_map(path)
    except MapNotFoundError:
        cmap = new_map(session or "", "")
    hits, selector = select_facts(cmap, query, k)
    if as_json:
        print_json({"query": query, "selector": selector, "facts": [h.to_dict() for h in hits]})
    elif not hits:
        print(f"no stored fact matches {query!r}")
    for hit in [] if as_json else hits:
        print(hit.render())


def print_project_search(
    query: str, session: str | None, k: int, as_json: bool, cwd: str | None = None
) -> None:
    """Print the project's facts and observations that match query, verbatim, with their ids,
    topic path or kind, chat and age; the given chat's first. The project is the one the chat
    runs in (as its hooks recorded it), else the one of the current folder."""
    from cms.hooks.inject import chat_folder
    from cms.observations.access import open_project_memory

    config = load_command_config()  # a broken cms.toml is one clear error here too
    folder = cwd or chat_folder(session) or os.getcwd()
    memory = open_project_memory(folder, create=False)
    if memory is None:
        hits, selector = _select_hits(config, None, query, k, session)
    else:
        with memory:
            hits, selector = _select_hits(config, memory, query, k, session)
    now = time.time()
    if as_json:
        print_json(
            {
                "query": query,
                "selector": selector,
                "project": None if memory is None else memory.project.id,
                "results": [h.to_dict(now) for h in hits],
            }
        )
        return
    if not hits:
        print(f"no stored fact or observation of this project matches {query!r}")
    for hit in hits:
        print(hit.render(now, session))


def _select_hits(
    config: Config, memory: ProjectMemory | None, query: str, k: int, session: str | None
) -> tuple[list[MemoryHit], str]:
    """The local ranking, or a model's pick among its best MODEL_POOL when a model selector is
    configured (any failure falls back to the local ranking)."""
    from cms.project_search import search_project
    from cms.providers.select import make_search_selector

    project = memory.project.id if memory is not None else ""
    selector = make_search_selector(config, project=project)
    if selector is None:
        return search_project(memory, query, k=k, session=session), "local"
    pool = search_project(memory, query, k=max(k, MODEL_POOL), session=session)
    lines = [f"{n}. [{h.label}] {h.text}" for n, h in enumerate(pool, start=1)]
    try:
        picked = selector(query, lines, k) if pool else []
    except CmsError:
        picked = []
    hits = [pool[i] for i in dict.fromkeys(picked) if 0 <= i < len(pool)][:k]
    return (hits, "model") if hits else (pool[:k], "local")


def print_search(
    query: str,
    session: str | None,
    map_file: Path | None,
    k: int,
    as_json: bool,
    *,
    chat_only: bool = False,
) -> None:
    if chat_only or map_file is not None:
        print_chat_search(query, session, map_file, k, as_json)
    else:
        print_project_search(query, session, k, as_json)


def _k(text: str) -> int:
    value = int(text)
    if not 1 <= value <= MAX_K:
        raise argparse.ArgumentTypeError(f"-k must be within 1..{MAX_K}")
    return value


def run_search_argv(argv: list[str]) -> int:
    """The light entry point: parse argv, print results; CmsError becomes one line, exit 1."""
    parser = argparse.ArgumentParser(prog="cms search", add_help=False)
    parser.add_argument("query")
    parser.add_argument("--session")
    parser.add_argument("--map", type=Path, dest="map_file")
    parser.add_argument("--chat-only", action="store_true", dest="chat_only")
    parser.add_argument("-k", type=_k, default=5)
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    try:
        print_search(
            args.query, args.session, args.map_file, args.k, args.as_json, chat_only=args.chat_only
        )
    except CmsError as exc:
        print(f"cms: error: {exc}", file=sys.stderr)
        return 1
    return 0
