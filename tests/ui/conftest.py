"""A real memory for the ui tests: three chats of two projects (real git repositories) through
the hook protocol with the local provider, plus recorded token usage; built once per run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cms.project import identify_project
from cms.ui.server import UiServer
from tests.hooks.helpers import hook_env, replay_chat_hooks
from tests.hooks.test_project_memory import CHAT_A, CHAT_B
from tests.observations.gitrepo import make_repo

CHAT_OTHER = [
    (
        "We use Redis 7 as the page cache of the blog because it is already deployed.",
        "Noted: the blog's page cache is Redis 7, since it is already deployed.",
    )
]


@dataclass(frozen=True)
class BuiltMemory:
    cms_home: Path
    home: Path
    repo: Path
    other: Path

    @property
    def project(self) -> str:
        return identify_project(self.repo).id

    @property
    def other_project(self) -> str:
        return identify_project(self.other).id


@pytest.fixture(scope="session")
def built_memory(tmp_path_factory: pytest.TempPathFactory) -> BuiltMemory:
    root = tmp_path_factory.mktemp("ui-memory")
    built = BuiltMemory(root / "cms-home", root / "home", root / "shop", root / "blog")
    built.home.mkdir()
    make_repo(built.repo)
    make_repo(built.other)
    env = hook_env(
        {
            "CMS_HOME": str(built.cms_home),
            "HOME": str(built.home),
            "CMS_SYNC": "1",
            "CMS_PROVIDER": "local",
        },
        drop=("CMS_CONFIG", "CMS_DISABLE", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    )
    replay_chat_hooks(root, built.repo, "chat-a-0001", CHAT_A, env)
    replay_chat_hooks(root, built.repo, "chat-b-0002", CHAT_B, env)
    replay_chat_hooks(root, built.other, "chat-o-0003", CHAT_OTHER, env)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CMS_HOME", str(built.cms_home))
        from cms.providers.usage import record_usage

        today = datetime.now(UTC)
        for days_ago, tokens in ((2, 1200), (1, 800), (0, 2500)):
            record_usage(
                provider="anthropic",
                model="claude-haiku",
                project=built.project,
                purpose="update",
                input_tokens=tokens,
                output_tokens=tokens // 5,
                when=today - timedelta(days=days_ago),
            )
    return built


@pytest.fixture
def memory(built_memory: BuiltMemory, monkeypatch: pytest.MonkeyPatch) -> BuiltMemory:
    """The built memory as this test's CMS_HOME and HOME."""
    monkeypatch.setenv("CMS_HOME", str(built_memory.cms_home))
    monkeypatch.setenv("HOME", str(built_memory.home))
    return built_memory


@pytest.fixture
def ui_server(memory: BuiltMemory) -> Iterator[UiServer]:
    server = UiServer(0)
    thread = server.start_in_thread()
    try:
        yield server
    finally:
        server.stop()
        thread.join(timeout=10)


def files_under(root: Path) -> dict[str, tuple[int, int]]:
    """Size and mtime of every file under root that browsing must leave as it was: all but the
    log (the ui logs its errors there) and SQLite's -wal and -shm companions, which any reader
    of a WAL database may create (they hold no data of their own)."""
    found = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            if name.endswith(("-wal", "-shm")) or name.startswith("cms.log"):
                continue
            st = os.stat(os.path.join(folder, name))
            found[os.path.join(folder, name)] = (st.st_size, st.st_mtime_ns)
    return found
