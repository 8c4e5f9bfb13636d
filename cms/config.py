"""Loading and checking cms.toml ($CMS_CONFIG, else $CMS_HOME/cms.toml).

Owns the list of keys, their defaults and their checks, and the lenient load of the hooks and
the worker. Unknown keys are reported (warnings), bad values raise ConfigError with the key's
name. It never writes the file.
"""

from __future__ import annotations

import os

from cms import paths
from cms.errors import ConfigError
from cms.log import configure_log, log_event
from cms.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

PROVIDER_MODES = ("auto", "anthropic", "claude_cli", "codex_cli", "local")


class MapConfig(Record, frozen=True):
    max_planets: int = 50


class HooksConfig(Record, frozen=True):
    exclude: tuple[str, ...] = ()
    inject_max_chars: int = 9500
    recall_limit: int = 5
    briefing_limit: int = 5
    in_force_chars: int = 4000
    receipt: bool = False


class ProviderConfig(Record, frozen=True):
    mode: str = "auto"
    update_model: str = "claude-haiku-4-5"
    search_model: str = "claude-haiku-4-5"
    observe_model: str = "claude-haiku-4-5"
    summarise_model: str = "claude-haiku-4-5"
    timeout_seconds: float = 30.0
    max_retries: int = 2
    max_tokens: int = 2048
    daily_token_budget: int = 0
    claude_cli_path: str = "claude"
    codex_cli_path: str = "codex"
    codex_model: str = ""
    prompts_dir: str = ""
    search_selector: str = "auto"


class WorkerConfig(Record, frozen=True):
    job_timeout_seconds: float = 180.0
    max_attempts: int = 3
    idle_exit_seconds: float = 2.0


class ObservationsConfig(Record, frozen=True):
    min_relevance: float = 0.15
    stale_after_days: int = 90
    stale_max_importance: int = 2


class SemanticConfig(Record, frozen=True):
    mode: str = "auto"
    model: str = ""
    weight: float = 1.0


class TeamConfig(Record, frozen=True):
    url: str = ""
    share_user: bool = False
    user: str = ""
    sync_interval_seconds: float = 60.0
    connect_timeout_seconds: float = 5.0


class LogConfig(Record, frozen=True):
    max_bytes: int = 1_000_000
    backups: int = 3
    level: str = "info"


class Config(Record, frozen=True):
    """The whole configuration: one record per section, each defaulting to its defaults."""

    map: MapConfig = field(default_factory=MapConfig)
    hooks: HooksConfig = field(default_factory=HooksConfig)
    provider: ProviderConfig = field(default_factory=ProviderConfig)
    worker: WorkerConfig = field(default_factory=WorkerConfig)
    observations: ObservationsConfig = field(default_factory=ObservationsConfig)
    semantic: SemanticConfig = field(default_factory=SemanticConfig)
    log: LogConfig = field(default_factory=LogConfig)
    team: TeamConfig = field(default_factory=TeamConfig)
    source: str = ""
    warnings: tuple[str, ...] = ()


_SECTIONS: dict[str, type[Record]] = {
    "map": MapConfig,
    "hooks": HooksConfig,
    "provider": ProviderConfig,
    "worker": WorkerConfig,
    "observations": ObservationsConfig,
    "semantic": SemanticConfig,
    "log": LogConfig,
    "team": TeamConfig,
}

# (minimum, maximum) for numbers; allowed values for enumerations.
_RANGES: dict[str, tuple[float, float]] = {
    "map.max_planets": (1, 10_000),
    "hooks.inject_max_chars": (500, 9500),
    "hooks.recall_limit": (0, 20),
    "hooks.briefing_limit": (0, 20),
    "hooks.in_force_chars": (0, 8000),
    "provider.timeout_seconds": (1, 600),
    "provider.max_retries": (0, 10),
    "provider.max_tokens": (64, 64_000),
    "provider.daily_token_budget": (0, 10**12),
    "worker.job_timeout_seconds": (5, 3600),
    "worker.max_attempts": (1, 20),
    "worker.idle_exit_seconds": (0, 60),
    "observations.min_relevance": (0, 1),
    "observations.stale_after_days": (1, 100_000),
    "observations.stale_max_importance": (1, 5),
    "semantic.weight": (0, 10),
    "log.max_bytes": (10_000, 10**10),
    "log.backups": (0, 50),
    "team.sync_interval_seconds": (0, 86_400),
    "team.connect_timeout_seconds": (1, 120),
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "provider.mode": PROVIDER_MODES,
    "provider.search_selector": ("auto", "model", "local"),
    "log.level": ("debug", "info", "warning", "error"),
    "semantic.mode": ("auto", "on", "off"),
}


