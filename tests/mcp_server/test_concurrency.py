"""Tool calls running concurrently while hook-like writers change the same map and store."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from cms import paths
from cms.map.store import load_map
from cms.observations.access import open_project_memory
from cms.observations.model import NewObservation
from tests.mcp_server.helpers import (
    make_git_project,
    memory_client,
    seed_map,
    stdio_session,
    storage_ops,
    text_of,
)

pytestmark = pytest.mark.slow

SESSION = "chat-busy"
WRITES = 40


def map_writer() -> None:
    """Like the Stop hook's update: one fact per turn, under the map's lock."""
    for i in range(WRITES):
        seed_map(SESSION, [{"op": "add_sat", "planet": "P2", "text": f"writer fact {i:03d}"}])


def store_writer(project: Path) -> None:
    """Like a capture job: observations added through a connection of its own."""
    memory = open_project_memory(project)
    assert memory is not None
    with memory:
        for i in range(WRITES):
            memory.store.add(
                NewObservation(kind="learning", title=f"hook learning {i:03d} about caching"),
                branch=memory.scope.branch,
            )


def run_with_writers(project: Path, calls: Any) -> Any:
    """Run the client calls while both writers run to completion in threads."""
    errors: list[BaseException] = []

    def guarded(target: Any, *args: Any) -> None:
        try:
            target(*args)
        except BaseException as exc:  # noqa: BLE001 - reported below, in the test thread
            errors.append(exc)

    writers = [
        threading.Thread(target=guarded, args=(map_writer,)),
        threading.Thread(target=guarded, args=(store_writer, project)),
    ]
    for thread in writers:
        thread.start()
    try:
        result = anyio.run(calls)
    finally:
        for thread in writers:
            thread.join(timeout=120)
    assert errors == []
    return result


def test_concurrent_calls_in_process_all_succeed_while_writers_write(tmp_path: Path) -> None:
    project = make_git_project(tmp_path / "proj")
    seed_map(SESSION, storage_ops(), project)
    results: list[tuple[str, Any]] = []

    async def calls() -> None:
        async with memory_client(project) as client:

            async def one(name: str, args: dict[str, Any]) -> None:
                results.append((name, await client.call_tool(name, args)))

            async with anyio.create_task_group() as group:
                for i in range(15):
                    group.start_soon(one, "search_map", {"query": "writer fact"})
                    group.start_soon(one, "show_map", {"session": SESSION})
                    group.start_soon(one, "recall", {"query": "caching learning"})
                    group.start_soon(
                        one,
                        "remember",
                        {"kind": "decision", "title": f"mcp decision {i:03d} about caching"},
                    )
                    group.start_soon(one, "stats", {})

    run_with_writers(project, calls)
    failures = [(name, text_of(r)) for name, r in results if r.is_error]
    assert failures == []
    assert len(results) == 75
    final = load_map(paths.map_path(SESSION))
    texts = {s.text for p in final.planets() for s in p.satellites}
    assert {f"writer fact {i:03d}" for i in range(WRITES)} <= texts
    memory = open_project_memory(project)
    assert memory is not None
    with memory:
        titles = {o.title for o in memory.store.list_observations()}
    assert {f"mcp decision {i:03d} about caching" for i in range(15)} <= titles
    assert {f"hook learning {i:03d} about caching" for i in range(WRITES)} <= titles


def test_concurrent_calls_over_stdio_while_this_process_writes(tmp_path: Path) -> None:
    project = make_git_project(tmp_path / "proj")
    seed_map(SESSION, storage_ops(), project)

    async def calls() -> list[Any]:
        with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog:
            async with stdio_session(project, errlog) as client:
                out: list[Any] = []

                async def one(name: str, args: dict[str, Any]) -> None:
                    out.append(await client.call_tool(name, args))

                async with anyio.create_task_group() as group:
                    for i in range(10):
                        group.start_soon(one, "search_map", {"query": "writer fact", "k": 50})
                        group.start_soon(
                            one, "remember", {"kind": "bugfix", "title": f"stdio fix {i:03d}"}
                        )
                        group.start_soon(one, "recall", {"query": "hook learning caching"})
                return out

    results = run_with_writers(project, calls)
    assert [text_of(r) for r in results if r.is_error] == []
    assert len(results) == 30
    memory = open_project_memory(project)
    assert memory is not None
    with memory:
        titles = {o.title for o in memory.store.list_observations()}
    assert {f"stdio fix {i:03d}" for i in range(10)} <= titles
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text(encoding="utf-8")
