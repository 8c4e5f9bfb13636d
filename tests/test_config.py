"""Config loading: defaults, every documented key, unknown keys reported, bad values refused."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from cms.config import Config, load_config, parse_config
from cms.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_missing_file_means_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path / "none.toml") == Config()


def test_cms_config_env_wins_over_cms_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (Path(os.environ["CMS_HOME"]) / "cms.toml").write_text("[map]\nmax_planets = 7\n", "utf-8")
    assert load_config().map.max_planets == 7
    other = tmp_path / "other.toml"
    other.write_text("[map]\nmax_planets = 9\n", encoding="utf-8")
    monkeypatch.setenv("CMS_CONFIG", str(other))
    assert load_config().map.max_planets == 9


def test_example_file_documents_every_key_with_its_default() -> None:
    data = tomllib.loads((ROOT / "cms.toml.example").read_text(encoding="utf-8"))
    config = parse_config(data)
    assert config.warnings == ()
    defaults = Config()
    for section in ("map", "hooks", "provider", "worker", "observations", "log"):
        assert set(data[section]) == set(getattr(defaults, section)._FIELDS), section
        assert getattr(config, section) == getattr(defaults, section), section


def test_unknown_keys_and_sections_are_reported_not_fatal() -> None:
    config = parse_config({"map": {"max_planet": 3}, "maps": {}})
    assert config.warnings == (
        "unknown key map.max_planet ignored",
        "unknown section [maps] ignored",
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"map": {"max_planets": "50"}}, "map.max_planets: expected an integer"),
        ({"map": {"max_planets": 0}}, "map.max_planets: 0 is outside 1..10000"),
        ({"map": {"max_planets": True}}, "expected an integer"),
        ({"hooks": {"inject_max_chars": 20000}}, "outside 500..9500"),
        ({"hooks": {"exclude": "secret/*"}}, "hooks.exclude: expected a list of strings"),
        ({"provider": {"mode": "openai"}}, "provider.mode: 'openai' is not one of auto"),
        ({"provider": {"timeout_seconds": "fast"}}, "expected a number"),
        ({"map": 3}, "[map] must be a table"),
    ],
)
def test_bad_values_are_a_clear_error(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace(".", r"\.")):
        parse_config(data)


def test_unreadable_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cms.toml"
    path.write_text("[map\nmax_planets=", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config(path)


def test_a_parsed_config_is_reused_until_the_file_changes(
    isolated_home: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    (isolated_home / "cms.toml").write_text("[hooks]\nrecall_limit = 3\n", encoding="utf-8")
    probe = (
        "import sys; from cms.config import load_config; "
        "print(load_config().hooks.recall_limit, 'tomllib' in sys.modules)"
    )

    def run() -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
        )
        return done.stdout.strip()

    assert run() == "3 True"  # parsed, then cached beside the data
    assert run() == "3 False"  # the same bytes: no TOML parser imported
    (isolated_home / "cms.toml").write_text("[hooks]\nrecall_limit = 4\n", encoding="utf-8")
    assert run() == "4 True"
    (isolated_home / "cms.toml").write_text("[hooks\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config()