def _coerce(key: str, value: Any, default: Any) -> Any:
    """Check one value against its default's type and its range; return the typed value."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, got {value!r}")
        return value
    if default is None:
        raise ConfigError(f"{key}: unsupported key type")
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{key}: expected a list of strings, got {value!r}")
        return tuple(value)
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        value = float(value)
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: expected an integer, got {value!r}")
    elif isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{key}: expected a string, got {value!r}")
    if key in _RANGES:
        low, high = _RANGES[key]
        if not low <= value <= high:
            raise ConfigError(f"{key}: {value!r} is outside {low:g}..{high:g}")
    if key in _CHOICES and value not in _CHOICES[key]:
        raise ConfigError(f"{key}: {value!r} is not one of {', '.join(_CHOICES[key])}")
    return value


def parse_config(data: dict[str, Any], source: str = "") -> Config:
    """Build a Config from parsed TOML; unknown keys become warnings, bad values errors."""
    warnings: list[str] = []
    sections: dict[str, Any] = {}
    for name, value in data.items():
        cls = _SECTIONS.get(name)
        if cls is None:
            warnings.append(f"unknown section [{name}] ignored")
            continue
        if not isinstance(value, dict):
            raise ConfigError(f"[{name}] must be a table")
        defaults = cls()
        known = cls._FIELDS
        kwargs: dict[str, Any] = {}
        for key, item in value.items():
            if key not in known:
                warnings.append(f"unknown key {name}.{key} ignored")
                continue
            kwargs[key] = _coerce(f"{name}.{key}", item, getattr(defaults, key))
        sections[name] = cls(**kwargs)
    return Config(**sections, source=source, warnings=tuple(warnings))


def load_config(path: str | PathLike[str] | None = None) -> Config:
    """Read the config file; a missing file means all defaults."""
    path = paths.config_path() if path is None else str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from exc
    return parse_config(_parsed_toml(path, raw), source=str(path))


def team_url(config: Config) -> str:
    """The team database's URL: CMS_TEAM_URL, else [team] url ("" when neither is set)."""
    return os.environ.get("CMS_TEAM_URL", "").strip() or config.team.url.strip()


def load_hook_config() -> Config:
    """The config for hooks and the worker: a broken file is logged and the defaults used; the
    [log] section is applied to this process."""
    try:
        config = load_config()
    except ConfigError as exc:
        log_event("error", "config_error", f"{exc}; hooks use the defaults")
        return Config()
    configure_log(config.log.max_bytes, config.log.backups, config.log.level)
    return config


CACHE_NAME = ".config-cache.json"  # the parsed config file, keyed by its path and bytes


def _parsed_toml(path: str, raw: bytes) -> dict[str, Any]:
    """The config file's TOML as a dict: from the cache beside the data when it holds these very
    bytes (so the hooks do not import tomllib), else parsed and cached."""
    import zlib

    from cms import jsonio

    key = f"{path}:{len(raw)}:{zlib.crc32(raw):08x}"
    cache = os.path.join(paths.cms_home(), CACHE_NAME)
    try:
        with open(cache, encoding="utf-8") as handle:
            cached = jsonio.loads(handle.read())
        if isinstance(cached, dict) and cached.get("key") == key:
            return dict(cached["data"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from exc
    if not os.path.isdir(os.path.dirname(cache)):
        return data  # reading the config never creates the data folder
    try:
        from cms.privatefile import write_atomically

        write_atomically(cache, jsonio.dumps({"key": key, "data": data}).encode("utf-8"))
    except (OSError, TypeError, ValueError):
        pass  # a value JSON cannot hold (a TOML date) or a read-only home: parse next time
    return data
