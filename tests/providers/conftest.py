"""Fixtures for provider tests: the fake Messages API server, configs and log inspection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cms import paths
from cms.config import Config, parse_config
from tests.fakes.anthropic_server import FakeAnthropicServer


def make_config(**provider: Any) -> Config:
    """A Config whose [provider] section holds the given keys (checked like cms.toml)."""
    return parse_config({"provider": provider})


def log_lines(event: str | None = None) -> list[str]:
    try:
        lines = Path(paths.log_path()).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    return [line for line in lines if event is None or f" {event} " in f"{line} "]


@pytest.fixture
def server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as fake:
        yield fake


@pytest.fixture
def api_env(server: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch) -> FakeAnthropicServer:
    """The real SDK's environment pointed at the fake server (an API key that is not real)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    return server
