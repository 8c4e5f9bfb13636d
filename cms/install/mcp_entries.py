"""Our `cms mcp` server entry in an agent's MCP config: Claude Code's ~/.claude.json or
.mcp.json (JSON "mcpServers"), Codex's config.toml (through codex_toml).

Plans changes only; writing and records are settings_file's and records' work.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from cms.errors import InstallError
from cms.install.codex_toml import MCP_NAME, codex_servers, edit_codex_mcp
from cms.install.hook_entries import is_cms_program
from cms.install.settings_file import Change, Settings, load_settings, plan_change


def mcp_entry(cms: Path, cms_home: Path | None) -> dict[str, Any]:
    """Our server entry: `cms mcp` over stdio, with CMS_HOME when it is not the default."""
    entry: dict[str, Any] = {"type": "stdio", "command": str(cms), "args": ["mcp"]}
    if cms_home is not None:
        entry["env"] = {"CMS_HOME": str(cms_home)}
    return entry


def is_our_mcp_entry(entry: Any) -> bool:
    """Our recognition rule: a server whose command is a `cms` executable and args are ["mcp"]."""
    if not isinstance(entry, dict) or entry.get("args") != ["mcp"]:
        return False
    command = entry.get("command")
    return isinstance(command, str) and is_cms_program(command)


def _servers(data: dict[str, Any]) -> dict[str, Any] | None:
    servers = data.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise InstallError('"mcpServers" is not a JSON object')
    return servers


def merge_mcp_json(data: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` whose mcpServers.cms is our entry (in place if one of ours was there)."""
    data = copy.deepcopy(data)
    servers = _servers(data)
    if servers is None:
        servers = data["mcpServers"] = {}
    current = servers.get(MCP_NAME)
    if current is not None and not is_our_mcp_entry(current):
        raise InstallError(f'an MCP server named "{MCP_NAME}" that is not ours is already there')
    servers[MCP_NAME] = copy.deepcopy(entry)
    return data


def remove_mcp_json(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` without our mcpServers.cms; every other entry (and key) stays, and
    "mcpServers" goes when our removal emptied it (as an event list of hooks does)."""
    data = copy.deepcopy(data)
    servers = _servers(data)
    if servers is not None and is_our_mcp_entry(servers.get(MCP_NAME)):
        del servers[MCP_NAME]
        if not servers:
            del data["mcpServers"]
    return data


def plan_mcp_change(agent: str, path: Path, entry: dict[str, Any] | None) -> Change:
    """The planned new text of an agent's MCP config with our server set (None: removed)."""
    if agent == "claude":
        if entry is None:
            return plan_change(path, remove_mcp_json)
        return plan_change(path, lambda data: merge_mcp_json(data, entry))
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text: str | None = handle.read()
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    if text is None and entry is None:
        return Change(Settings(path, {}, ""), "")  # no file: nothing to remove
    codex_entry = None if entry is None else {k: v for k, v in entry.items() if k != "type"}
    after = edit_codex_mcp(path, text, codex_entry, is_our_mcp_entry)
    return Change(Settings(path, {}, text), after)


def registered_mcp(agent: str, path: Path) -> dict[str, Any] | None:
    """Our server entry in an agent's MCP config, or None (unreadable files count as none)."""
    try:
        servers = _servers(load_settings(path).data) if agent == "claude" else codex_servers(path)
    except (OSError, UnicodeDecodeError, InstallError):
        return None
    entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    return entry if is_our_mcp_entry(entry) else None
