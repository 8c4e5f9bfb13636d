"""The `auto` choice (DESIGN.md section 6), the CMS_PROVIDER override and provider construction."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.errors import ConfigError
from cms.providers.select import LOCAL_REASON, choose_provider, make_provider, make_search_selector
from tests.fakes.anthropic_server import FakeAnthropicServer

from .conftest import make_config


def _claude_on(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    exe.chmod(0o755)
    return exe


def test_auto_prefers_an_api_key(tmp_path: Path) -> None:
    _claude_on(tmp_path / "bin")
    env = {"ANTHROPIC_API_KEY": "k", "PATH": str(tmp_path / "bin")}
    assert choose_provider(make_config(), env) == ("anthropic", "ANTHROPIC_API_KEY is set")


def test_auto_takes_an_auth_token_only_with_a_base_url(tmp_path: Path) -> None:
    env = {"ANTHROPIC_AUTH_TOKEN": "t", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "PATH": ""}
    assert choose_provider(make_config(), env)[0] == "anthropic"
    assert choose_provider(make_config(), {"ANTHROPIC_AUTH_TOKEN": "t", "PATH": ""})[0] == "local"


def test_auto_falls_back_to_the_claude_cli_then_to_local(tmp_path: Path) -> None:
    exe = _claude_on(tmp_path / "bin")
    mode, reason = choose_provider(make_config(), {"PATH": str(tmp_path / "bin")})
    assert (mode, reason) == ("claude_cli", f"claude found at {exe}")
    assert choose_provider(make_config(), {"PATH": str(tmp_path / "empty")}) == (
        "local",
        LOCAL_REASON,
    )


def test_the_configured_cli_path_is_honoured(tmp_path: Path) -> None:
    exe = _claude_on(tmp_path / "custom")
    config = make_config(claude_cli_path=str(exe))
    assert choose_provider(config, {"PATH": ""})[0] == "claude_cli"


def test_cms_provider_overrides_the_config_mode() -> None:
    config = make_config(mode="anthropic")
    assert choose_provider(config, {"CMS_PROVIDER": "local", "ANTHROPIC_API_KEY": "k"}) == (
        "local",
        "CMS_PROVIDER=local",
    )
    mode, reason = choose_provider(config, {})
    assert mode == "anthropic" and "provider.mode = anthropic" in reason
    with pytest.raises(ConfigError, match="CMS_PROVIDER"):
        choose_provider(config, {"CMS_PROVIDER": "openai"})


def test_make_provider_builds_the_chosen_provider(tmp_path: Path) -> None:
    assert make_provider(make_config(), {"CMS_PROVIDER": "local"}) is None
    cli = make_provider(make_config(), {"PATH": str(_claude_on(tmp_path / "b").parent)})
    assert cli is not None and cli.name == "claude_cli"
    api = make_provider(make_config(), {"ANTHROPIC_API_KEY": "k"})
    assert api is not None and api.name == "anthropic"


def test_the_search_selector_calls_the_model_and_none_means_local(
    server: FakeAnthropicServer,
) -> None:
    assert make_search_selector(make_config(), project="p", env={"CMS_PROVIDER": "local"}) is None
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": server.url}
    selector = make_search_selector(make_config(), project="p", env=env)
    assert selector is not None
    server.push("2")
    assert selector("query", ["1. a", "2. b"], 1) == [1]


def test_auto_search_selector_skips_the_slow_claude_cli_but_model_forces_it(
    tmp_path: Path,
) -> None:
    env = {"PATH": str(_claude_on(tmp_path / "b").parent)}
    assert make_search_selector(make_config(), project="p", env=env) is None
    forced = make_search_selector(make_config(search_selector="model"), project="p", env=env)
    assert forced is not None
    api = {"ANTHROPIC_API_KEY": "k"}
    assert make_search_selector(make_config(search_selector="local"), project="p", env=api) is None
