"""`cms doctor` reports the config, data folder, chosen provider and why, and the last error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cms import paths
from cms.log import log_event

REPO = Path(__file__).resolve().parents[2]


def _doctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "cms", "doctor", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
        check=False,
    )


def test_doctor_json_names_provider_reason_config_and_last_error(tmp_path: Path) -> None:
    Path(paths.config_path()).write_text('[provider]\nmode = "auto"\nbogus = 1\n', encoding="utf-8")
    log_event("error", "provider_error", "anthropic API HTTP 500: boom")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = _doctor("--json", env={"CMS_PROVIDER": "", "PATH": str(empty)})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["provider"] == "local"
    assert (
        report["provider_reason"]
        == "no API key and no claude or codex CLI: offline local extractor"
    )
    assert report["cms_home"] == str(paths.cms_home())
    assert report["config"] == str(paths.config_path())
    assert any("provider.bogus" in w for w in report["warnings"])
    assert "HTTP 500: boom" in report["last_error"]
    assert report["claude"] is None


def test_doctor_text_says_auto_picks_the_api_when_a_key_is_set() -> None:
    result = _doctor(env={"CMS_PROVIDER": "", "ANTHROPIC_API_KEY": "sk-ant-secret-value"})
    assert result.returncode == 0, result.stderr
    assert "provider:   anthropic (ANTHROPIC_API_KEY is set)" in result.stdout
    assert "sk-ant-secret-value" not in result.stdout


def test_doctor_reports_a_broken_config_and_exits_1() -> None:
    Path(paths.config_path()).write_text("[provider\n", encoding="utf-8")
    result = _doctor("--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert "not valid TOML" in report["warnings"][0]
    assert report["provider"] == "local"  # CMS_PROVIDER=local from the test environment
