"""Fixtures for the install tests: `cms install` run in-process (cms.install imported, output
captured), fake `cms` and `claude` executables in tmp_path, and `python install.py` (the
bootstrap) as a real subprocess.

Both runners get HOME and CMS_HOME from the test home (tests/conftest.py), the project folder as
the current folder and a PATH made of the fake-tool folder plus /usr/bin:/bin, so a real
`claude` or `cms` never leaks in.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cms.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
INSTALL_PY = ROOT / "install.py"

FAKE_CMS = """#!/bin/sh
# A stand-in for the installed cms: logs CMS_HOME and argv, answers like the real one would.
printf '%s|%s\\n' "$CMS_HOME" "$*" >> "$(dirname "$0")/calls.log"
case "$1" in
  hook)
    cat > /dev/null
    printf '{"hookSpecificOutput": {"hookEventName": "%s", "additionalContext": "fake"}}\\n' "$2"
    ;;
  doctor)
    printf '{"provider": "local", "provider_reason": "no API key and no claude on PATH"}\\n'
    ;;
esac
exit 0
"""

BROKEN_CMS = """#!/bin/sh
cat > /dev/null
echo 'Traceback (most recent call last): boom' >&2
exit 1
"""


def write_executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def fake_cms(tmp_path: Path) -> Path:
    """A working fake cms in a folder whose name has a space and an é."""
    return write_executable(tmp_path / "tools dir é" / "bin" / "cms", FAKE_CMS)


@pytest.fixture
def fake_bin(tmp_path: Path) -> Path:
    """An empty folder put first on the subprocess PATH (fake `claude` / `cms` go here)."""
    folder = tmp_path / "fakebin"
    folder.mkdir()
    return folder


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


RunInstall = Callable[..., subprocess.CompletedProcess[str]]


def tool_path(fake_bin: Path) -> str:
    return os.pathsep.join([str(fake_bin), "/usr/bin", "/bin"])


@pytest.fixture
def run_install(
    fake_bin: Path,
    project_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> RunInstall:
    """`cms install ARGS` in this process: its exit code, stdout and stderr."""

    def run(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        with monkeypatch.context() as patch:
            patch.chdir(cwd or project_dir)
            patch.setenv("PATH", tool_path(fake_bin))
            for name, value in (env or {}).items():
                patch.setenv(name, value)
            try:
                run_cli(["install", *args])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        out = capsys.readouterr()
        return subprocess.CompletedProcess(["cms", "install", *args], code, out.out, out.err)

    return run


@pytest.fixture
def run_install_py(fake_bin: Path, project_dir: Path) -> RunInstall:
    """`python install.py ARGS` as a subprocess (the bootstrap, then the venv's cms install)."""

    def run(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        full_env = dict(os.environ)
        full_env["PATH"] = tool_path(fake_bin)
        full_env.update(env or {})
        return subprocess.run(
            [sys.executable, str(INSTALL_PY), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=cwd or project_dir,
            env=full_env,
            timeout=600,
        )

    return run
