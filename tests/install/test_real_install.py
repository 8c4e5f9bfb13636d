"""The real thing: a fresh virtual environment, pip install of this checkout, the real hook.

Needs network access to PyPI for the dependencies (about a minute) and the hook runner.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.install.conftest import RunInstall


@pytest.mark.slow
def test_install_py_in_a_fresh_venv_ends_with_memory_active(
    run_install: RunInstall, tmp_path: Path, project_dir: Path
) -> None:
    venv = tmp_path / "v é"
    done = run_install("--venv", str(venv))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cms: memory is active for Claude Code" in done.stdout

    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    hooks = json.loads(settings.read_text(encoding="utf-8"))["hooks"]
    command = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert f"  UserPromptSubmit: {command}" in done.stdout.splitlines()
    assert str(venv / "bin" / "cms") in command

    payload = {
        "session_id": "d919c848-7982-464b-9af4-7a5622445c4d",
        "transcript_path": str(tmp_path / "transcript.jsonl"),
        "cwd": str(project_dir),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hello there",
    }
    hook = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload) + "\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=project_dir,
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},
        timeout=60,
    )
    assert hook.returncode == 0, hook.stderr
    if hook.stdout.strip():
        assert isinstance(json.loads(hook.stdout), dict)

    again = run_install("--venv", str(venv))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already holds our hooks; unchanged" in again.stdout
