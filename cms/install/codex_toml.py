"""Our `[mcp_servers.cms]` table in a Codex config.toml, edited with tomlkit so every other
table, comment and blank line stays as written (the one module that imports tomlkit).

It never writes a file: it returns the new text, checked by parsing it again.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomlkit

from cms.errors import InstallError

MCP_NAME = "cms"


def load_toml(text: str, path: Path) -> dict[str, Any]:
    """The parsed document (plain dicts); InstallError when it is not valid TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); left it untouched") from None


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):
        servers.pop(MCP_NAME, None)
        if not servers:
            del data["mcp_servers"]
    return data


def _table(entry: dict[str, Any]) -> Any:
    table = tomlkit.table()
    table["command"] = entry["command"]
    table["args"] = entry["args"]
    if entry.get("env"):
        env = tomlkit.inline_table()
        env.update(entry["env"])
        table["env"] = env
    table.add(tomlkit.nl())  # a blank line before whatever table follows ours
    return table


def edit_codex_mcp(
    path: Path, text: str | None, entry: dict[str, Any] | None, is_ours: Callable[[Any], bool]
) -> str:
    """The new text of a Codex config.toml with our table set to `entry` (None: removed).

    `is_ours(value)` says whether a present mcp_servers.cms is ours; one that is not ours is
    refused. The result is parsed again and compared with the original, so a file we would
    damage is never written.
    """
    source = text or ""
    before = load_toml(source, path)
    servers = before.get("mcp_servers", {})
    current = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    if current is not None and not is_ours(current):
        raise InstallError(
            f'{path} has an MCP server named "{MCP_NAME}" that is not ours; left it untouched'
        )
    if current is None and entry is None:
        return source
    document = tomlkit.parse(source)
    if entry is None:
        del document["mcp_servers"][MCP_NAME]
        if not before["mcp_servers"].keys() - {MCP_NAME}:
            del document["mcp_servers"]
    elif "mcp_servers" in document:
        document["mcp_servers"][MCP_NAME] = _table(entry)
    else:
        document["mcp_servers"] = tomlkit.table(is_super_table=True)
        document["mcp_servers"][MCP_NAME] = _table(entry)
    after_text = document.as_string()
    if after_text.endswith("\n\n") and not source.endswith("\n\n"):
        after_text = after_text[:-1]  # our table came last: no blank line at the end
    after = load_toml(after_text, path)
    got = after.get("mcp_servers", {}).get(MCP_NAME)
    if _without_ours(after) != _without_ours(before) or got != entry:
        raise InstallError(f"{path}: cms could not edit its table safely; left it untouched")
    return after_text


def codex_servers(path: Path) -> Any:
    """The mcp_servers value of a Codex config.toml (OSError, UnicodeDecodeError and
    InstallError propagate)."""
    with open(path, encoding="utf-8") as handle:
        return load_toml(handle.read(), path).get("mcp_servers", {})
