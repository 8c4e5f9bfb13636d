"""A broken cms.toml is one clear error everywhere: every command stops with the same one line
(naming the file, or the key of a bad value) before it reads or writes anything, and
`cms doctor` says the config is broken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cms import paths
from tests.cli.test_memory_commands import cms

BROKEN = {
    "not TOML": ("[provider\n", "config {path} is not valid TOML"),
    "bad value": ('[provider]\nmode = "openai"\n', "provider.mode: 'openai' is not one of"),
}
COMMANDS = [
    ["list"],
    ["stats"],
    ["export"],
    ["recall", "postgres"],
    ["remember", "--kind", "decision", "--title", "Use Postgres", "--body", "joins"],
    ["forget", "--id", "1"],
    ["gc"],
    ["show"],
    ["ops", "apply", "--map", "MAP", "OPS"],
    ["import", "OPS"],
    ["replay", "OPS"],
]


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_every_command_stops_with_one_line_naming_the_broken_config(
    tmp_path: Path, broken: str
) -> None:
    text, message = BROKEN[broken]
    Path(paths.config_path()).write_text(text, encoding="utf-8")
    ops = tmp_path / "ops.json"
    ops.write_text('{"ops": [{"op": "add_sun", "title": "Storage"}]}', encoding="utf-8")
    map_path = tmp_path / "map.json"
    for command in COMMANDS:
        args = [str(ops) if a == "OPS" else str(map_path) if a == "MAP" else a for a in command]
        done = cms(*args, "--cwd", str(tmp_path)) if command[0] in _CWD else cms(*args)
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, (command, done.stderr)
        assert lines[0].startswith("cms: error: ")
        assert message.format(path=paths.config_path()) in lines[0]
        assert done.stdout == "", (command, done.stdout)
    assert not map_path.exists()
    assert not (Path(paths.cms_home()) / "projects").exists()  # nothing was remembered or imported


_CWD = {"list", "stats", "export", "recall", "remember", "forget", "gc", "import"}


def test_doctor_says_the_config_is_broken_not_that_there_is_none() -> None:
    Path(paths.config_path()).write_text('[provider]\nmode = "openai"\n', encoding="utf-8")
    done = cms("doctor")
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"config:     BROKEN ({paths.config_path()}): provider.mode: 'openai'")
    assert "no file at" not in done.stdout
    report = json.loads(cms("doctor", "--json").stdout)
    assert report["config"] is None and "provider.mode" in report["config_error"]


def test_doctor_without_a_config_file_says_defaults() -> None:
    done = cms("doctor")
    assert f"config:     defaults (no file at {paths.config_path()})" in done.stdout
    report = json.loads(cms("doctor", "--json").stdout)
    assert report["config_error"] is None
