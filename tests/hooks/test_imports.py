"""The hook fast paths and `cms search` import nothing slow (HEAVY: the SDKs, typer, jsonschema,
pathlib, typing, dataclasses and the rest) and the hooks nothing of cms.worker, checked in a
fresh interpreter without site."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cms import paths
from cms.hooks import queue as hook_queue
from cms.hooks.runner import HANDLER_MODULES
from cms.observations.access import open_project_memory
from cms.observations.model import NewObservation
from cms.task.model import CurrentTask, save_task
from cms.worker import queue
from tests.hooks.helpers import ROOT, build_map, hook_env, numbered_turn, write_transcript

HEAVY = (
    "anthropic",
    "contextlib",
    "dataclasses",
    "json",  # its pure-Python layer compiles six patterns; cms.jsonio drives the C codec
    "jsonschema",
    "mcp",
    "pathlib",
    "portalocker",
    "shlex",
    "sqlite3",
    "subprocess",
    "threading",
    "typer",
    "typing",
)
SESSION = "chat-imports"

PROBE = textwrap.dedent(
    """
    import sys
    out = sys.argv.pop()
    from cms.entry import main
    try:
        main()
    except SystemExit:
        pass
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(" ".join(sorted(sys.modules)))
    """
)


def clean_run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    """A fresh interpreter without site (-S): no .pth file runs (an editable install's finder
    imports pathlib and contextlib), the repository and site-packages are on the path."""
    env = hook_env()
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), sysconfig.get_paths()["purelib"]])
    return subprocess.run(
        [sys.executable, "-S", *args], capture_output=True, env=env, timeout=120, **kwargs
    )


@functools.cache
def startup_modules() -> frozenset[str]:
    """What the bare interpreter loads before cms runs."""
    done = clean_run(["-c", "import sys; print('\\n'.join(sorted(sys.modules)))"], check=True)
    return frozenset(done.stdout.decode("utf-8").split())


def modules_after_hook(event: str, payload: dict[str, object], out: Path) -> set[str]:
    done = clean_run(
        ["-c", PROBE, "hook", event, str(out)], input=json.dumps(payload).encode(), check=False
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    loaded = set(out.read_text(encoding="utf-8").split())
    assert f"cms.hooks.{HANDLER_MODULES[event]}" in loaded  # the probe really ran the hook
    assert [m for m in loaded if m.split(".")[:2] == ["cms", "worker"]] == []  # nor the worker
    return loaded - startup_modules()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    memory = open_project_memory(folder, create=True)
    assert memory is not None
    with memory:
        memory.store.add(
            NewObservation("decision", "Use Postgres for billing", "joins", importance=4)
        )
    build_map(SESSION, suns=3, planets_per_sun=5, facts_per_planet=4)
    return folder


@pytest.mark.parametrize(
    ("event", "extra", "reset"),
    [
        ("SessionStart", {"source": "startup"}, None),
        ("SessionStart", {"source": "compact"}, "index-cache.json"),
        ("UserPromptSubmit", {"prompt": "postgres billing?"}, "injected.json"),
        ("UserPromptSubmit", {"prompt": "postgres billing?"}, None),
        ("UserPromptSubmit", {"prompt": "anything"}, "index-cache.json"),
    ],
)
def test_injecting_hooks_import_nothing_heavy(
    project: Path, tmp_path: Path, event: str, extra: dict[str, object], reset: str | None
) -> None:
    if reset:
        (Path(paths.chat_dir(SESSION)) / reset).unlink(missing_ok=True)
    payload = {"session_id": SESSION, "cwd": str(project), "transcript_path": "/x.jsonl", **extra}
    loaded = modules_after_hook(event, payload, tmp_path / "modules.json")
    assert [m for m in HEAVY if m in loaded] == []


@pytest.mark.parametrize(
    ("prompt", "reset"),
    [("why does the billing export time out?", "injected.json"), ("postgres billing", None)],
)
def test_a_plain_prompt_is_answered_without_importing_re(
    project: Path, tmp_path: Path, prompt: str, reset: str | None
) -> None:
    """re (with enum, functools and collections) is a sixth of the prompt hook: a prompt
    without a digit or a secret-like word compiles no pattern, so re is never imported."""
    if reset:
        (Path(paths.chat_dir(SESSION)) / reset).unlink(missing_ok=True)
    payload = {"session_id": SESSION, "cwd": str(project), "prompt": prompt}
    loaded = modules_after_hook("UserPromptSubmit", payload, tmp_path / "modules.json")
    assert "cms.observations.recall" in loaded  # the probe really recalled
    assert [m for m in ("re", "enum", "shutil") if m in loaded] == []
    assert "cms.language.dates" not in loaded  # no digit: no date to read


@pytest.mark.parametrize("source", ["compact", "resume"])
def test_session_start_reads_the_current_task_with_nothing_heavy(
    project: Path, tmp_path: Path, source: str
) -> None:
    task = CurrentTask(goal="Add rate limiting.", done=["Added the bucket."], next=["Docs."])
    save_task(SESSION, task.replace(turn=3))
    payload = {"session_id": SESSION, "cwd": str(project), "source": source}
    loaded = modules_after_hook("SessionStart", payload, tmp_path / "modules.json")
    assert "cms.task.model" in loaded  # the probe really read the task
    assert [m for m in HEAVY if m in loaded] == []
    assert [m for m in loaded if m.startswith(("cms.task.derive", "cms.providers"))] == []
    startup = {**payload, "source": "startup"}
    assert "cms.task.model" not in modules_after_hook("SessionStart", startup, tmp_path / "s.json")


@pytest.mark.parametrize("event", ["Stop", "SessionEnd", "PreCompact"])
def test_queueing_hooks_import_nothing_heavy(project: Path, tmp_path: Path, event: str) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    held = hook_queue.try_worker_lock(SESSION)  # the worker (which may import more) stays out
    assert held is not None
    try:
        payload = {
            "session_id": SESSION,
            "cwd": str(project),
            "transcript_path": str(transcript),
            "last_assistant_message": "done",
            "reason": "other",
        }
        loaded = modules_after_hook(event, payload, tmp_path / "modules.json")
    finally:
        held.release()
    assert [m for m in HEAVY if m in loaded] == []
    assert "re" not in loaded  # a plain last message needs no pattern (redaction, cleanup)
    assert len(queue.list_jobs(SESSION)) == 1


@pytest.mark.parametrize(
    ("event", "extra"),
    [("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "postgres?"})],
)
def test_a_project_without_a_store_costs_no_store_imports(
    tmp_path: Path, event: str, extra: dict[str, object]
) -> None:
    folder = tmp_path / "never-captured"
    folder.mkdir()
    build_map(SESSION, suns=2, planets_per_sun=2, facts_per_planet=2)
    payload = {"session_id": SESSION, "cwd": str(folder), **extra}
    loaded = modules_after_hook(event, payload, tmp_path / "modules.json")
    light = ("sqlite3", "_sqlite3", "cms.observations.store", "cms.observations.recall")
    assert [m for m in light if m in loaded] == []
    assert not (Path(paths.cms_home()) / "projects").exists()  # nothing created for the project


def test_the_search_command_imports_nothing_heavy(project: Path, tmp_path: Path) -> None:
    from cms.hooks import inject

    inject.save_state(SESSION, inject.InjectionState(cwd=str(project)))
    out = tmp_path / "modules.json"
    done = clean_run(["-c", PROBE, "search", "--session", SESSION, "postgres", str(out)])
    assert done.returncode == 0 and b"Use Postgres for billing" in done.stdout, done
    loaded = set(out.read_text(encoding="utf-8").split()) - startup_modules()
    assert "cms.search.project" in loaded  # the probe really searched the project
    assert [m for m in HEAVY if m in loaded] == []


@pytest.mark.parametrize(
    "tool",
    [
        {"tool_name": "Read", "tool_input": {"file_path": "src/upload.py"}},
        {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}},
        {"tool_name": "Glob", "tool_input": {"pattern": "*.py"}},
    ],
)
def test_the_pre_tool_hook_imports_nothing_heavy_and_no_store(
    project: Path, tmp_path: Path, tool: dict[str, object]
) -> None:
    from cms.observations.filenotes import write_file_notes

    memory = open_project_memory(project, create=False)
    assert memory is not None
    with memory:
        memory.store.add(
            NewObservation("bugfix", "Upload retries", "retry on 503", files=("src/upload.py",))
        )
        memory.store.add(NewObservation("command", "Tests", "pytest -q --maxfail=1"))
        write_file_notes(memory.store)
    payload = {"session_id": SESSION, "cwd": str(project), **tool}
    loaded = modules_after_hook("PreToolUse", payload, tmp_path / "modules.json")
    assert [m for m in HEAVY if m in loaded] == []
    light = ("sqlite3", "_sqlite3", "cms.observations.store", "cms.observations.recall")
    assert [m for m in light if m in loaded] == []
    assert "re" not in loaded  # the keys of a file or a command need no pattern
