"""The MCP server and the hooks share one memory: what one writes, the other reads.

Both directions run real processes: `python -m cms mcp` over stdio and `python -m cms hook ...`
with the same CMS_HOME, as Claude Code would start them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp_server.helpers import make_git_project, server_env, stdio_session, text_of

pytestmark = pytest.mark.slow


def run_hook(event: str, payload: dict[str, Any], extra_env: dict[str, str] | None = None) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "cms", "hook", event],
        input=json.dumps(payload).encode("utf-8"),
        capture_output=True,
        env={**server_env(), **(extra_env or {})},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    return json.loads(done.stdout) if done.stdout.strip() else None


def over_stdio(cwd: Path, tmp_path: Path, name: str, args: dict[str, Any]) -> Any:
    async def run() -> Any:
        with open(tmp_path / f"{name}-stderr.txt", "w", encoding="utf-8") as errlog:
            async with stdio_session(cwd, errlog) as client:
                return await client.call_tool(name, args)

    return anyio.run(run)


def test_an_observation_remembered_through_mcp_is_recalled_by_the_prompt_hook(
    tmp_path: Path,
) -> None:
    project = make_git_project(tmp_path / "proj")
    result = over_stdio(
        project,
        tmp_path,
        "remember",
        {
            "kind": "decision",
            "title": "Invoices are rendered with WeasyPrint",
            "body": "ReportLab could not lay out the multi-page invoice tables.",
            "files": ["billing/invoice_pdf.py"],
            "importance": 4,
        },
    )
    assert not result.is_error, text_of(result)
    reply = run_hook(
        "UserPromptSubmit",
        {
            "session_id": "chat-after-mcp",
            "transcript_path": str(tmp_path / "missing.jsonl"),
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": "How do we render the invoice PDF tables again?",
        },
    )
    assert reply is not None, "the prompt hook injected nothing"
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert "Invoices are rendered with WeasyPrint" in context


def test_a_fact_written_by_the_stop_hook_is_found_by_search_map(tmp_path: Path) -> None:
    project = make_git_project(tmp_path / "proj")
    session = "chat-stop-mcp"
    reply = run_hook(
        "Stop",
        {
            "session_id": session,
            "transcript_path": str(tmp_path / "missing.jsonl"),
            "cwd": str(project),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "Decided: the session cache uses Redis 7 from now on.",
        },
        extra_env={"CMS_SYNC": "1"},
    )
    assert reply is None
    result = over_stdio(project, tmp_path, "search_map", {"query": "redis cache"})
    assert not result.is_error, text_of(result)
    assert result.structured_content["session"] == session
    assert any("Redis 7" in fact["text"] for fact in result.structured_content["facts"])
    assert "Redis 7" in text_of(result)
