"""`cms install` run in-process on a temporary home, with fake `cms` and `claude` executables."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.install.conftest import BROKEN_CMS, FAKE_CMS, RunInstall, write_executable

ALL = ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd", "PreCompact"]
PAYLOAD = {
    "session_id": "d919c848-7982-464b-9af4-7a5622445c4d",
    "transcript_path": "/nonexistent/d919c848.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "hello there",
}


def home() -> Path:
    return Path(os.environ["HOME"])


def claude_settings() -> Path:
    return home() / ".claude" / "settings.json"


def files_under(folder: Path) -> list[str]:
    """Every path under folder, without the `cms` link's ~/.local (test_user_bin.py's subject)."""
    found = (p.relative_to(folder) for p in folder.rglob("*"))
    return sorted(str(p) for p in found if folder != home() or p.parts[0] != ".local")


def fake_claude(fake_bin: Path, version_line: str) -> None:
    write_executable(fake_bin / "claude", f"#!/bin/sh\necho '{version_line}'\n")


def test_install_twice_gives_a_byte_identical_file(run_install: RunInstall, fake_cms: Path) -> None:
    first = run_install("--cms", str(fake_cms))
    assert first.returncode == 0, first.stderr
    after_first = claude_settings().read_bytes()
    second = run_install("--cms", str(fake_cms))
    assert second.returncode == 0, second.stderr
    assert claude_settings().read_bytes() == after_first
    assert "unchanged" in second.stdout
    assert files_under(home() / ".claude") == ["settings.json"]  # no backup for a no-op


def test_install_prints_the_commands_and_that_memory_is_active(
    run_install: RunInstall, fake_cms: Path
) -> None:
    done = run_install("--cms", str(fake_cms))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-3].startswith("cms: memory is active for Claude Code (")
    assert lines[-2] == f"cms: linked ~/.local/bin/cms -> {fake_cms}" + (
        f'; ~/.local/bin is not on PATH: add it, e.g. export PATH="{home()}/.local/bin:$PATH"'
    )
    assert lines[-1] == "next: start a new Claude Code session; `cms show` to look"
    data = json.loads(claude_settings().read_text(encoding="utf-8"))
    for event in ALL:
        command = data["hooks"][event][-1]["hooks"][0]["command"]
        assert f"  {event}: {command}" in lines


def test_foreign_hooks_survive_install_and_uninstall_byte_for_byte(
    run_install: RunInstall, fake_cms: Path
) -> None:
    original = {
        "env": {"EDITOR": "vim"},
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "echo s"}]}
            ],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "guard.sh"}]}],
            "PostToolUse": [
                {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "fmt"}]}
            ],
        },
        "statusLine": {"type": "command", "command": "line.sh"},
    }
    text = json.dumps(original, indent=2) + "\n"
    claude_settings().parent.mkdir(parents=True)
    claude_settings().write_text(text, encoding="utf-8")

    assert run_install("--cms", str(fake_cms)).returncode == 0
    installed = json.loads(claude_settings().read_text(encoding="utf-8"))
    assert installed["hooks"]["SessionStart"][0] == original["hooks"]["SessionStart"][0]
    assert installed["hooks"]["UserPromptSubmit"][0] == original["hooks"]["UserPromptSubmit"][0]
    assert installed["hooks"]["PostToolUse"] == original["hooks"]["PostToolUse"]
    assert list(installed) == ["env", "hooks", "statusLine"]
    backups = [p for p in claude_settings().parent.iterdir() if ".bak-" in p.name]
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == text

    removed = run_install("--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert claude_settings().read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    "content",
    [
        '{"hooks": {"Stop": []}',
        '{\n  // user comment\n  "model": "opus"\n}\n',
        '{\n  "model": "opus",\n}\n',
        '{"permissions": {"allow": ["Bash"],},}',
    ],
    ids=["truncated", "comment", "trailing-comma", "nested-trailing-commas"],
)
@pytest.mark.parametrize("action", [[], ["--uninstall"], ["--dry-run"]], ids=str)
def test_invalid_json_is_refused_in_one_line_and_left_untouched(
    run_install: RunInstall, fake_cms: Path, content: str, action: list[str]
) -> None:
    claude_settings().parent.mkdir(parents=True)
    claude_settings().write_text(content, encoding="utf-8")
    done = run_install("--cms", str(fake_cms), *action)
    assert done.returncode == 1
    assert done.stdout == ""
    message = done.stderr.strip()
    assert "\n" not in message
    assert message.startswith(f"cms: error: {claude_settings()} is not valid JSON (line ")
    assert message.endswith("left it untouched")
    assert claude_settings().read_text(encoding="utf-8") == content
    assert files_under(home()) == [".claude", ".claude/settings.json"]
    assert not (fake_cms.parent / "calls.log").exists()  # not even the self-check ran


def test_project_scope_writes_only_the_project_file(
    run_install: RunInstall, fake_cms: Path, project_dir: Path
) -> None:
    done = run_install("--cms", str(fake_cms), "--project")
    assert done.returncode == 0, done.stderr
    assert files_under(project_dir) == [".claude", ".claude/settings.json"]
    assert files_under(home()) == []
    hooks = json.loads((project_dir / ".claude/settings.json").read_text(encoding="utf-8"))
    assert list(hooks["hooks"]) == ALL


def test_codex_agent_writes_only_codex_hooks_json(
    run_install: RunInstall, fake_cms: Path, project_dir: Path
) -> None:
    done = run_install("--cms", str(fake_cms), "--agent", "codex")
    assert done.returncode == 0, done.stderr
    assert files_under(home()) == [".codex", ".codex/hooks.json"]
    assert files_under(project_dir) == []
    data = json.loads((home() / ".codex/hooks.json").read_text(encoding="utf-8"))
    assert list(data) == ["hooks"]
    assert list(data["hooks"]) == ALL
    assert "memory is active for Codex" in done.stdout

    project = run_install("--cms", str(fake_cms), "--agent", "codex", "--project")
    assert project.returncode == 0, project.stderr
    assert files_under(project_dir) == [".codex", ".codex/hooks.json"]
    assert files_under(home()) == [".codex", ".codex/hooks.json"]


def test_codex_home_variable_moves_the_codex_file(
    run_install: RunInstall, fake_cms: Path, tmp_path: Path
) -> None:
    codex_home = tmp_path / "codex home"
    done = run_install(
        "--cms", str(fake_cms), "--agent", "codex", env={"CODEX_HOME": str(codex_home)}
    )
    assert done.returncode == 0, done.stderr
    assert files_under(codex_home) == ["hooks.json"]
    assert files_under(home()) == []


def test_dry_run_prints_the_diff_and_writes_nothing(
    run_install: RunInstall, fake_cms: Path, tmp_path: Path
) -> None:
    before = files_under(tmp_path)
    done = run_install("--cms", str(fake_cms), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"+++ {claude_settings()}" in done.stdout
    assert '+        "matcher": "startup|resume|clear|compact",' in done.stdout
    assert files_under(tmp_path) == before

    assert run_install("--cms", str(fake_cms)).returncode == 0
    content = claude_settings().read_bytes()
    again = run_install("--uninstall", "--purge", "--dry-run")
    assert again.returncode == 0, again.stderr
    assert '-            "type": "command",' in again.stdout
    assert "would delete the data folder" in again.stdout
    assert claude_settings().read_bytes() == content


def test_dry_run_with_a_venv_that_does_not_exist_shows_its_cms_and_makes_nothing(
    run_install: RunInstall, tmp_path: Path
) -> None:
    done = run_install("--venv", str(tmp_path / "v"), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"{tmp_path / 'v' / 'bin' / 'cms'}" in done.stdout
    assert not (tmp_path / "v").exists()


def test_written_commands_run_from_a_folder_with_a_space_and_an_e_acute(
    run_install: RunInstall, fake_cms: Path, project_dir: Path
) -> None:
    assert " " in str(fake_cms) and "é" in str(fake_cms)
    assert run_install("--cms", str(fake_cms)).returncode == 0
    data = json.loads(claude_settings().read_text(encoding="utf-8"))
    log = fake_cms.parent / "calls.log"
    log.unlink()
    for event in ALL:
        command = data["hooks"][event][-1]["hooks"][0]["command"]
        done = subprocess.run(
            ["sh", "-c", command],
            input=json.dumps({**PAYLOAD, "hook_event_name": event}),
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=project_dir,
            env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},  # a bare hook env
            timeout=30,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["hookSpecificOutput"]["hookEventName"] == event
    calls = log.read_text(encoding="utf-8").splitlines()
    assert calls == [f"{os.environ['CMS_HOME']}|hook {event}" for event in ALL]


def test_cms_home_is_fixed_in_commands_only_when_it_is_not_the_default(
    run_install: RunInstall, fake_cms: Path
) -> None:
    run_install("--cms", str(fake_cms))
    command = json.loads(claude_settings().read_text(encoding="utf-8"))["hooks"]["Stop"][0]
    assert command["hooks"][0]["command"].startswith(f"CMS_HOME={os.environ['CMS_HOME']} ")

    default_home = str(home() / ".cms")
    run_install("--cms", str(fake_cms), env={"CMS_HOME": default_home})
    stop = json.loads(claude_settings().read_text(encoding="utf-8"))["hooks"]["Stop"]
    assert len(stop) == 1
    assert stop[0]["hooks"][0]["command"] == f"'{fake_cms}' hook Stop"


def test_self_check_uses_a_throwaway_data_folder(run_install: RunInstall, fake_cms: Path) -> None:
    done = run_install("--cms", str(fake_cms))
    assert done.returncode == 0, done.stderr
    calls = (fake_cms.parent / "calls.log").read_text(encoding="utf-8").splitlines()
    assert len(calls) == 1
    used_home, argv = calls[0].split("|")
    assert argv == "hook UserPromptSubmit"
    assert "cms-selfcheck-" in used_home
    assert used_home != os.environ["CMS_HOME"]
    assert not Path(used_home).exists()
    assert files_under(Path(os.environ["CMS_HOME"])) == ["install-record.json"]  # no memory data


@pytest.mark.parametrize(
    "script",
    [BROKEN_CMS, "#!/bin/sh\ncat >/dev/null\necho 'not json'\n"],
    ids=["exit-1", "not-json"],
)
def test_a_failing_self_check_warns_and_exits_3_with_hooks_written(
    run_install: RunInstall, tmp_path: Path, script: str
) -> None:
    cms = write_executable(tmp_path / "bad" / "cms", script)
    done = run_install("--cms", str(cms))
    assert done.returncode == 3
    assert "memory is active" not in done.stdout
    assert done.stderr.startswith("cms: WARNING: hooks are installed but the self-check failed")
    assert list(json.loads(claude_settings().read_text(encoding="utf-8"))["hooks"]) == ALL


def test_a_missing_cms_executable_is_an_error(run_install: RunInstall, tmp_path: Path) -> None:
    done = run_install("--cms", str(tmp_path / "nope" / "cms"))
    assert done.returncode == 1
    assert "is not an executable file" in done.stderr
    assert not claude_settings().exists()


def test_skip_venv_uses_the_cms_on_path(run_install: RunInstall, fake_bin: Path) -> None:
    write_executable(fake_bin / "cms", FAKE_CMS)
    done = run_install("--skip-venv")
    assert done.returncode == 0, done.stderr
    assert f"{fake_bin / 'cms'} hook Stop" in claude_settings().read_text(encoding="utf-8")
    assert run_install("--skip-venv", env={"PATH": "/usr/bin:/bin"}).returncode == 1


@pytest.mark.parametrize(
    ("version_line", "expected"),
    [
        ("1.0.50 (Claude Code)", ["Stop", "PreCompact"]),
        (
            "1.0.62 (Claude Code)",
            ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "PreCompact"],
        ),
        ("2.1.332 (Claude Code)", ALL),
        ("Claude Code (dev build)", ALL),
    ],
)
def test_only_events_the_installed_claude_knows_are_written(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path, version_line: str, expected: list[str]
) -> None:
    fake_claude(fake_bin, version_line)
    done = run_install("--cms", str(fake_cms))
    assert done.returncode == 0, done.stderr
    data = json.loads(claude_settings().read_text(encoding="utf-8"))
    assert list(data["hooks"]) == expected
    if expected != ALL:
        assert "does not know" in done.stdout


def test_a_claude_downgrade_removes_the_events_it_no_longer_knows(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    assert run_install("--cms", str(fake_cms)).returncode == 0
    fake_claude(fake_bin, "1.0.54 (Claude Code)")
    assert run_install("--cms", str(fake_cms)).returncode == 0
    data = json.loads(claude_settings().read_text(encoding="utf-8"))
    assert list(data["hooks"]) == ["UserPromptSubmit", "PreToolUse", "Stop", "PreCompact"]


def test_codex_install_ignores_the_claude_version(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    fake_claude(fake_bin, "1.0.50 (Claude Code)")
    assert run_install("--cms", str(fake_cms), "--agent", "codex").returncode == 0
    data = json.loads((home() / ".codex/hooks.json").read_text(encoding="utf-8"))
    assert list(data["hooks"]) == ALL


def test_status_reports_each_agent_with_provider_and_last_error(
    run_install: RunInstall, fake_cms: Path
) -> None:
    before = run_install("--status")
    assert before.returncode == 0, before.stderr
    assert "Claude Code: not installed (~/.claude/settings.json)" in before.stdout
    assert "Codex: not installed (~/.codex/hooks.json)" in before.stdout

    assert run_install("--cms", str(fake_cms)).returncode == 0
    log = Path(os.environ["CMS_HOME"]) / "logs" / "cms.log"
    log.parent.mkdir(parents=True)
    log.write_text(
        "2026-11-30T10:00:00Z pid=1 ERROR hook.failed old one\n"
        "2026-11-30T10:00:01Z pid=2 ERROR hook.failed event=Stop KeyError: 'x'\n"
        "2026-11-30T10:00:02Z pid=3 INFO hook.ok fine\n",
        encoding="utf-8",
    )
    after = run_install("--status")
    assert after.returncode == 0, after.stderr
    out = after.stdout
    assert "Claude Code: installed in ~/.claude/settings.json" in out
    assert f"  events: {', '.join(ALL)}" in out
    assert f"  command: {fake_cms} (ok)" in out
    assert f"  data: {os.environ['CMS_HOME']}" in out
    assert "  provider (auto): local (no API key and no claude on PATH)" in out
    assert "  last hook error: 2026-11-30T10:00:01Z pid=2 ERROR hook.failed event=Stop" in out
    assert "Codex: not installed" in out


def test_status_says_unknown_when_doctor_fails(
    run_install: RunInstall, tmp_path: Path, fake_bin: Path
) -> None:
    cms = write_executable(tmp_path / "d" / "cms", FAKE_CMS.replace("doctor)", "doctor-x)"))
    assert run_install("--cms", str(cms), "--agent", "codex").returncode == 0
    fake_claude(fake_bin, "1.0.50 (Claude Code)")
    out = run_install("--status").stdout
    assert "Codex: installed in ~/.codex/hooks.json" in out
    assert "  provider (auto): unknown" in out
    assert "  last hook error: none" in out
    assert "Claude Code: not installed" in out


def test_status_flags_events_the_installed_claude_does_not_know(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    assert run_install("--cms", str(fake_cms)).returncode == 0
    fake_claude(fake_bin, "1.0.62 (Claude Code)")
    out = run_install("--status").stdout
    assert "WARNING: this Claude Code version does not know SessionEnd" in out
    fake_cms.unlink()
    assert "(MISSING: reinstall)" in run_install("--status").stdout


def test_uninstall_purge_prints_and_deletes_the_data_folder(
    run_install: RunInstall, fake_cms: Path
) -> None:
    data = Path(os.environ["CMS_HOME"])
    (data / "chats").mkdir(parents=True)
    assert run_install("--cms", str(fake_cms)).returncode == 0
    done = run_install("--uninstall", "--purge")
    assert done.returncode == 0, done.stderr
    assert f"cms: deleting the data folder {data}" in done.stdout
    assert not data.exists()
    assert not claude_settings().exists()  # install created it: uninstall gives back "no file"


def test_purge_refuses_to_delete_the_home_folder(run_install: RunInstall) -> None:
    done = run_install("--uninstall", "--purge", env={"CMS_HOME": os.environ["HOME"]})
    assert done.returncode == 1
    assert "refusing to delete" in done.stderr
    assert home().is_dir()


def test_purge_needs_uninstall(run_install: RunInstall) -> None:
    done = run_install("--purge")
    assert done.returncode == 2
    assert "--purge only goes with --uninstall" in done.stderr


def test_uninstall_without_our_hooks_changes_nothing(run_install: RunInstall) -> None:
    claude_settings().parent.mkdir(parents=True)
    text = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}'
    claude_settings().write_text(text, encoding="utf-8")
    done = run_install("--uninstall")
    assert done.returncode == 0, done.stderr
    assert "no cms hooks" in done.stdout
    assert claude_settings().read_text(encoding="utf-8") == text
    assert files_under(home() / ".claude") == ["settings.json"]


def test_claude_2_1_118_or_later_gets_mcp_tool_hooks_and_their_server_and_loses_both_on_uninstall(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    fake_claude(fake_bin, "2.1.332 (Claude Code)")
    done = run_install("--cms", str(fake_cms))
    assert done.returncode == 0, done.stderr
    hooks = json.loads(claude_settings().read_text(encoding="utf-8"))["hooks"]
    prompt = hooks["UserPromptSubmit"][0]["hooks"][0]
    assert prompt["type"] == "mcp_tool" and prompt["server"] == "cms"
    assert prompt["tool"] == "hook_user_prompt_submit" and prompt["input"]["prompt"] == "${prompt}"
    pre = hooks["PreToolUse"][0]["hooks"][0]
    assert pre["tool"] == "hook_pre_tool_use" and pre["input"]["tool_input"] == "${tool_input}"
    assert {h["hooks"][0]["type"] for e, g in hooks.items() for h in g if e not in (
        "UserPromptSubmit", "PreToolUse")} == {"command"}  # fmt: skip
    servers = json.loads((home() / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["cms"]["args"] == ["mcp"] and servers["cms"]["command"] == str(fake_cms)
    assert "mcp_tool cms:hook_user_prompt_submit" in done.stdout
    again = run_install("--cms", str(fake_cms))
    assert "unchanged" in again.stdout

    removed = run_install("--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert not claude_settings().exists() or "hooks" not in json.loads(
        claude_settings().read_text(encoding="utf-8")
    )
    user_mcp = home() / ".claude.json"  # made by the install: gone with what it held
    assert not user_mcp.exists() or "mcpServers" not in json.loads(user_mcp.read_text("utf-8"))


def test_older_claude_and_command_hooks_keep_every_hook_a_command(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    for version, extra in (
        ("2.1.100 (Claude Code)", []),
        ("2.1.332 (Claude Code)", ["--command-hooks"]),
    ):
        fake_claude(fake_bin, version)
        assert run_install("--cms", str(fake_cms), *extra).returncode == 0
        hooks = json.loads(claude_settings().read_text(encoding="utf-8"))["hooks"]
        assert {g["hooks"][0]["type"] for groups in hooks.values() for g in groups} == {"command"}
        assert not (home() / ".claude.json").exists()
