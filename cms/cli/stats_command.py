"""`cms stats`: counts of this project's observations and of the user tier's, of every chat
map, and model token usage; and the deleted branches whose never-merged memory shows on every
branch.

Finds the project from --cwd (default: the current folder); prints text or JSON; errors are
CmsError and reach the boundary in cms.cli.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from cms.cli.branch_report import branch_lines, branch_records, find_deleted
from cms.console import print_json
from cms.errors import CmsError
from cms.observations.access import open_project_memory, open_user_memory
from cms.observations.deletedbranches import DeletedBranch
from cms.observations.export import iso
from cms.project import identify_project

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _map_counts() -> dict[str, Any]:
    from cms.chats import chat_maps
    from cms.map.store import load_map

    counts = {"chats": 0, "suns": 0, "planets": 0, "facts": 0, "archived_planets": 0}
    unreadable = 0
    for path in chat_maps():
        try:
            cmap = load_map(path)
        except CmsError:
            unreadable += 1
            continue
        counts["chats"] += 1
        counts["suns"] += len(cmap.suns)
        counts["planets"] += len(cmap.planets())
        counts["facts"] += cmap.fact_count()
        counts["archived_planets"] += len(cmap.archive)
    return counts | {"unreadable": unreadable}


def _usage() -> dict[str, Any] | None:
    try:
        from cms.providers.usage import summarize_usage
    except ImportError:
        return None
    result: dict[str, Any] = summarize_usage()
    return result


def stats(as_json: JsonOpt = False, cwd: CwdOpt = None) -> None:
    """Counts of this project's observations and of the user tier's (your preferences, every
    project), of every chat map, and model token usage; and the deleted branches never merged
    whose memory shows on every branch, with the line that drops each."""
    project = identify_project(cwd or Path.cwd())
    memory = open_project_memory(cwd or Path.cwd(), create=False)
    store_stats: dict[str, Any] | None = None
    deleted: list[DeletedBranch] = []
    if memory is not None:
        with memory:
            store_stats = memory.store.stats()
            store_stats["path"] = str(memory.store.path)
            deleted = find_deleted(memory.store, cwd or Path.cwd())
    user = open_user_memory()
    user_stats: dict[str, Any] | None = None
    if user is not None:
        with user:
            user_stats = user.store.stats()
            user_stats["path"] = str(user.store.path)
    maps = _map_counts()
    usage = _usage()
    data: dict[str, Any] = {
        "project": project.id,
        "root": str(project.root),
        "observations": store_stats,
        "user": user_stats,
        "maps": maps,
        "usage": usage,
        "deleted_branches": branch_records(deleted, cwd),
    }
    if as_json:
        print_json(data)
        return
    print(f"project {project.id} ({project.root})")
    if store_stats is None:
        print("observations: none stored yet")
    else:
        print(
            f"observations: {store_stats['live']} live, {store_stats['archived']} archived, "
            f"{store_stats['superseded']} superseded ({store_stats['bytes']} bytes)"
        )
        for label in ("by_kind", "by_branch"):
            items = store_stats[label]
            if items:
                text = ", ".join(f"{k} {v}" for k, v in sorted(items.items()))
                print(f"  {label.replace('_', ' ')}: {text}")
        if store_stats["newest"] is not None:
            print(f"  newest: {iso(store_stats['newest'])}")
        for line in branch_lines(deleted, cwd):
            print(f"  {line}")
    if user_stats is None:
        print("user tier (your preferences, every project): none stored yet")
    else:
        by_kind = ", ".join(f"{k} {v}" for k, v in sorted(user_stats["by_kind"].items()))
        print(
            f"user tier (your preferences, every project): {user_stats['live']} live, "
            f"{user_stats['archived']} archived, {user_stats['superseded']} superseded "
            f"({user_stats['path']})" + (f"; {by_kind}" if by_kind else "")
        )
    print(
        f"maps: {maps['chats']} chats, {maps['suns']} topics, {maps['planets']} subtopics, "
        f"{maps['facts']} facts, {maps['archived_planets']} archived subtopics"
        + (f", {maps['unreadable']} unreadable" if maps["unreadable"] else "")
    )
    if usage is not None:
        total, today = usage.get("total", {}), usage.get("today", {})
        print(
            f"model usage: {total.get('calls', 0)} calls, {total.get('input_tokens', 0)} in / "
            f"{total.get('output_tokens', 0)} out tokens; today {today.get('calls', 0)} calls, "
            f"{today.get('input_tokens', 0)} in / {today.get('output_tokens', 0)} out"
        )
