"""No planted secret survives on any path that writes text: hooks, worker (local and model),
capture, replay, remember, MCP, ops apply and import. Every file under CMS_HOME (SQLite WAL and
shm files included) and every request the fake model server received are searched for each
secret, the shapes issue 13 found kept (CLI password flags, Azure SAS, prose) and those already
covered."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from cms import paths
from cms.config import Config, parse_config
from cms.hooks import queue as hook_queue
from cms.mcp_server import build_server
from cms.observations.access import open_project_memory
from cms.observations.capture import capture_with_outcomes
from cms.observations.model import NewObservation
from cms.worker import drain, queue
from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply
from tests.hooks.helpers import (
    assert_clean_reply,
    hook_env,
    run_hook_process,
    turn_lines,
    write_transcript,
)
from tests.secret_shapes import PLACEMENTS, SHAPES, fill
from tests.transcripts.test_redact import SECRETS as PROVIDER_SECRETS

ROOT = Path(__file__).resolve().parents[1]
SESSION = "chat-secrets-1"

# needle -> a sentence that holds it as people write it
NEW_SHAPES = {
    "Cu7lPassw0rdX": "curl -u deploy:Cu7lPassw0rdX https://api.example.com/v1/deploy",
    "My5qlPassw0rdQ": "mysql -h db -u root -pMy5qlPassw0rdQ app < dump.sql",
    "D0ckerPassw0rdZ": "docker login -u ci -p D0ckerPassw0rdZ registry.example.com",
    "Az7ureSasSignatureAbc": "https://acct.blob.core.windows.net/c/f.tgz?sv=2022-11-02&sp=r"
    "&se=2026-12-31&sig=Az7ureSasSignatureAbc%2Bdef1234%3D",
    "Pr0sePassw0rdW": "My password is Pr0sePassw0rdW for the staging box",
}


def canary(label: str, size: int) -> str:
    """A generated hex run for a token shape (never a real-looking secret pasted in)."""
    return hashlib.sha256(f"cms-canary-{label}".encode()).hexdigest()[:size]


WRAPPED_TAIL = canary("wrapped-tail", 12)
# the shapes issue 32 found kept, each needle a generated canary
ROUND_TWO = {
    f"dapi{canary('databricks', 32)}": f"set DATABRICKS_HOST then use dapi{canary('databricks', 32)}",
    f"dop_v1_{canary('do', 64)}": f"doctl auth init --context ci # dop_v1_{canary('do', 64)}",
    f"shpat_{canary('shopify', 32)}": f"the admin API wants shpat_{canary('shopify', 32)} as header",
    "Or4cleThinPw": "url = jdbc:oracle:thin:scott/Or4cleThinPw@db.example.com:1521:ORCL",
    "R3disEmptyUserPw": "REDIS_URL=redis://:R3disEmptyUserPw@cache.internal:6379/0",
    "N3trcMachinePw": "machine api.example.com login deploy password N3trcMachinePw",
    "Cr3dsEnvValue9": "DOCKER_CREDS=Cr3dsEnvValue9",
    WRAPPED_TAIL: f"token: ghp_{canary('wrapped-head', 36)}\n{WRAPPED_TAIL}\n",
}
OLD_SHAPES = {
    "S3cr3tUrlPassw0rd": "DATABASE_URL=postgres://admin:S3cr3tUrlPassw0rd@db.example.com/prod",
    "envSecretValue42": "export DB_PASSWORD=envSecretValue42",
    "Bear3rTokenValue77xyz": "Authorization: Bearer Bear3rTokenValue77xyz",
    **{secret: f"the {kind} is {secret} here" for kind, secret in PROVIDER_SECRETS},
}
# the 75 shapes of the secret matrix, each in one of its 10 placements in turn
MATRIX = {
    needle: fill(PLACEMENTS[i % len(PLACEMENTS)], line)
    for i, (_name, needle, line) in enumerate(SHAPES)
}
ALL = {**NEW_SHAPES, **ROUND_TWO, **OLD_SHAPES, **MATRIX}


def assert_nothing_kept(text: str, where: str) -> None:
    kept = [needle for needle in ALL if needle in text]
    assert not kept, f"secrets kept in {where}: {kept}"


def files_under(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): path.read_bytes().decode("utf-8", "replace")
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def assert_home_clean(stage: str) -> None:
    found = files_under(Path(paths.cms_home()))
    assert found, "CMS_HOME is empty: the paths under test wrote nothing"
    for name, text in found.items():
        assert_nothing_kept(text, f"{name} ({stage})")


def cms(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert_nothing_kept(done.stdout + done.stderr, f"the output of cms {args[0]}")
    return done.stdout


def secret_transcript(path: Path, session: str) -> Path:
    lines = list(NEW_SHAPES.values())
    old = list(OLD_SHAPES.values())
    matrix = list(MATRIX.values())
    return write_transcript(
        path,
        [
            turn_lines(
                session,
                1,
                "We decided to deploy with these: " + "; ".join(lines[:3]),
                "Decision: deploys go to staging first. " + "; ".join(lines[3:]),
                tool_command=old[0] + " && " + lines[0],
                tool_output="\n".join([*old[1:], *ROUND_TWO.values()]),
            ),
            turn_lines(
                session,
                2,
                "We decided to rotate the deploy keys monthly. Remember: " + "; ".join(old[:6]),
                "Decision: deploys go to staging first and the keys rotate monthly. "
                "I updated scripts/deploy.sh accordingly. Noted: " + "; ".join(old[6:]),
            ),
            turn_lines(
                session,
                3,
                "These fail in CI, why?\n" + "\n".join(matrix[::2]),
                "The deploy failed on these lines:\n" + "\n".join(matrix[1::2]),
                tool_command="\n".join(matrix[:10]),
                tool_output="\n".join(matrix),
            ),
        ],
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.mark.slow
def test_hooks_worker_capture_and_replay_keep_no_secret(tmp_path: Path, project: Path) -> None:
    transcript = secret_transcript(tmp_path / "t.jsonl", SESSION)
    base = {"session_id": SESSION, "cwd": str(project)}
    prompt = {**base, "transcript_path": None, "prompt": " ".join(ALL.values())}
    assert_clean_reply(run_hook_process("UserPromptSubmit", prompt))  # last-prompt.json
    held = hook_queue.try_worker_lock(SESSION)
    assert held is not None
    try:
        stop = {**base, "transcript_path": str(transcript), "stop_hook_active": False}
        assert_clean_reply(run_hook_process("Stop", stop))
        assert queue.list_jobs(SESSION), "Stop queued nothing"
        assert_home_clean("queued")
    finally:
        held.release()
    drain.drain_chat(SESSION, idle=0.0)
    end = {**base, "transcript_path": str(transcript), "reason": "other"}
    assert_clean_reply(run_hook_process("SessionEnd", end, env=hook_env({"CMS_SYNC": "1"})))
    assert "staging" in Path(paths.map_path(SESSION)).read_text(encoding="utf-8")
    replayed = secret_transcript(tmp_path / "r.jsonl", "chat-secrets-replay")
    cms("replay", str(replayed), cwd=project)
    assert_home_clean("after hooks, worker, capture and replay")


def test_remember_ops_apply_and_import_keep_no_secret(tmp_path: Path, project: Path) -> None:
    texts = list(ALL.values())
    for i in range(0, len(texts), 12):
        group = texts[i : i + 12]
        cms("remember", "--kind", "command", "--title", f"Step {i}: {group[0]}"[:190], cwd=project)
        body = "\n".join(group)
        cms("remember", "--title", f"Note {i}", "--body", body, "--files", group[1], cwd=project)
    facts = [f"{i}: {text}"[:200] for i, text in enumerate(ALL.values())]
    ops = {
        "ops": [
            {"op": "add_sun", "title": NEW_SHAPES["Pr0sePassw0rdW"][:80]},
            {"op": "add_sun", "title": "Deploy", "planets": [{"title": "Keys", "sats": facts}]},
        ]
    }
    ops_file = tmp_path / "ops.json"
    ops_file.write_text(json.dumps(ops), encoding="utf-8")
    map_file = Path(paths.chat_dir("chat-ops")) / "map.json"
    out = cms("ops", "apply", "--map", str(map_file), str(ops_file), "--json", cwd=project)
    assert len(json.loads(out)["accepted"]) == 2
    records = [
        {
            "kind": "command",
            "title": f"Imported {i}",
            "body": text,
            "files": [text[:100]],
            "session": text,
            "agent": text,
        }
        for i, text in enumerate(ALL.values())
    ]
    export = {"format": "cms-observations", "version": 1, "observations": records}
    json_file = tmp_path / "export.json"
    json_file.write_text(json.dumps(export), encoding="utf-8")
    cms("import", str(json_file), cwd=project)
    markdown = "# Project memory\n\n## Commands\n\n" + "".join(
        f"### Markdown {i}\n\n{text}\n\n" for i, text in enumerate(ALL.values())
    )
    md_file = tmp_path / "export.md"
    md_file.write_text(markdown, encoding="utf-8")
    cms("import", str(md_file), cwd=project)
    assert_home_clean("after remember, ops apply and import")
    memory = open_project_memory(project, create=False)
    assert memory is not None
    with memory:  # a capture still in the WAL file while the store is open
        candidates = [NewObservation("bugfix", f"Fix {i}", t) for i, t in enumerate(ALL.values())]
        capture_with_outcomes(memory.store, candidates, session="s", agent="a", cwd=project)
        assert any(name.endswith("-wal") for name in files_under(Path(paths.cms_home())))
        assert_home_clean("with the store open")


def test_mcp_remember_update_and_supersede_keep_no_secret(project: Path) -> None:
    texts = list(ALL.values())

    async def run() -> None:
        from mcp import Client

        async with Client(build_server(config=Config(), cwd=project)) as client:
            first = await client.call_tool(
                "remember", {"kind": "decision", "title": "Deploy keys", "body": texts[0]}
            )
            assert not first.is_error
            old_id = first.structured_content["id"]
            done = await client.call_tool("update", {"id": old_id, "body": " ".join(texts[:8])})
            assert not done.is_error
            done = await client.call_tool(
                "supersede",
                {
                    "old_id": old_id,
                    "kind": "decision",
                    "title": texts[1][:190],
                    "body": " ".join(texts[8:])[:4000],
                },
            )
            assert not done.is_error
            for i, text in enumerate(texts[1:]):
                done = await client.call_tool(
                    "remember",
                    {
                        "kind": "command",
                        "title": f"Run {i}",
                        "body": f"{i}: {text}",
                        "files": [text[:80]],
                    },
                )
                assert not done.is_error, (i, done.content)
            for result in (first, done):
                assert_nothing_kept(json.dumps(result.structured_content), "an MCP answer")

    anyio.run(run)
    assert_home_clean("after MCP")


@pytest.mark.slow
def test_a_model_that_echoes_secrets_keeps_none_and_receives_none(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sats = [f"{i}: {text}"[:200] for i, text in enumerate(ALL.values())]
    answer = {
        "ops": [
            {"op": "add_sun", "title": "Deploy " + NEW_SHAPES["Cu7lPassw0rdX"][:60]},
            {"op": "add_sun", "title": "Credentials", "planets": [{"title": "All", "sats": sats}]},
        ]
    }
    transcript = secret_transcript(tmp_path / "t.jsonl", SESSION)
    stop = {
        "session_id": SESSION,
        "cwd": str(project),
        "transcript_path": str(transcript),
        "stop_hook_active": False,
    }
    held = hook_queue.try_worker_lock(SESSION)
    assert held is not None
    try:
        assert_clean_reply(run_hook_process("Stop", stop))
    finally:
        held.release()
    with FakeAnthropicServer(default=FakeReply(text=json.dumps(answer))) as server:
        monkeypatch.setenv("CMS_PROVIDER", "anthropic")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        config = parse_config({"provider": {"mode": "anthropic", "max_retries": 0}})
        result = drain.drain_chat(SESSION, config, idle=0.0)
        requests: list[Any] = server.requests
    assert result.applied == 1
    assert requests, "the model was never asked"
    for request in requests:
        assert_nothing_kept(request.raw.decode("utf-8", "replace"), "a model request")
    cmap = Path(paths.map_path(SESSION)).read_text(encoding="utf-8")
    assert "Credentials" in cmap and "[REDACTED:" in cmap  # the model's ops were applied
    assert_home_clean("after a model answer")
