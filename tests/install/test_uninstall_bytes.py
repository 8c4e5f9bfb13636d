"""--uninstall gives back the original bytes of a settings or MCP file when our entries were the
only change (a hand-formatted file is not re-indented), removes a file install created, and
leaves no `{}` or `"mcpServers": {}` behind; a file changed since install gets only our entries
taken out."""

from __future__ import annotations

import json
from pathlib import Path

from tests.install.conftest import RunInstall
from tests.install.test_install_cli import claude_settings, home

HAND_FORMATTED = """{
    "model": "opus",
    "permissions": { "allow": ["Bash(git *)", "Read"], "deny": [] },
    "hooks": {
        "PostToolUse": [ { "matcher": "Write", "hooks": [ { "type": "command", "command": "fmt" } ] } ]
    },
    "env": {"EDITOR": "vim"}
}
"""


def ok(done: object) -> None:
    assert getattr(done, "returncode", 1) == 0, getattr(done, "stderr", "")


def test_uninstall_gives_back_a_hand_formatted_settings_file_byte_for_byte(
    run_install: RunInstall, fake_cms: Path
) -> None:
    claude_settings().parent.mkdir(parents=True)
    claude_settings().write_text(HAND_FORMATTED, encoding="utf-8")
    ok(run_install("--cms", str(fake_cms)))
    assert claude_settings().read_text(encoding="utf-8") != HAND_FORMATTED
    ok(run_install("--cms", str(fake_cms)))  # a second install changes nothing
    ok(run_install("--uninstall"))
    assert claude_settings().read_bytes() == HAND_FORMATTED.encode("utf-8")


def test_uninstall_after_an_update_still_gives_back_the_bytes_from_before_the_first_install(
    run_install: RunInstall, fake_cms: Path, tmp_path: Path
) -> None:
    claude_settings().parent.mkdir(parents=True)
    claude_settings().write_text(HAND_FORMATTED, encoding="utf-8")
    ok(run_install("--cms", str(fake_cms)))
    moved = tmp_path / "moved" / "cms"
    moved.parent.mkdir()
    moved.write_bytes(fake_cms.read_bytes())
    moved.chmod(0o755)
    ok(run_install("--cms", str(moved)))  # the commands change: a second write
    ok(run_install("--uninstall"))
    assert claude_settings().read_bytes() == HAND_FORMATTED.encode("utf-8")


def test_uninstall_removes_a_settings_file_that_install_created(
    run_install: RunInstall, fake_cms: Path
) -> None:
    ok(run_install("--cms", str(fake_cms)))
    assert claude_settings().exists()
    done = run_install("--uninstall")
    ok(done)
    assert not claude_settings().exists()
    assert "cms created it" in done.stdout


def test_a_file_changed_since_install_loses_only_our_entries(
    run_install: RunInstall, fake_cms: Path
) -> None:
    claude_settings().parent.mkdir(parents=True)
    claude_settings().write_text(HAND_FORMATTED, encoding="utf-8")
    ok(run_install("--cms", str(fake_cms)))
    data = json.loads(claude_settings().read_text(encoding="utf-8"))
    data["model"] = "sonnet"  # the user changed something else meanwhile
    claude_settings().write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    ok(run_install("--uninstall"))
    after = json.loads(claude_settings().read_text(encoding="utf-8"))
    expected = json.loads(HAND_FORMATTED)
    expected["model"] = "sonnet"
    assert after == expected


def test_mcp_uninstall_gives_back_the_project_file_or_removes_the_one_it_created(
    run_install: RunInstall, fake_cms: Path, project_dir: Path
) -> None:
    mcp = project_dir / ".mcp.json"
    ok(run_install("--cms", str(fake_cms), "--mcp", "--project"))
    assert mcp.exists()
    ok(run_install("--uninstall", "--mcp", "--project"))
    assert not mcp.exists()
    assert not (project_dir / ".claude" / "settings.json").exists()
    text = '{"mcpServers": {"other": {"command": "x", "args": []}}, "x": 1}'
    mcp.write_text(text, encoding="utf-8")
    ok(run_install("--cms", str(fake_cms), "--mcp", "--project"))
    ok(run_install("--uninstall", "--mcp", "--project"))
    assert mcp.read_text(encoding="utf-8") == text


def test_no_empty_mcp_servers_object_is_left_in_a_file_changed_since_install(
    run_install: RunInstall, fake_cms: Path
) -> None:
    claude_json = home() / ".claude.json"
    claude_json.write_text('{"numStartups": 1}\n', encoding="utf-8")
    ok(run_install("--cms", str(fake_cms), "--mcp"))
    data = json.loads(claude_json.read_text(encoding="utf-8"))
    data["numStartups"] = 2  # Claude Code rewrites this file all the time
    claude_json.write_text(json.dumps(data), encoding="utf-8")
    ok(run_install("--uninstall", "--mcp"))
    assert json.loads(claude_json.read_text(encoding="utf-8")) == {"numStartups": 2}


def test_codex_config_toml_gets_its_original_bytes_back(
    run_install: RunInstall, fake_cms: Path
) -> None:
    config = home() / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    text = 'model = "o3"\n\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    config.write_text(text, encoding="utf-8")
    ok(run_install("--agent", "codex", "--cms", str(fake_cms), "--mcp"))
    ok(run_install("--agent", "codex", "--uninstall", "--mcp"))
    assert config.read_text(encoding="utf-8") == text
    assert not (home() / ".codex" / "hooks.json").exists()


def test_the_install_record_is_private_and_goes_with_the_last_uninstall(
    run_install: RunInstall, fake_cms: Path
) -> None:
    import os
    import stat

    ok(run_install("--cms", str(fake_cms)))
    record = Path(os.environ["CMS_HOME"]) / "install-record.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    ok(run_install("--uninstall"))
    assert not record.exists()
