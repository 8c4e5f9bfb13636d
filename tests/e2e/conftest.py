"""Fixtures for the e2e suite: pinned CLIs and the cms venv (per session), a sandbox per test.

A sandbox is a short scratch folder (/tmp/cmse2e-XXXX: unix socket paths stay under 108 bytes)
holding HOME, TMPDIR, CMS_HOME and a git project, plus the fake model servers. Every CLI runs
with an environment rebuilt from scratch (docs/e2e.md), so nothing leaks in from the shell.
Setup failures (no npm, a failed install) fail the tests; they never skip.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import clis
from tests.e2e.model_server import ModelRouter
from tests.e2e.responses_server import FakeResponsesServer

FAKE_API_KEY = "sk-ant-fake-key-0000"
FAKE_OPENAI_KEY = "fake-openai-key-0000"
RUN_TIMEOUT = 180
SETTLE_TIMEOUT = 90
CRASH_EVENTS = ("hook_failed", "worker_crashed", "worker_spawn_failed", "worker_stuck")
PYTHON = os.path.realpath(sys.executable)


# ----------------------------------------------------------------------------- session setup


class _Once:
    """A setup step run at most once per session; its failure is remembered and re-raised."""

    def __init__(self) -> None:
        self.done: dict[str, Any] = {}

    def get(self, key: str, make: Any) -> Any:
        if key not in self.done:
            try:
                self.done[key] = ("ok", make())
            except clis.E2ESetupError as exc:
                self.done[key] = ("error", str(exc))
        status, value = self.done[key]
        if status == "error":
            pytest.fail(f"e2e setup failed: {value}", pytrace=False)
        return value


@pytest.fixture(scope="session")
def setup_once() -> _Once:
    return _Once()


@pytest.fixture(scope="session")
def cms_executable(setup_once: _Once) -> Path:
    """The `cms` of the venv install.py built for this session (current checkout)."""
    setup_once.get("npm", clis.require_npm)  # the cheap check first: no venv build without npm
    return setup_once.get("venv", clis.cms_venv)  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def claude_bin(setup_once: _Once) -> Any:
    """claude_bin(version) -> the bin folder holding `claude` at that pinned version."""

    def get(version: str) -> Path:
        return setup_once.get(  # type: ignore[no-any-return]
            f"claude-{version}", lambda: clis.npm_package("claude", version)
        )

    return get


@pytest.fixture(scope="session")
def codex_bin(setup_once: _Once) -> Path:
    return setup_once.get(  # type: ignore[no-any-return]
        "codex", lambda: clis.npm_package("codex", clis.CODEX_VERSION)
    )


# ----------------------------------------------------------------------------- the sandbox


@dataclass
class Run:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float = 0.0

    def json(self) -> dict[str, Any]:
        try:
            data = json.loads(self.stdout)
        except ValueError:
            raise AssertionError(f"not JSON output from {self.args}:\n{self.describe()}") from None
        assert isinstance(data, dict), self.describe()
        return data

    def describe(self) -> str:
        return (
            f"exit {self.returncode}\nstdout: {self.stdout[-3000:]}\nstderr: {self.stderr[-3000:]}"
        )


@dataclass
class Sandbox:
    root: Path
    cms: Path
    model: ModelRouter
    bin_dirs: list[Path] = field(default_factory=list)
    responses: FakeResponsesServer | None = None
    runs: list[Run] = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def cms_home(self) -> Path:
        return self.root / "cms"

    @property
    def project(self) -> Path:
        return self.root / "proj"

    # -- environment ---------------------------------------------------------------------------
    def env(
        self,
        *,
        provider: str = "anthropic",
        sync: bool = False,
        disable: bool = False,
        extra: dict[str, str] | None = None,
    ) -> dict[str, str]:
        """The CLI's environment, rebuilt from nothing (the hooks inherit it).

        Without `sync` the Stop hook leaves the update to the detached worker (as for a user);
        settle() waits for it. CMS_SYNC=1 runs it inside the hook, within the hook's timeout.
        """
        path = os.pathsep.join(
            [*map(str, self.bin_dirs), os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")]
        )
        env = {
            "HOME": str(self.home),
            "PATH": path,
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "TMPDIR": str(self.tmp),
            "ANTHROPIC_BASE_URL": self.model.url,
            "ANTHROPIC_API_KEY": FAKE_API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_BUG_COMMAND": "1",
            "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
            "CMS_HOME": str(self.cms_home),
            "CMS_PROVIDER": provider,
        }
        if sync:
            env["CMS_SYNC"] = "1"
        if disable:
            env["CMS_DISABLE"] = "1"
        if self.responses is not None:
            env["FAKE_OPENAI_KEY"] = FAKE_OPENAI_KEY
        env.update(extra or {})
        return env

    # -- processes -------------------------------------------------------------------------------
    def run(self, argv: list[str], env: dict[str, str], *, timeout: float = RUN_TIMEOUT) -> Run:
        """Run argv in the project folder in its own process group (killed whole on timeout)."""
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            cwd=self.project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError(
                f"{argv[:3]} did not finish within {timeout} s:\n{err.decode(errors='replace')}"
            ) from None
        run = Run(
            argv,
            proc.returncode,
            out.decode("utf-8", "replace"),
            err.decode("utf-8", "replace"),
            round(time.monotonic() - started, 2),
        )
        self.runs.append(run)
        return run

    def install(self, *, agent: str = "claude", extra: tuple[str, ...] = ()) -> Run:
        """`python install.py --cms <venv cms>` into this HOME (the venv is the session's)."""
        argv = [PYTHON, str(clis.REPO / "install.py"), "--cms", str(self.cms), *extra]
        if agent != "claude":
            argv += ["--agent", agent]
        done = self.run(argv, self.env(), timeout=120)
        assert done.returncode == 0, f"install.py failed:\n{done.describe()}"
        return done

    def claude(self, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
        """`claude -p ... --output-format json`, then settle(); the parsed result (asserted ok)."""
        argv = ["claude", "-p", *args, "--output-format", "json"]
        done = self.run(argv, env or self.env())
        assert done.returncode == 0, done.describe()
        result = done.json()
        assert result.get("is_error") is False, done.describe()
        self.settle(str(result.get("session_id")))
        return result

    # -- the detached worker -------------------------------------------------------------------
    def pending_jobs(self, session_id: str) -> list[Path]:
        return sorted((self.cms_home / "queue" / session_id).glob("*.json"))

    def settle(self, session_id: str, timeout: float = SETTLE_TIMEOUT) -> None:
        """Wait until the chat's queue holds no pending job (the worker applied or set it aside)."""
        deadline = time.monotonic() + timeout
        while self.pending_jobs(session_id):
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"cms worker left jobs after {timeout} s: {self.pending_jobs(session_id)}\n"
                    f"{self.log_tail()}"
                )
            time.sleep(0.1)

    def busy_workers(self) -> list[Path]:
        """The chats whose worker lock is held right now (a worker process is alive)."""
        busy = []
        for lock in (self.cms_home / "queue").glob("*/worker.lock"):
            try:
                fd = os.open(lock, os.O_RDWR)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except BlockingIOError:
                busy.append(lock.parent)
            finally:
                os.close(fd)
        return busy

    def wait_for_workers(self, timeout: float = SETTLE_TIMEOUT) -> None:
        """Wait until no cms worker holds a lock (so none writes into a deleted sandbox)."""
        deadline = time.monotonic() + timeout
        while self.busy_workers() and time.monotonic() < deadline:
            time.sleep(0.1)

    # -- cms data ----------------------------------------------------------------------------------
    def map_path(self, session_id: str) -> Path:
        return self.cms_home / "chats" / session_id / "map.json"

    def read_map(self, session_id: str) -> dict[str, Any]:
        path = self.map_path(session_id)
        assert path.is_file(), f"no map at {path}; cms log:\n{self.log_tail()}"
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, dict)
        return data

    def log_tail(self, lines: int = 40) -> str:
        log = self.cms_home / "logs" / "cms.log"
        try:
            return "\n".join(log.read_text(encoding="utf-8").splitlines()[-lines:])
        except OSError:
            return "(no cms log)"

    def crashes(self) -> list[str]:
        """Log lines saying a hook or a worker broke (caught at its boundary, but a bug)."""
        try:
            lines = (self.cms_home / "logs" / "cms.log").read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        return [line for line in lines if any(f" {event} " in line for event in CRASH_EVENTS)]

    def files_under(self, folder: Path) -> list[Path]:
        return sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def map_facts(data: dict[str, Any]) -> list[str]:
    return [
        sat["text"]
        for sun in data.get("suns", [])
        for planet in sun.get("planets", [])
        for sat in planet.get("satellites", [])
    ]


