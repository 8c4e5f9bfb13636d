"""search_map and show_map through the SDK's in-memory client: results, choice of map, errors."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import anyio

from cms import paths
from cms.map.store import load_map, save_map
from tests.mcp_server.helpers import memory_client, seed_map, storage_ops, text_of


def call(cwd: Path, name: str, args: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with memory_client(cwd) as client:
            return await client.call_tool(name, args)

    return anyio.run(run)


def test_tools_are_listed_with_descriptions_and_schemas(tmp_path: Path) -> None:
    async def run() -> Any:
        async with memory_client(tmp_path) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in anyio.run(run)}
    assert {"search_map", "show_map", "recall", "forget", "stats"} <= set(tools)
    for tool in tools.values():
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.input_schema["type"] == "object"
    search = tools["search_map"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["query"]["minLength"] == 1
    assert search["properties"]["k"]["minimum"] == 1
    assert tools["search_map"].annotations.read_only_hint is True
    assert tools["forget"].annotations.destructive_hint is True


def test_search_map_returns_facts_verbatim_with_id_and_topic_path(tmp_path: Path) -> None:
    seed_map("chat-a", storage_ops())
    result = call(tmp_path, "search_map", {"query": "postgres version", "session": "chat-a"})
    assert not result.is_error, text_of(result)
    assert "F3 [Storage > Database] Use Postgres 16 with pgvector" in text_of(result)
    data = result.structured_content
    assert data["session"] == "chat-a"
    assert data["selector"] == "local"
    assert data["facts"][0] == {
        "id": "F3",
        "text": "Use Postgres 16 with pgvector",
        "path": "Storage > Database",
        "archived": False,
        "score": data["facts"][0]["score"],
    }


def test_search_map_without_session_uses_the_chat_updated_last(tmp_path: Path) -> None:
    seed_map(
        "older",
        [
            {
                "op": "add_sun",
                "title": "Old",
                "planets": [{"title": "Stuff", "sats": ["The old chat used Redis for the cache"]}],
            }
        ],
        tmp_path,
    )
    seed_map(
        "newer",
        [
            {
                "op": "add_sun",
                "title": "New",
                "planets": [
                    {"title": "Stuff", "sats": ["The new chat uses Memcached for the cache"]}
                ],
            }
        ],
        tmp_path,
    )
    past = time.time() - 100
    os.utime(paths.map_path("older"), (past, past))
    result = call(tmp_path, "search_map", {"query": "cache"})
    assert result.structured_content["session"] == "newer"
    assert "Memcached" in text_of(result)
    assert "Redis" not in text_of(result)


def test_without_a_session_a_map_tool_never_reads_another_projects_chat(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    seed_map("chat-of-a", storage_ops(), first)
    result = call(second, "search_map", {"query": "postgres"})
    assert result.is_error and "no chat of project" in text_of(result)
    assert "Postgres" not in text_of(call(second, "show_map", {}))
    assert "Postgres 16" in text_of(call(first, "search_map", {"query": "postgres"}))


def test_search_map_limits_results_to_k(tmp_path: Path) -> None:
    seed_map(
        "chat-k",
        [
            {
                "op": "add_sun",
                "title": "Many",
                "planets": [
                    {"title": "Cache", "sats": [f"cache fact number {i}" for i in range(8)]}
                ],
            }
        ],
        tmp_path,
    )
    result = call(tmp_path, "search_map", {"query": "cache fact", "k": 3})
    assert len(result.structured_content["facts"]) == 3


def test_search_map_marks_archived_facts(tmp_path: Path) -> None:
    seed_map("chat-arch", storage_ops())
    cmap = load_map(paths.map_path("chat-arch"))
    sun = cmap.suns[1]
    planet = sun.planets.pop()
    planet.archived_at, planet.sun_id, planet.sun_title = cmap.updated_at, sun.id, sun.title
    cmap.archive.append(planet)
    save_map(paths.map_path("chat-arch"), cmap)
    result = call(tmp_path, "search_map", {"query": "github actions", "session": "chat-arch"})
    assert "F7 [Deploy > CI] (archived) GitHub Actions runs make check" in text_of(result)
    assert result.structured_content["facts"][0]["archived"] is True


def test_search_map_says_so_when_nothing_matches(tmp_path: Path) -> None:
    seed_map("chat-b", storage_ops())
    result = call(tmp_path, "search_map", {"query": "kubernetes helm", "session": "chat-b"})
    assert not result.is_error
    assert "No stored fact of chat chat-b matches" in text_of(result)
    assert result.structured_content["facts"] == []


def test_search_map_for_a_session_without_map_is_an_actionable_error(tmp_path: Path) -> None:
    seed_map("chat-c", storage_ops())
    result = call(tmp_path, "search_map", {"query": "postgres", "session": "nope"})
    assert result.is_error
    text = text_of(result)
    assert "no chat map yet for session 'nope'" in text
    assert "without a session" in text


def test_map_tools_explain_that_no_chat_has_a_map_yet(tmp_path: Path) -> None:
    for name, args in (("search_map", {"query": "postgres"}), ("show_map", {})):
        result = call(tmp_path, name, args)
        assert result.is_error
        assert "no chat has a map yet" in text_of(result)


def test_search_map_rejects_bad_arguments_with_clear_errors(tmp_path: Path) -> None:
    seed_map("chat-d", storage_ops())
    cases = [
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": "x", "k": 0}, "k"),
        ({"query": "x", "k": 500}, "k"),
        ({"query": "x", "k": "many"}, "k"),
    ]
    for args, field in cases:
        result = call(tmp_path, "search_map", args)
        assert result.is_error, args
        assert field in text_of(result), (args, text_of(result))


def test_show_map_lists_the_index_and_every_fact_with_its_id(tmp_path: Path) -> None:
    seed_map("chat-e", storage_ops())
    result = call(tmp_path, "show_map", {"session": "chat-e"})
    assert not result.is_error
    text = text_of(result)
    assert "- Storage\n  - Database (mass 1, 2 facts)" in text
    assert "    F3 Use Postgres 16 with pgvector" in text
    assert "    F7 GitHub Actions runs make check" in text
    data = result.structured_content
    assert data["session"] == "chat-e"
    assert [f["id"] for f in data["facts"]] == ["F3", "F4", "F7"]


def test_a_damaged_map_is_reported_and_left_as_it_is(tmp_path: Path) -> None:
    path = Path(paths.map_path("chat-bad"))
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{not json")
    result = call(tmp_path, "show_map", {"session": "chat-bad"})
    assert result.is_error
    assert "not valid JSON" in text_of(result)
    assert path.read_bytes() == b"{not json"
