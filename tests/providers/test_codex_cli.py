"""The codex_cli provider through a fake `codex` executable on PATH that records its arguments,
working folder, environment and stdin, and answers with `codex exec --json` events."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from cms import paths
from cms.errors import ProviderError
from cms.map.model import new_map
from cms.map.store import load_map, save_map
from cms.providers.codex_cli import CodexCliProvider
from cms.providers.model_calls import ask_for_ops
from cms.providers.select import choose_provider, make_provider
from cms.providers.usage import summarize_usage
from cms.transcripts.exchange import Exchange
from cms.worker.update import update_chat_map

from .conftest import log_lines, make_config

FAKE_CODEX = r'''#!{python}
"""A stand-in for `codex exec --json`: records its run, then answers per FAKE_CODEX_MODE."""
import json, os, sys, time

record = {{"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(),
          "stdin": sys.stdin.read()}}
with open(os.environ["FAKE_CODEX_RECORD"], "a", encoding="utf-8") as handle:
    handle.write(json.dumps(record) + "\n")
if "--ephemeral" not in sys.argv:  # as codex does: a rollout file per session
    folder = os.path.join(os.environ["HOME"], ".codex", "sessions", "2026", "12", "03")
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, "rollout-x.jsonl"), "w").write("{{}}\n")
mode = os.environ.get("FAKE_CODEX_MODE", "ok")
def emit(event):
    print(json.dumps(event), flush=True)
emit({{"type": "thread.started", "thread_id": "t-1"}})
emit({{"type": "turn.started"}})
if mode == "ok":
    emit({{"type": "item.completed", "item": {{"id": "i0", "type": "reasoning", "text": "hm"}}}})
    emit({{"type": "item.completed", "item": {{"id": "i1", "type": "agent_message",
          "text": os.environ.get("FAKE_CODEX_ANSWER", '{{"ops": []}}')}}}})
    emit({{"type": "turn.completed", "usage": {{"input_tokens": 120, "cached_input_tokens": 40,
          "output_tokens": 15}}}})
elif mode == "failed":
    emit({{"type": "turn.failed", "error": {{"message": "stream disconnected: 401 Unauthorized"}}}})
    sys.exit(1)
elif mode == "crash":
    sys.stderr.write("codex: error: not logged in\n")
    sys.exit(2)
elif mode == "silent":
    emit({{"type": "turn.completed", "usage": {{}}}})
elif mode == "hang":
    time.sleep(120)
'''


@pytest.fixture
def fake_codex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake `codex` alone on PATH (no claude); returns the file its runs are recorded in."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "codex"
    script.write_text(FAKE_CODEX.format(python=os.path.realpath(sys.executable)), encoding="utf-8")
    script.chmod(0o755)
    record = tmp_path / "codex-runs.jsonl"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_CODEX_RECORD", str(record))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CMS_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    return record


def _runs(record: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def test_auto_picks_codex_when_it_is_on_path_and_claude_is_not(fake_codex: Path) -> None:
    mode, reason = choose_provider(make_config())
    assert mode == "codex_cli" and reason.startswith("codex found at ")
    assert isinstance(make_provider(make_config()), CodexCliProvider)


def test_a_call_runs_ephemeral_in_the_sandbox_with_cms_disabled(fake_codex: Path) -> None:
    config = make_config(codex_model="gpt-5.1-codex-mini")
    answer = ask_for_ops(
        CodexCliProvider(config.provider),
        config,
        map_view="S1 Topic",
        exchange_text="User: we use port 6543",
        reasons=None,
        project="proj-codex",
    )
    assert answer == {"ops": []}
    (run,) = _runs(fake_codex)
    argv, env = run["argv"], run["env"]
    assert isinstance(argv, list) and isinstance(env, dict)
    assert argv[:2] == ["exec", "--ephemeral"] and argv[-1] == "-"
    assert argv[argv.index("--sandbox") + 1] == "read-only"
    assert argv[argv.index("--model") + 1] == "gpt-5.1-codex-mini"
    assert "--json" in argv and "--skip-git-repo-check" in argv
    assert run["cwd"] == os.path.realpath(paths.sandbox_dir())
    assert argv[argv.index("--cd") + 1] == str(paths.sandbox_dir())
    assert env["CMS_DISABLE"] == "1"
    assert "inc_mass" in str(run["stdin"]) and "we use port 6543" in str(run["stdin"])
    assert not (Path(os.environ["HOME"]) / ".codex" / "sessions").exists()
    usage = summarize_usage()
    assert usage["total"] == {"calls": 1, "input_tokens": 120, "output_tokens": 15}


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("failed", "401 Unauthorized"),
        ("crash", "not logged in"),
        ("silent", "gave no answer"),
    ],
)
def test_codex_failures_raise_provider_error(
    fake_codex: Path, monkeypatch: pytest.MonkeyPatch, mode: str, message: str
) -> None:
    monkeypatch.setenv("FAKE_CODEX_MODE", mode)
    provider = CodexCliProvider(make_config().provider)
    with pytest.raises(ProviderError, match=message):
        provider.complete(system="s", prompt="p", model="m", max_tokens=64)


def test_a_hanging_codex_is_killed_at_the_timeout(
    fake_codex: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CODEX_MODE", "hang")
    provider = CodexCliProvider(make_config(timeout_seconds=1).provider)
    with pytest.raises(ProviderError, match="timed out after 1s"):
        provider.complete(system="s", prompt="p", model="m", max_tokens=64)


def test_the_worker_updates_a_map_with_codexs_answer(
    fake_codex: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ops = {
        "ops": [
            {
                "op": "add_sun",
                "title": "Database",
                "planets": [{"title": "Port", "sats": ["Port is 6543 (pgbouncer)"]}],
            }
        ]
    }
    monkeypatch.setenv("FAKE_CODEX_ANSWER", json.dumps(ops))
    path = tmp_path / "map.json"
    save_map(path, new_map("chat-codex", "proj"))
    config = make_config()
    report = update_chat_map(
        path,
        Exchange(user="we moved the db to port 6543 behind pgbouncer", assistant="Done.", turn=1),
        config=config,
        session_id="chat-codex",
        project="proj",
        provider=make_provider(config),
    )
    assert report.proposed_by != "local" and len(report.accepted) == 1
    assert "Port is 6543 (pgbouncer)" in json.dumps(load_map(path).to_dict())
    assert not log_lines("op_rejected")
