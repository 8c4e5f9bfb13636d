"""The pinned agent CLIs and the cms virtual environment the e2e suite drives, cached on disk.

Installs `@anthropic-ai/claude-code` and `@openai/codex` at pinned versions with npm into
<repo>/.e2e-cache/npm/<package>-<version>/ (reused when the binary answers `--version` with the
pinned version), and the cms venv through `install.py --venv`. Any failure is an E2ESetupError
with a one-paragraph message; the fixtures turn it into a failed test, never a skip.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("CMS_E2E_CACHE") or REPO / ".e2e-cache")
CLAUDE_VERSIONS = ("2.1.332", "2.1.100")
CODEX_VERSION = "0.171.0"
PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"}
NPM_TIMEOUT = 600


class E2ESetupError(Exception):
    """The e2e suite cannot run on this machine (npm missing, install failed, ...)."""


@contextlib.contextmanager
def _cache_lock(name: str) -> Iterator[None]:
    """Serialise installs between concurrent pytest runs sharing the cache."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{name}.lock", "w", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _version_of(binary: Path) -> str:
    """`binary --version`, run with a throwaway HOME (an agent CLI may write config files there)."""
    home = CACHE / "version-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def require_npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise E2ESetupError(
            "the e2e suite needs npm (Node.js 20 or newer) to install the pinned Claude Code and "
            "Codex CLIs, and `npm` is not on PATH; install Node.js + npm, or run the other tests "
            "with CMS_SKIP_E2E=1 scripts/test"
        )
    return npm


def npm_package(agent: str, version: str) -> Path:
    """The bin/ folder of `agent` ("claude" or "codex") at `version`, installed on first use."""
    package = PACKAGES[agent]
    folder = CACHE / "npm" / f"{agent}-{version}"
    binary = folder / "node_modules" / ".bin" / agent
    with _cache_lock(f"npm-{agent}-{version}"):
        if version in _version_of(binary):
            return binary.parent
        npm = require_npm()
        staging = folder.with_name(folder.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        (staging / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        command = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            f"{package}@{version}",
        ]
        try:
            done = subprocess.run(
                command,
                cwd=staging,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=NPM_TIMEOUT,
                stdin=subprocess.DEVNULL,
                # The user's ~/.npmrc (registry, proxy) still applies; the cache stays with ours.
                env=dict(os.environ, npm_config_cache=str(CACHE / "npm-cache")),
            )
        except subprocess.TimeoutExpired:
            raise E2ESetupError(
                f"`npm install {package}@{version}` took over {NPM_TIMEOUT} s"
            ) from None
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
            raise E2ESetupError(
                f"`npm install {package}@{version}` failed (exit {done.returncode}):\n{tail}"
            )
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
        found = _version_of(binary)
        if version not in found:
            raise E2ESetupError(
                f"installed {package}@{version} but `{binary} --version` says {found!r}"
            )
        return binary.parent


def cms_venv(python: str | None = None) -> Path:
    """The `cms` of a venv made by `python install.py --venv <cache>/venv` (reinstalled per call).

    install.py reuses an existing venv and pip-installs the current checkout into it; it runs in
    a throwaway HOME so it writes no settings anywhere that matters.
    """
    python = python or os.path.realpath(sys.executable)
    venv = CACHE / "venv"
    scratch = CACHE / "install-home"
    with _cache_lock("venv"):
        shutil.rmtree(scratch, ignore_errors=True)
        (scratch / "home").mkdir(parents=True)
        env = {
            "HOME": str(scratch / "home"),
            "CMS_HOME": str(scratch / "cms"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "PIP_CACHE_DIR": str(CACHE / "pip-cache"),
        }
        for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE"):
            if name in os.environ:
                env[name] = os.environ[name]
        try:
            done = subprocess.run(
                [python, str(REPO / "install.py"), "--venv", str(venv)],
                cwd=scratch,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=NPM_TIMEOUT,
                env=env,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise E2ESetupError(f"`install.py --venv {venv}` took over {NPM_TIMEOUT} s") from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        cms = venv / "bin" / "cms"
        # Exit 3 is "installed, but the hook self-check failed": the tests will show why.
        if done.returncode not in (0, 3) or not cms.exists():
            tail = "\n".join((done.stderr + done.stdout).strip().splitlines()[-15:])
            raise E2ESetupError(
                f"`install.py --venv {venv}` failed (exit {done.returncode}):\n{tail}"
            )
        return cms


def install_all() -> list[Path]:
    """Every pinned CLI (what CI runs before the suite, so a failure shows up first and clearly)."""
    folders = [npm_package("claude", version) for version in CLAUDE_VERSIONS]
    folders.append(npm_package("codex", CODEX_VERSION))
    return folders


def main() -> int:
    try:
        for folder in install_all():
            print(f"e2e: {folder}")
    except E2ESetupError as exc:
        print(f"e2e setup failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