def map_titles(data: dict[str, Any]) -> list[str]:
    titles = []
    for sun in data.get("suns", []):
        titles.append(sun["title"])
        titles += [planet["title"] for planet in sun.get("planets", [])]
    return titles


def _git_init(folder: Path) -> None:
    env = {
        "HOME": str(folder.parent / "home"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    for argv in (
        ["git", "init", "-q", "-b", "main"],
        [
            "git",
            "-c",
            "user.name=e2e",
            "-c",
            "user.email=e2e@example.invalid",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
    ):
        subprocess.run(argv, cwd=folder, env=env, check=True, capture_output=True)


@pytest.fixture
def sandbox(cms_executable: Path) -> Iterator[Sandbox]:
    root = Path(tempfile.mkdtemp(prefix="cmse2e-", dir="/tmp"))
    for name in ("home", "tmp", "cms", "proj"):
        (root / name).mkdir()
    _git_init(root / "proj")
    with ModelRouter() as model:
        box = Sandbox(root=root, cms=cms_executable, model=model)
        yield box
        box.wait_for_workers()
    if os.environ.get("CMS_E2E_TIMES") == "1":
        for run in box.runs:
            print(f"e2e: {run.seconds:6.2f}s exit {run.returncode} {' '.join(run.args[:4])[:100]}")
    if os.environ.get("CMS_E2E_KEEP") != "1":
        shutil.rmtree(root, ignore_errors=True)
