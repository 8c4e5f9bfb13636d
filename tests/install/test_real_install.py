"""The real thing: `python install.py` makes a fresh virtual environment, pip-installs this
checkout, runs its `cms install`; then the real hook runs, and `cms` answers from PATH.

Needs network access to PyPI for the dependencies (about a minute).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.install.conftest import RunInstall, tool_path


@pytest.mark.slow
def test_install_py_in_a_fresh_venv_ends_with_memory_active_and_cms_on_path(
    run_install_py: RunInstall, tmp_path: Path, project_dir: Path, fake_bin: Path
) -> None:
    venv = tmp_path / "v é"
    user_bin = Path(os.environ["HOME"]) / ".local" / "bin"
    shell_path = os.pathsep.join([str(user_bin), tool_path(fake_bin)])
    done = run_install_py("--venv", str(venv), env={"PATH": shell_path})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cms: memory is active for Claude Code" in done.stdout

    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings_bytes = settings.read_bytes()
    hooks = json.loads(settings_bytes)["hooks"]
    command = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert f"  UserPromptSubmit: {command}" in done.stdout.splitlines()
    launcher = venv / "libexec" / "cms-hook" / "cms"  # the venv's Python without site
    assert str(launcher) in command
    assert f"'{venv / 'bin' / 'python'}' -S" in launcher.read_text(encoding="utf-8")
    # the venv's pip was upgraded first: its console script does not import re (~5 ms a hook)
    assert "import re" not in (venv / "bin" / "cms").read_text(encoding="utf-8")

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

    lines = done.stdout.splitlines()
    assert lines[-2] == f"cms: linked ~/.local/bin/cms -> {venv / 'bin' / 'cms'}"
    assert lines[-1] == "next: start a new Claude Code session; `cms show` to look"
    doctor = subprocess.run(  # what the README says next, in the same shell
        ["sh", "-c", "cms doctor"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=project_dir,
        env={**os.environ, "PATH": shell_path},
        timeout=120,
    )
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr

    again = run_install_py("--venv", str(venv), env={"PATH": shell_path})
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already holds our hooks; unchanged" in again.stdout
    assert settings.read_bytes() == settings_bytes

    status = run_install_py("--venv", str(venv), "--status", env={"PATH": shell_path})
    assert "Claude Code: installed in ~/.claude/settings.json" in status.stdout
    removed = run_install_py("--venv", str(venv), "--uninstall", env={"PATH": shell_path})
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not settings.exists()
    assert not os.path.lexists(user_bin / "cms")
    assert not os.path.lexists(launcher)
