"""cms.install's settings functions, called in-process: recognition, merge, removal, files."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from cms.errors import InstallError
from cms.install.hook_entries import (
    desired_groups,
    events_for,
    handler_argv,
    hook_command,
    installed_hooks,
    is_our_handler,
    merge_entries,
    parse_version,
    remove_entries,
)
from cms.install.places import settings_path
from cms.install.settings_file import (
    apply_change,
    load_settings,
    plan_change,
    render_settings,
    settings_diff,
    write_settings_atomically,
)

CMS = Path("/opt/cms/.venv/bin/cms")
ALL = ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd", "PreCompact"]


def foreign_settings() -> dict[str, Any]:
    """A settings object with foreign hooks in our events, other matchers and other events."""
    return {
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "~/bin/prompt-guard.sh"}]},
            ],
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]},
                {"matcher": "resume", "hooks": []},
            ],
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "cms-lint hook"}]},
            ],
            "Stop": [
                {"hooks": [{"type": "command", "command": "echo cms hook Stop", "timeout": 5}]},
            ],
        },
        "env": {"FOO": "bär"},
    }


def render(data: Any) -> str:
    return str(render_settings(data))


def groups(events: list[str] = ALL, home: Path | None = None) -> Any:
    return desired_groups(CMS, events, home)


# ------------------------------------------------------------------ recognition


@pytest.mark.parametrize(
    "command",
    [
        "/opt/cms/.venv/bin/cms hook Stop",
        "'/home/a b/é/.venv/bin/cms' hook Stop",
        "CMS_HOME=/data/cms '/x/cms' hook Stop",
        "CMS_HOME='/d a/t' OTHER=1 /x/cms hook Stop --verbose",
        "C:/Users/me/cms/.venv/Scripts/cms.exe hook Stop",
        "cms hook Stop",
    ],
)
def test_our_command_forms_are_recognised(command: str) -> None:
    assert is_our_handler({"type": "command", "command": command}, "Stop")


@pytest.mark.parametrize(
    "handler",
    [
        {"type": "command", "command": "echo cms hook Stop"},
        {"type": "command", "command": "/usr/bin/cms-tool hook Stop"},
        {"type": "command", "command": "/x/cms hook UserPromptSubmit"},
        {"type": "command", "command": "/x/cms hooks Stop"},
        {"type": "command", "command": "/x/cms"},
        {"type": "command", "command": "python -m cms hook Stop"},
        {"type": "command", "command": "'/x/cms hook Stop"},
        {"type": "http", "command": "/x/cms hook Stop"},
        {"command": "/x/cms hook Stop"},
        {"type": "command", "command": ["/x/cms", "hook", "Stop"]},
        "/x/cms hook Stop",
    ],
)
def test_lookalike_handlers_are_not_ours(handler: Any) -> None:
    assert not is_our_handler(handler, "Stop")


def test_exec_form_handler_with_our_argv_is_ours() -> None:
    handler = {"type": "command", "command": "/x/.venv/bin/cms", "args": ["hook", "Stop"]}
    assert is_our_handler(handler, "Stop")
    assert not is_our_handler(handler, "SessionEnd")


def test_hook_command_splits_back_to_the_exact_argv() -> None:
    cms = Path("/tmp/it's a dir/é ü/$HOME/`x`/cms")
    home = Path("/tmp/data dir/ü")
    command = hook_command(cms, "UserPromptSubmit", home)
    assert shlex.split(command) == [f"CMS_HOME={home}", str(cms), "hook", "UserPromptSubmit"]
    handler = {"type": "command", "command": command}
    assert handler_argv(handler) == (
        {"CMS_HOME": str(home)},
        [str(cms), "hook", "UserPromptSubmit"],
    )


# ------------------------------------------------------------------ versions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2.1.332 (Claude Code)\n", (2, 1, 332)),
        ("1.0.50 (Claude Code)", (1, 0, 50)),
        ("claude version 1.0.85-beta", (1, 0, 85)),
        ("Claude Code\n", None),
        ("", None),
    ],
)
def test_claude_version_output_is_parsed(text: str, expected: tuple[int, int, int] | None) -> None:
    assert parse_version(text) == expected


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ((1, 0, 47), ["Stop"]),
        ((1, 0, 50), ["Stop", "PreCompact"]),
        ((1, 0, 54), ["UserPromptSubmit", "PreToolUse", "Stop", "PreCompact"]),
        ((1, 0, 62), ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "PreCompact"]),
        ((1, 0, 85), ALL),
        ((2, 1, 332), ALL),
        (None, ALL),
    ],
)
def test_claude_events_are_gated_by_version(
    version: tuple[int, int, int] | None, expected: list[str]
) -> None:
    assert events_for("claude", version) == expected


def test_codex_gets_every_event_whatever_the_claude_version() -> None:
    assert events_for("codex", (1, 0, 0)) == ALL


# ------------------------------------------------------------------ merge and remove


def test_merge_into_empty_settings_writes_our_five_groups() -> None:
    merged = merge_entries({}, groups())
    assert list(merged["hooks"]) == ALL
    start = merged["hooks"]["SessionStart"][0]
    assert start["matcher"] == "startup|resume|clear|compact"
    assert start["hooks"] == [
        {"type": "command", "command": f"{CMS} hook SessionStart", "timeout": 10}
    ]
    assert "matcher" not in merged["hooks"]["UserPromptSubmit"][0]
    assert all(g[0]["hooks"][0]["timeout"] == 10 for g in merged["hooks"].values())


def test_merge_twice_is_a_no_op() -> None:
    once = merge_entries(foreign_settings(), groups())
    twice = merge_entries(once, groups())
    assert render(twice) == render(once)


def test_foreign_entries_keep_their_place_and_order_through_install() -> None:
    original = foreign_settings()
    merged = merge_entries(original, groups())
    assert list(merged) == list(original)
    hooks = merged["hooks"]
    assert list(hooks)[:4] == ["UserPromptSubmit", "SessionStart", "PreToolUse", "Stop"]
    assert hooks["UserPromptSubmit"][0] == original["hooks"]["UserPromptSubmit"][0]
    assert hooks["SessionStart"][:2] == original["hooks"]["SessionStart"]
    assert hooks["PreToolUse"][0] == original["hooks"]["PreToolUse"][0]  # ours goes after it
    assert hooks["Stop"][0] == original["hooks"]["Stop"][0]
    assert remove_entries(merged) == original


def test_uninstall_removes_only_the_containers_we_emptied() -> None:
    original = foreign_settings()
    original["hooks"]["Notification"] = []
    merged = merge_entries(original, groups())
    removed = remove_entries(merged)
    assert removed["hooks"]["Notification"] == []
    assert removed["hooks"]["SessionStart"][1] == {"matcher": "resume", "hooks": []}
    assert "SessionEnd" not in removed["hooks"]
    assert remove_entries({}) == {}
    assert remove_entries(merge_entries({}, groups())) == {}


def test_our_handler_in_a_shared_group_is_updated_in_place() -> None:
    old = {"type": "command", "command": "/old/venv/bin/cms hook UserPromptSubmit", "timeout": 3}
    foreign = {"type": "command", "command": "echo before"}
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [foreign, old, foreign]}]}}
    merged = merge_entries(settings, groups(["UserPromptSubmit"]))
    handlers = merged["hooks"]["UserPromptSubmit"][0]["hooks"]
    assert handlers[0] == foreign and handlers[2] == foreign
    assert handlers[1]["command"] == f"{CMS} hook UserPromptSubmit"
    assert len(merged["hooks"]["UserPromptSubmit"]) == 1


def test_our_handler_under_a_foreign_matcher_moves_to_its_own_group() -> None:
    foreign = {"type": "command", "command": "echo hi"}
    ours = {"type": "command", "command": "/old/cms hook SessionStart"}
    settings = {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [foreign, ours]}]}}
    merged = merge_entries(settings, groups(["SessionStart"]))
    assert merged["hooks"]["SessionStart"][0] == {"matcher": "startup", "hooks": [foreign]}
    assert merged["hooks"]["SessionStart"][1] == groups(["SessionStart"])["SessionStart"]


def test_duplicates_of_ours_collapse_into_one() -> None:
    dup = {"hooks": [{"type": "command", "command": "/a/cms hook Stop"}]}
    settings = {"hooks": {"Stop": [dup, {"hooks": [{"type": "command", "command": "x"}]}, dup]}}
    merged = merge_entries(settings, groups(["Stop"]))
    stop = merged["hooks"]["Stop"]
    assert len(stop) == 2
    assert stop[0]["hooks"][0]["command"] == f"{CMS} hook Stop"
    assert stop[1] == {"hooks": [{"type": "command", "command": "x"}]}


def test_reinstall_for_an_older_claude_drops_events_it_does_not_know() -> None:
    full = merge_entries(foreign_settings(), groups())
    older = merge_entries(full, groups(["Stop", "PreCompact"]))
    assert set(installed_hooks(older)) == {"Stop", "PreCompact"}
    assert older["hooks"]["SessionStart"] == foreign_settings()["hooks"]["SessionStart"]
    assert "SessionEnd" not in older["hooks"]


def test_merge_refuses_a_hooks_value_of_the_wrong_shape() -> None:
    with pytest.raises(InstallError, match="not a JSON object"):
        merge_entries({"hooks": []}, groups())
    with pytest.raises(InstallError, match=r"hooks\.Stop"):
        merge_entries({"hooks": {"Stop": {"hooks": []}}}, groups())


def test_installed_hooks_reports_only_ours_per_event() -> None:
    merged = merge_entries(foreign_settings(), groups(["Stop"]))
    found = installed_hooks(merged)
    assert list(found) == ["Stop"]
    assert [h["command"] for h in found["Stop"]] == [f"{CMS} hook Stop"]


# ------------------------------------------------------------------ files


def test_install_then_uninstall_restores_the_original_bytes(tmp_path: Path) -> None:
    for indent, newline in ((2, True), (4, False), ("\t", True)):
        path = tmp_path / f"settings-{indent!r}.json"
        original = json.dumps(foreign_settings(), indent=indent, ensure_ascii=False)
        original += "\n" if newline else ""
        path.write_text(original, encoding="utf-8")
        apply_change(plan_change(path, lambda d: merge_entries(d, groups())))
        assert path.read_text(encoding="utf-8") != original
        apply_change(plan_change(path, remove_entries))
        assert path.read_text(encoding="utf-8") == original


def test_unchanged_settings_are_neither_rewritten_nor_backed_up(tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir()
    path = tmp_path / "cfg" / "settings.json"
    odd = '{"a":1,   "hooks": {}}'
    path.write_text(odd, encoding="utf-8")
    change = plan_change(path, remove_entries)
    assert not change.changed
    assert apply_change(change) is None
    assert path.read_text(encoding="utf-8") == odd
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_a_change_keeps_a_timestamped_backup_of_the_old_bytes(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"x": 1}', encoding="utf-8")
    path.chmod(0o600)
    backup = apply_change(plan_change(path, lambda d: merge_entries(d, groups())))
    assert backup is not None
    assert backup.name.startswith("settings.json.bak-")
    assert len(backup.name) == len("settings.json.bak-YYYYmmdd-HHMMSS")
    assert backup.read_text(encoding="utf-8") == '{"x": 1}'
    assert path.stat().st_mode & 0o777 == 0o600
    second = write_settings_atomically(path, "{}\n", path.read_text(encoding="utf-8"))
    assert second is not None and second != backup  # same second: a distinct name


def test_a_symlinked_settings_file_is_written_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    real.write_text("{}\n", encoding="utf-8")
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    apply_change(plan_change(link, lambda d: merge_entries(d, groups())))
    assert link.is_symlink()
    assert "hook Stop" in real.read_text(encoding="utf-8")


def test_a_file_changed_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}\n", encoding="utf-8")
    change = plan_change(path, lambda d: merge_entries(d, groups()))
    path.write_text('{"someone": "else"}\n', encoding="utf-8")
    with pytest.raises(InstallError, match="changed while"):
        apply_change(change)
    assert path.read_text(encoding="utf-8") == '{"someone": "else"}\n'


def test_a_new_settings_file_and_its_folder_are_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / ".claude" / "settings.json"
    apply_change(plan_change(path, lambda d: merge_entries(d, groups())))
    assert json.loads(path.read_text(encoding="utf-8"))["hooks"]["Stop"]
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"hooks": {}', "not valid JSON"),
        ('{\n  // my comment\n  "a": 1\n}\n', "not valid JSON (line 2"),
        ('{"a": [1, 2,],}\n', "not valid JSON"),
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ("[1, 2]", "does not hold a JSON object"),
        ('\ufeff{"a": 1}', "not valid JSON"),
    ],
)
def test_unreadable_settings_raise_one_line_and_stay_untouched(
    tmp_path: Path, content: str, needle: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InstallError) as caught:
        plan_change(path, lambda d: merge_entries(d, groups()))
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)
    assert path.read_text(encoding="utf-8") == content


def test_non_utf8_settings_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InstallError, match="not UTF-8"):
        load_settings(path)


def test_a_blank_settings_file_counts_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("  \n", encoding="utf-8")
    assert load_settings(path).data == {}


def test_dry_run_diff_names_the_file_and_shows_our_lines(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    change = plan_change(path, lambda d: merge_entries(d, groups()))
    diff = settings_diff(path, change.settings.text, change.after)
    assert diff.startswith(f"--- /dev/null\n+++ {path}\n")
    assert f'+            "command": "{CMS} hook Stop",\n' in diff
    assert not path.exists()


def test_settings_paths_follow_agent_and_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.environ["HOME"])
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert settings_path("claude", False) == home / ".claude" / "settings.json"
    assert settings_path("codex", False) == home / ".codex" / "hooks.json"
    assert settings_path("claude", True, tmp_path) == tmp_path / ".claude/settings.json"
    assert settings_path("codex", True, tmp_path) == tmp_path / ".codex" / "hooks.json"
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex home"))
    assert settings_path("codex", False) == tmp_path / "codex home" / "hooks.json"
