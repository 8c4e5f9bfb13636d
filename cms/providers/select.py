"""Which provider answers model calls: `auto` resolution (DESIGN.md section 6) and construction.

CMS_PROVIDER overrides provider.mode. `auto` takes the Anthropic API when its credentials are
set, else the `claude` CLI when it is on PATH, else the `codex` CLI when it is, else `local` (no
model). Importing this module is
cheap: the SDK is imported only when an `anthropic` provider is actually built.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from cms.config import PROVIDER_MODES, Config
from cms.errors import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.providers.base import ModelProvider

LOCAL_REASON = "no API key and no claude or codex CLI: offline local extractor"


def _requested_mode(config: Config, env: Mapping[str, str]) -> tuple[str, str]:
    override = env.get("CMS_PROVIDER", "").strip()
    if override:
        if override not in PROVIDER_MODES:
            raise ConfigError(
                f"CMS_PROVIDER: {override!r} is not one of {', '.join(PROVIDER_MODES)}"
            )
        return override, f"CMS_PROVIDER={override}"
    where = config.source or "defaults"
    return config.provider.mode, f"provider.mode = {config.provider.mode} ({where})"


def choose_provider(config: Config, env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(mode, human reason): mode is one of anthropic, claude_cli, codex_cli, local."""
    env = os.environ if env is None else env
    mode, reason = _requested_mode(config, env)
    if mode != "auto":
        return mode, reason
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic", "ANTHROPIC_API_KEY is set"
    if env.get("ANTHROPIC_AUTH_TOKEN") and env.get("ANTHROPIC_BASE_URL"):
        return "anthropic", "ANTHROPIC_AUTH_TOKEN and ANTHROPIC_BASE_URL are set"
    import shutil  # ~2 ms, only when the claude CLI is asked for

    found = shutil.which(config.provider.claude_cli_path, path=env.get("PATH"))
    if found:
        return "claude_cli", f"claude found at {found}"
    codex = shutil.which(config.provider.codex_cli_path, path=env.get("PATH"))
    if codex:
        return "codex_cli", f"codex found at {codex} (no claude CLI)"
    return "local", LOCAL_REASON


def make_provider(config: Config, env: Mapping[str, str] | None = None) -> ModelProvider | None:
    """The provider for model calls, or None for the offline local extractor."""
    env = os.environ if env is None else env
    mode, _reason = choose_provider(config, env)
    if mode == "anthropic":
        from cms.providers.anthropic_api import AnthropicProvider

        return AnthropicProvider(config.provider, env)
    if mode == "claude_cli":
        from cms.providers.claude_cli import ClaudeCliProvider

        return ClaudeCliProvider(config.provider, env)
    if mode == "codex_cli":
        from cms.providers.codex_cli import CodexCliProvider

        return CodexCliProvider(config.provider, env)
    return None


def make_search_selector(
    config: Config, *, project: str, env: Mapping[str, str] | None = None
) -> Callable[[str, list[str], int], list[int]] | None:
    """A model selector for cms.search.facts (query, numbered lines, k) -> 0-based indexes, or None.

    The selector raises ProviderError on any failure, so the search falls back to local.
    """
    env = os.environ if env is None else env
    choice = config.provider.search_selector
    if choice == "local" or (choice == "auto" and choose_provider(config, env)[0] != "anthropic"):
        return None
    provider = make_provider(config, env)
    if provider is None:
        return None

    def selector(query: str, lines: list[str], k: int) -> list[int]:
        from cms.providers.model_calls import select_with_model

        return select_with_model(
            provider, config, query=query, numbered_facts=lines, k=k, project=project
        )

    return selector
