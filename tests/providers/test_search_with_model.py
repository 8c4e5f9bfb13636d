"""`cms search` with a model selector: verbatim stored texts, local fallback on bad answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer

REPO = Path(__file__).resolve().parents[2]
OPS = {
    "ops": [
        {
            "op": "add_sun",
            "title": "Storage",
            "planets": [
                {
                    "title": "Usage file",
                    "sats": [
                        "Token usage lives in usage.sqlite3 under CMS_HOME",
                        "The usage database runs in WAL mode",
                    ],
                },
                {"title": "Maps", "sats": ["Each chat map is written atomically with os.replace"]},
            ],
        }
    ]
}


def _cms(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ, PYTHONPATH=str(REPO), **env)
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=180,
        check=False,
    )


@pytest.fixture
def map_file(tmp_path: Path) -> Path:
    path = tmp_path / "chat" / "map.json"
    path.parent.mkdir()
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps(OPS), encoding="utf-8")
    result = _cms("ops", "apply", "--map", str(path), str(ops), env={})
    assert result.returncode == 0, result.stderr
    return path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("answer", "selector"),
    [("2", "model"), ("garbage!", "local"), ("17", "local"), ("The WAL one.", "local")],
)
def test_cms_search_prints_stored_texts_and_falls_back_to_local(
    map_file: Path, answer: str, selector: str
) -> None:
    with FakeAnthropicServer(default=answer) as server:
        env = {
            "CMS_PROVIDER": "anthropic",
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "ANTHROPIC_BASE_URL": server.url,
        }
        result = _cms("search", "--map", str(map_file), "WAL mode", "-k", "1", "--json", env=env)
        assert len(server.message_requests) == 1
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["selector"] == selector
    assert [f["text"] for f in report["facts"]] == ["The usage database runs in WAL mode"]


@pytest.mark.slow
@pytest.mark.parametrize(("answer", "selector"), [("1", "model"), ("garbage!", "local")])
def test_project_search_lets_the_model_pick_among_the_projects_hits(
    tmp_path: Path, answer: str, selector: str
) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    chat = home / "chats" / "chat-1" / "map.json"
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps(OPS), encoding="utf-8")
    assert (
        _cms("ops", "apply", "--map", str(chat), str(ops), env={"CMS_HOME": str(home)}).returncode
        == 0
    )
    with FakeAnthropicServer(default=answer) as server:
        env = {
            "CMS_HOME": str(home),
            "CMS_PROVIDER": "anthropic",
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "ANTHROPIC_BASE_URL": server.url,
        }
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "cms",
                "search",
                "--session",
                "chat-1",
                "usage",
                "-k",
                "1",
                "--json",
            ],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(REPO), **env),
            cwd=project,
            timeout=180,
            check=False,
        )
        assert len(server.message_requests) == 1
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["selector"] == selector
    assert next(r["text"] for r in report["results"]) in {
        "Token usage lives in usage.sqlite3 under CMS_HOME",
        "The usage database runs in WAL mode",
    }
