"""`cms search`: the agent runs it on every lookup, so it starts without typer, argparse or
pathlib, and imports the single-map search only when asked for one chat.

Owns the scope rules: the whole project's memory by default (the given chat first), one chat
map with `--chat-only` or `--map`; a model selector when one is configured, else local.
"""

from __future__ import annotations

import os
import sys
import time

from cms.console import load_command_config, print_json
from cms.errors import CmsError
from cms.markup import neutralise_tags
from cms.record import Record

MAX_K = 50
MODEL_POOL = 30  # project hits a model selector chooses from
USAGE = "usage: cms search QUERY [--session ID] [--map FILE] [--chat-only] [-k N] [--json]"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.config import Config
    from cms.map.model import CorrelationMap
    from cms.observations.access import ProjectMemory
    from cms.observations.vectors import QueryMeaning
    from cms.search.facts import FactHit
    from cms.search.project import MemoryHit


def select_facts(cmap: CorrelationMap, query: str, k: int) -> tuple[list[FactHit], str]:
    """The model selector when a provider is configured, else (and on failure) local BM25."""
    from cms.providers.select import make_search_selector
    from cms.search.facts import search_local, search_with_selector

    config = load_command_config()
    selector = make_search_selector(config, project=cmap.project)
    if selector is None:
        return search_local(cmap, query, k), "local"
    return search_with_selector(cmap, query, k, selector)


def print_chat_search(
    query: str, session: str | None, map_file: str | None, k: int, as_json: bool
) -> None:
    """Print the facts of one chat map that match query, verbatim, with id and topic path."""
    from cms.chats import locate_map
    from cms.errors import MapNotFoundError
    from cms.map.model import new_map
    from cms.map.store import load_map
    from cms.project import identify_project

    project = None if session or map_file else identify_project(os.getcwd()).id
    path = locate_map(session, map_file, project)
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
        print(neutralise_tags(hit.render()))


def print_project_search(
    query: str, session: str | None, k: int, as_json: bool, cwd: str | None = None
) -> None:
    """Print the project's facts and observations that match query, verbatim, with their ids,
    topic path or kind, chat and age; the given chat's first; with the user tier's items (U ids,
    your own preferences) that the project does not overrule. The project is the one the chat
    runs in (as its hooks recorded it), else the one of the current folder."""
    from cms.hooks.inject import chat_folder
    from cms.observations.access import open_project_memory, open_user_memory

    config = load_command_config()  # a broken cms.toml is one clear error here too
    folder = cwd or chat_folder(session) or os.getcwd()
    memory = open_project_memory(folder, create=False)
    user = open_user_memory()
    try:
        hits, selector = select_hits(config, memory, query, k, session, user)
    finally:
        for opened in (memory, user):
            if opened is not None:
                opened.close()
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
        print(neutralise_tags(hit.render(now, session)))


def select_hits(
    config: Config,
    memory: ProjectMemory | None,
    query: str,
    k: int,
    session: str | None,
    user: ProjectMemory | None = None,
) -> tuple[list[MemoryHit], str]:
    """The local ranking, or a model's pick among its best MODEL_POOL when a model selector is
    configured (any failure falls back to the local ranking). Meaning is fused in by the
    semantic index when it is set up; else by the packaged model when the words alone find
    fewer than k hits (its load and scan would triple the cost of every search: DESIGN.md
    section 8)."""
    from cms.providers.select import make_search_selector
    from cms.search.project import search_project

    project = memory.project.id if memory is not None else ""
    meaning: QueryMeaning | None = None
    if memory is not None:
        from cms.semantic import meaning_for, print_notice

        meaning = meaning_for(config, memory.store, query, print_notice, packaged=False)
    weight = config.semantic.weight
    selector = make_search_selector(config, project=project)
    if selector is None:
        hits = search_project(
            memory, query, k=k, session=session, meaning=meaning, semantic_weight=weight,
            user=user, history=True,
        )  # fmt: skip
        if memory is not None and meaning is None and len(hits) < k:
            meaning = meaning_for(config, memory.store, query, None)
            if meaning:
                hits = search_project(
                    memory, query, k=k, session=session, meaning=meaning,
                    semantic_weight=weight, user=user, history=True,
                )  # fmt: skip
        return hits, "local"
    pool = search_project(
        memory, query, k=max(k, MODEL_POOL), session=session, meaning=meaning,
        semantic_weight=weight, user=user, history=True,
    )  # fmt: skip
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
    map_file: str | None,
    k: int,
    as_json: bool,
    *,
    chat_only: bool = False,
) -> None:
    if chat_only or map_file is not None:
        print_chat_search(query, session, map_file, k, as_json)
    else:
        print_project_search(query, session, k, as_json)


class UsageError(CmsError):
    """The command line of `cms search` is not one it understands."""


class SearchArgs(Record):
    """What the command line of `cms search` asks for."""

    query: str = ""
    session: str | None = None
    map_file: str | None = None
    chat_only: bool = False
    k: int = 5
    as_json: bool = False


def parse_search_argv(argv: list[str]) -> SearchArgs:
    """The arguments of USAGE (`--option=value` too, `--` ends the options)."""
    args = SearchArgs()
    words: list[str] = []
    rest = iter(argv)
    for word in rest:
        name, eq, value = word.partition("=")
        if word == "--":
            words += rest
        elif name in ("--session", "--map", "-k"):
            if not eq:
                value = next(rest, "")
                if not value:
                    raise UsageError(f"{name} needs a value")
            if name == "-k":
                args.k = int(value) if value.isdigit() else 0
            elif name == "--map":
                args.map_file = value
            else:
                args.session = value
        elif word == "--chat-only":
            args.chat_only = True
        elif word == "--json":
            args.as_json = True
        elif word.startswith("-") and word != "-":
            raise UsageError(f"unknown option {word}")
        else:
            words.append(word)
    if len(words) != 1:
        raise UsageError("give exactly one QUERY (quote it)" if words else "QUERY is missing")
    if not 1 <= args.k <= MAX_K:
        raise UsageError(f"-k must be a whole number within 1..{MAX_K}")
    args.query = words[0]
    return args


def run_search_argv(argv: list[str]) -> int:
    """The light entry point: parse argv, print results; a usage error exits 2, then the one
    error boundary (cms.error_handler): a CmsError 1, Ctrl-C 130, anything else 3, one line."""
    try:
        args = parse_search_argv(argv)
    except UsageError as exc:
        print(f"{USAGE}\ncms search: error: {exc}", file=sys.stderr)
        return 2
    from cms.error_handler import run_guarded

    return run_guarded(
        lambda: print_search(
            args.query, args.session, args.map_file, args.k, args.as_json, chat_only=args.chat_only
        )
    )
