"""The claude_cli provider driving the real, pinned `claude` binary against the fake server.

Proves the flag set works on the tested Claude Code versions, the answer and usage are read from
the real JSON result, and no transcript is left under ~/.claude/projects.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from cms import paths
from cms.providers.claude_cli import ClaudeCliProvider
from cms.providers.model_calls import ask_for_ops
from cms.providers.usage import summarize_usage
from tests.e2e.clis import CLAUDE_VERSIONS, npm_package
from tests.fakes.anthropic_server import FakeAnthropicServer

from .conftest import make_config

OPS = '{"ops": [{"op": "add_sun", "title": "Release", "planets": [{"title": "Tags"}]}]}'


@pytest.mark.e2e
@pytest.mark.parametrize("version", CLAUDE_VERSIONS)
def test_the_real_claude_cli_answers_through_the_provider_and_leaves_no_transcript(
    version: str,
) -> None:
    binary = npm_package("claude", version) / "claude"
    scratch = Path(tempfile.mkdtemp(prefix="cc"))  # short: the CLI's unix socket path is limited
    try:
        _run_and_check(binary, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_and_check(binary: Path, scratch: Path) -> None:
    with FakeAnthropicServer(default=OPS) as server:
        env = {
            "HOME": os.environ["HOME"],
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "TMPDIR": str(scratch),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "sk-ant-fake-key-0000",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        config = make_config(
            claude_cli_path=str(binary), update_model="claude-haiku-4-5", timeout_seconds=120
        )
        provider = ClaudeCliProvider(config.provider, env)
        answer = ask_for_ops(
            provider,
            config,
            map_view="(the map is empty)",
            exchange_text="User: tag releases as vX.Y.Z",
            project="p",
            reasons=["op 1 add_sat: unknown planet P4"],
        )
        requests = server.message_requests
    assert answer == {
        "ops": [{"op": "add_sun", "title": "Release", "planets": [{"title": "Tags"}]}]
    }
    assert len(requests) == 1
    assert requests[0].body["model"] == "claude-haiku-4-5"
    assert "memory keeper of one coding chat" in requests[0].all_text
    assert "unknown planet P4" in requests[0].all_text
    assert summarize_usage()["total"]["calls"] == 1
    projects = Path(os.environ["HOME"]) / ".claude" / "projects"
    assert [p for p in projects.rglob("*") if p.is_file()] == []
    assert Path(paths.sandbox_dir()).is_dir()
