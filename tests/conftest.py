"""Shared test setup: every test runs with CMS_HOME and HOME in a temporary folder.

A session guard snapshots the real home's cms and agent files before the run and fails the run
if any of them changed, so no test can touch the developer's real memory or settings.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_REAL_HOME = Path(os.path.expanduser("~"))
_GUARDED = [
    _REAL_HOME / ".cms",
    _REAL_HOME / ".claude" / "settings.json",
    _REAL_HOME / ".claude.json",
    _REAL_HOME / ".codex" / "hooks.json",
    _REAL_HOME / ".codex" / "config.toml",
    _REAL_HOME / ".mcp.json",
    _REAL_HOME / ".local" / "bin" / "cms",
    _REAL_HOME / "bin" / "cms",
]


def _snapshot() -> dict[str, tuple[float, int] | None]:
    state: dict[str, tuple[float, int] | None] = {}
    for path in _GUARDED:
        try:
            st = path.stat()
            state[str(path)] = (st.st_mtime, st.st_size)
        except FileNotFoundError:
            state[str(path)] = None
    return state


@pytest.fixture(scope="session", autouse=True)
def _real_home_guard():  # type: ignore[no-untyped-def]
    before = _snapshot()
    yield
    after = _snapshot()
    changed = [p for p in before if before[p] != after[p]]
    if changed:
        pytest.fail(f"tests touched the real home folder: {changed}", pytrace=False)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """CMS_HOME and HOME in tmp_path; config and provider from the environment cleared."""
    home = tmp_path / "home"
    cms_home = tmp_path / "cms-home"
    home.mkdir()
    cms_home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CMS_HOME", str(cms_home))
    for var in (
        "CMS_CONFIG",
        "CMS_DISABLE",
        "CMS_SYNC",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CMS_PROVIDER", "local")
    return cms_home
