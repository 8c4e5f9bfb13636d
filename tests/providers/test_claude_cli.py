"""The claude_cli provider through a fake `claude` executable on PATH that records its run."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from cms import paths
from cms.errors import ProviderError
from cms.providers.claude_cli import ClaudeCliProvider, project_slug
from cms.providers.model_calls import ask_for_ops, select_with_model
from cms.providers.usage import summarize_usage
from tests.fakes.anthropic_server import sleep_until

from .conftest import log_lines, make_config

FAKE_CLAUDE = r'''#!{python}
"""A stand-in for the claude CLI: records argv, env, cwd and stdin, then acts per FAKE_CLAUDE_MODE."""
import json, os, re, subprocess, sys, time, uuid

record = {{"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(),
          "stdin": sys.stdin.read()}}
with open(os.environ["FAKE_CLAUDE_RECORD"], "a", encoding="utf-8") as handle:
    handle.write(json.dumps(record) + "\n")
session = str(uuid.uuid4())
# Like claude 2.1.x with a large system prompt: a transcript stub despite --no-session-persistence.
folder = os.path.join(os.environ["HOME"], ".claude", "projects", re.sub(r"[^A-Za-z0-9]", "-", os.getcwd()))
os.makedirs(os.path.join(folder, session, "subagents"), exist_ok=True)
with open(os.path.join(folder, session + ".jsonl"), "w") as handle:
    handle.write('{{"type": "summary", "summary": "ai-title"}}\n')
mode = os.environ.get("FAKE_CLAUDE_MODE", "ok")
if mode == "ok":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                      "result": os.environ.get("FAKE_CLAUDE_RESULT", '{{"ops": []}}'),
                      "session_id": session, "modelUsage": {{"claude-haiku-4-5": {{}}}},
                      "usage": {{"input_tokens": 30, "cache_read_input_tokens": 12,
                                "cache_creation_input_tokens": 0, "output_tokens": 9}}}}))
elif mode == "is_error":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": True,
                      "result": "API Error: 529 overloaded", "session_id": session}}))
    sys.exit(1)
elif mode == "crash":
    sys.stderr.write("claude: fatal: something broke\n")
    sys.exit(3)
elif mode == "not_json":
    print("Hello! I am a chatty CLI, not JSON.")
elif mode == "hang":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["FAKE_CLAUDE_CHILD"], "w") as handle:
        handle.write(str(child.pid))
    time.sleep(120)
'''


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake `claude` first on PATH; returns the file its runs are recorded in."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "claude"
    script.write_text(FAKE_CLAUDE.format(python=os.path.realpath(sys.executable)), encoding="utf-8")
    script.chmod(0o755)
    record = tmp_path / "claude-runs.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLAUDE_RECORD", str(record))
    monkeypatch.setenv("FAKE_CLAUDE_CHILD", str(tmp_path / "child.pid"))
    return record


def _runs(record: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def _projects() -> Path:
    return Path(os.environ["HOME"]) / ".claude" / "projects"


def _ask(config, reasons=None):  # type: ignore[no-untyped-def]
    return ask_for_ops(
        ClaudeCliProvider(config.provider),
        config,
        map_view="S1 Topic",
        exchange_text="User: hello",
        reasons=reasons,
        project="proj-cli",
    )


def test_a_call_runs_in_the_sandbox_with_cms_disabled_and_leaves_no_transcript(
    fake_claude: Path,
) -> None:
    other = _projects() / "-home-user-other-project"
    other.mkdir(parents=True)
    (other / "kept.jsonl").write_text("{}\n", encoding="utf-8")
    config = make_config(update_model="claude-haiku-4-5")
    assert _ask(config, reasons=["op 1 add_sat: unknown planet P9"]) == {"ops": []}

    (run,) = _runs(fake_claude)
    assert isinstance(run["env"], dict) and isinstance(run["argv"], list)
    assert run["env"]["CMS_DISABLE"] == "1"
    assert run["env"]["CLAUDE_CODE_SKIP_PROMPT_HISTORY"] == "1"
    assert run["cwd"] == os.path.realpath(paths.sandbox_dir())
    argv = run["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"]
    assert argv[argv.index("--model") + 1] == "claude-haiku-4-5"
    assert "inc_mass" in argv[argv.index("--system-prompt") + 1]
    for flag in ("--no-session-persistence", "--disable-slash-commands", "--strict-mcp-config"):
        assert flag in argv
    assert argv[argv.index("--tools") + 1] == ""
    assert argv[argv.index("--setting-sources") + 1] == ""
    assert "User: hello" in str(run["stdin"]) and "unknown planet P9" in str(run["stdin"])

    assert not (_projects() / project_slug(str(paths.sandbox_dir()))).exists()
    assert sorted(p.relative_to(_projects()).as_posix() for p in _projects().rglob("*")) == [
        "-home-user-other-project",
        "-home-user-other-project/kept.jsonl",
    ]


def test_usage_of_a_cli_call_is_recorded(fake_claude: Path) -> None:
    config = make_config()
    _ask(config)
    summary = summarize_usage()
    assert summary["total"] == {"calls": 1, "input_tokens": 42, "output_tokens": 9}
    assert summary["by_model"][0]["model"] == "claude-haiku-4-5"
    assert summary["by_project"][0]["project"] == "proj-cli"


@pytest.mark.parametrize(
    ("mode", "message"),
    [("is_error", "529 overloaded"), ("crash", "something broke"), ("not_json", "not JSON")],
)
def test_cli_failures_raise_provider_error_with_one_log_line(
    fake_claude: Path, monkeypatch: pytest.MonkeyPatch, mode: str, message: str
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", mode)
    with pytest.raises(ProviderError, match=message):
        _ask(make_config())
    assert len(log_lines("provider_error")) == 1
    assert not any(_projects().rglob("*.jsonl"))


def test_a_hanging_cli_is_killed_with_its_children_at_the_timeout(
    fake_claude: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "hang")
    started = time.monotonic()
    with pytest.raises(ProviderError, match="timed out after 1s"):
        _ask(make_config(timeout_seconds=1, max_retries=0))
    assert time.monotonic() - started < 1 + 10  # loose: one timeout on a busy machine
    child = int((tmp_path / "child.pid").read_text(encoding="utf-8"))

    def gone() -> bool:
        try:
            state = Path(f"/proc/{child}/stat").read_text(encoding="utf-8").split(") ")[-1][:1]
        except FileNotFoundError:
            return True
        return state == "Z"

    assert sleep_until(gone, timeout=10), f"child process {child} outlived the timeout"
    assert len(log_lines("provider_error")) == 1
    assert not any(_projects().rglob("*.jsonl"))


def test_a_missing_cli_is_a_provider_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ProviderError, match="not found"):
        _ask(make_config(claude_cli_path="claude-that-does-not-exist"))


def test_search_through_the_cli_returns_indexes(
    fake_claude: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_RESULT", "2")
    config = make_config()
    picked = select_with_model(
        ClaudeCliProvider(config.provider),
        config,
        query="q",
        numbered_facts=["1. a", "2. b"],
        k=1,
        project="p",
    )
    assert picked == [1]


def test_stale_leftovers_in_the_sandbox_folder_are_removed_but_fresh_foreign_files_kept(
    fake_claude: Path,
) -> None:
    slug_dir = _projects() / project_slug(str(paths.sandbox_dir()))
    slug_dir.mkdir(parents=True)
    stale = slug_dir / "old-crashed-run.jsonl"
    stale.write_text("{}\n", encoding="utf-8")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    fresh = slug_dir / "concurrent-run.jsonl"
    fresh.write_text("{}\n", encoding="utf-8")
    _ask(make_config())
    assert not stale.exists()
    assert fresh.exists()
    assert [p.name for p in slug_dir.iterdir()] == ["concurrent-run.jsonl"]
