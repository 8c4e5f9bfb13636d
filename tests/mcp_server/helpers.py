"""Helpers for MCP server tests: real git projects, seeded maps, and both kinds of client.

The in-memory client talks to a server built in this process; the stdio client starts
`python -m cms mcp` as a real subprocess with the test's CMS_HOME and HOME.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from cms import paths
from cms.config import Config
from cms.map.ops import apply_answer
from cms.map.store import edit_map
from cms.mcp_server import build_server
from cms.project import identify_project

ROOT = Path(__file__).resolve().parents[2]

TOOLS = (  # the server's own tools, in the order it lists them (the hook tools follow)
    "search_map",
    "show_map",
    "recall",
    "remember",
    "update",
    "supersede",
    "correct",
    "search",
    "get",
    "forget",
    "stats",
)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.strip()


def make_git_project(path: Path, branch: str = "main") -> Path:
    """A real repository with one commit on `branch`."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "user.name", "Test")
    (path / "README.md").write_text("project\n", encoding="utf-8")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "first")
    return path


def seed_map(session: str, ops: Sequence[dict[str, Any]], project: str | Path = "p") -> None:
    """Apply ops to the session's map under its lock (as the Stop hook's update does); the map
    names project, or the project of that folder."""
    if isinstance(project, Path):
        project = identify_project(project).id

    def change(cmap: Any) -> tuple[Any, bool]:
        report = apply_answer(cmap, {"ops": list(ops)})
        assert not report.rejected, report.reasons()
        return report, report.changed

    edit_map(paths.map_path(session), change, session_id=session, project=project)


def storage_ops() -> list[dict[str, Any]]:
    """A sun Storage (S1) > Database (P2) with facts F3, F4, and Deploy (S5) > CI (P6) > F7."""
    return [
        {
            "op": "add_sun",
            "title": "Storage",
            "planets": [
                {
                    "title": "Database",
                    "sats": ["Use Postgres 16 with pgvector", "Connection pool size is 20"],
                }
            ],
        },
        {
            "op": "add_sun",
            "title": "Deploy",
            "planets": [{"title": "CI", "sats": ["GitHub Actions runs make check"]}],
        },
    ]


def text_of(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test environment (CMS_HOME, HOME from the autouse fixture) plus the repo on the path."""
    env = {
        name: os.environ[name]
        for name in ("CMS_HOME", "HOME", "CMS_PROVIDER", "PATH")
        if name in os.environ
    }
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra or {})
    return env


@asynccontextmanager
async def memory_client(cwd: Path, config: Config | None = None) -> AsyncIterator[Client]:
    """A client connected in process to a server built over the default stores."""
    server = build_server(config=config or Config(), cwd=cwd)
    async with Client(server) as client:
        yield client


@asynccontextmanager
async def stdio_session(cwd: Path, errlog: TextIO, mode: str = "auto") -> AsyncIterator[Client]:
    """A client talking to `python -m cms mcp` started in cwd; its stderr goes to errlog.

    mode "legacy" uses the initialize handshake, as Claude Code and Codex do.
    """
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cms", "mcp"], env=server_env(), cwd=str(cwd)
    )
    async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
        yield client
