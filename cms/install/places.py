"""Where `cms install` writes: the agents' settings and MCP files, the `cms` it wires, the data
folder pinned in its commands, and paths as messages show them.

Only computes paths (it reads the environment, never a file); the data folder rule is cms.paths'.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cms import paths
from cms.errors import InstallError

AGENTS = ("claude", "codex")
AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex"}


def _unknown_agent(agent: str) -> InstallError:
    return InstallError(f"unknown agent {agent!r} (expected one of {', '.join(AGENTS)})")


def settings_path(agent: str, project: bool, cwd: Path | None = None) -> Path:
    """The settings file our hooks go into for an agent and scope."""
    base = Path.cwd() if cwd is None else cwd
    if agent == "claude":
        return (base / ".claude" if project else Path.home() / ".claude") / "settings.json"
    if agent == "codex":
        if project:
            return base / ".codex" / "hooks.json"
        codex_home = os.environ.get("CODEX_HOME")
        return (Path(codex_home).expanduser() if codex_home else Path.home() / ".codex") / (
            "hooks.json"
        )
    raise _unknown_agent(agent)


def mcp_config_path(agent: str, project: bool, cwd: Path | None = None) -> Path:
    """Where an agent looks for MCP servers: Claude Code's ~/.claude.json (user) or the
    project's .mcp.json; Codex's config.toml under CODEX_HOME or the project's .codex/."""
    base = Path.cwd() if cwd is None else cwd
    if agent == "claude":
        return base / ".mcp.json" if project else Path.home() / ".claude.json"
    if agent == "codex":
        return settings_path(agent, project, cwd).with_name("config.toml")
    raise _unknown_agent(agent)


def venv_cms(venv: Path) -> Path:
    """The `cms` console script inside a virtual environment."""
    if os.name == "nt":
        return venv / "Scripts" / "cms.exe"
    return venv / "bin" / "cms"


def running_cms() -> Path:
    """The `cms` console script beside the Python running now (the venv's, not a link to it)."""
    return Path(sys.executable).parent / ("cms.exe" if os.name == "nt" else "cms")


def absolute(raw: str) -> Path:
    """A path from the command line: ~ expanded, made absolute, links kept."""
    return Path(os.path.abspath(os.path.expanduser(raw)))


def data_home() -> Path:
    """The data folder now: $CMS_HOME, else ~/.cms (cms.paths' rule)."""
    return Path(paths.cms_home())


def pinned_home() -> Path | None:
    """CMS_HOME to fix in the hook commands: the one set now, unless it is the default."""
    value = os.environ.get("CMS_HOME")
    if not value:
        return None
    home = absolute(value)
    return None if home == Path.home() / ".cms" else home


def record_home() -> Path:
    """The data folder that keeps the install record: the pinned one, else the default."""
    return pinned_home() or data_home()


def display_path(path: Path) -> str:
    """A path for messages, with the home folder shown as ~."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)
