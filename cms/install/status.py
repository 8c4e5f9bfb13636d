"""`cms install --status`: per agent, where our hooks are, the events wired, the `cms` they run,
the data folder, the provider `auto` picks now, the last hook error, and our MCP servers.

Only reads: it never changes a settings file (an unreadable one is reported, not refused).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cms import paths
from cms.errors import InstallError
from cms.install.hook_entries import (
    claude_version,
    cms_of,
    events_for,
    installed_hooks,
    pinned_home_of,
)
from cms.install.mcp_entries import registered_mcp
from cms.install.options import InstallOptions, resolve_cms
from cms.install.places import (
    AGENT_NAMES,
    AGENTS,
    data_home,
    display_path,
    is_executable,
    mcp_config_path,
    settings_path,
)
from cms.install.self_check import provider_now
from cms.install.settings_file import load_settings
from cms.log import last_error

EXIT_OK = 0


def _state(cms: Path | None) -> str:
    return "ok" if cms is not None and is_executable(cms) else "MISSING: reinstall"


def _places(agent: str) -> list[tuple[Path, dict[str, list[dict[str, Any]]]]]:
    """(settings file, our handlers) for the user and project files that hold our hooks."""
    name = AGENT_NAMES[agent]
    places = []
    user_file, project_file = settings_path(agent, False), settings_path(agent, True)
    for path in [user_file] + ([project_file] if project_file != user_file else []):
        try:
            found = installed_hooks(load_settings(path).data)
        except InstallError as exc:
            print(f"{name}: cannot read settings: {exc}")
            continue
        if found:
            places.append((path, found))
    return places


def _print_place(
    agent: str,
    path: Path,
    found: dict[str, list[dict[str, Any]]],
    version: tuple[int, int, int] | None,
    default_cms: Path | None,
) -> None:
    name = AGENT_NAMES[agent]
    print(f"{name}: installed in {display_path(path)}")
    print(f"  events: {', '.join(found)}")
    expected = events_for(agent, version if agent == "claude" else None)
    missing = [e for e in expected if e not in found]
    unknown = [e for e in found if e not in expected]
    if missing:
        print(f"  not wired: {', '.join(missing)} (run `cms install` again)")
    if unknown:
        print(f"  WARNING: this {name} version does not know {', '.join(unknown)}")
    cms = cms_of(found) or default_cms
    print(f"  command: {cms} ({_state(cms)})")
    home = pinned_home_of(found) or data_home()
    print(f"  data: {home}")
    provider, reason = provider_now(cms, dict(os.environ, CMS_HOME=str(home)))
    print(f"  provider (auto): {provider}" + (f" ({reason})" if reason else ""))
    print(f"  last hook error: {last_error(paths.log_path_in(str(home))) or 'none'}")


def show_status(options: InstallOptions) -> int:
    """Print, per agent: installed or not, the events wired, data, provider, last hook error."""
    default_cms: Path | None
    try:
        default_cms = resolve_cms(options)
    except InstallError:
        default_cms = None
    version = claude_version()
    for agent in AGENTS:
        places = _places(agent)
        if not places:
            print(
                f"{AGENT_NAMES[agent]}: not installed ({display_path(settings_path(agent, False))})"
            )
        for path, found in places:
            _print_place(agent, path, found, version, default_cms)
    for agent in AGENTS:
        for path in dict.fromkeys(mcp_config_path(agent, project) for project in (False, True)):
            entry = registered_mcp(agent, path)
            if entry is not None:
                print(
                    f"{AGENT_NAMES[agent]}: MCP server registered in {display_path(path)} "
                    f"({entry['command']} mcp, {_state(Path(entry['command']))})"
                )
    return EXIT_OK
