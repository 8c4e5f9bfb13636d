"""cms install --mcp: our `cms mcp` server entry in ~/.claude.json, .mcp.json and Codex's
config.toml, written idempotently, beside every foreign entry, and removed exactly."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from cms.install.codex_toml import edit_codex_mcp
from cms.install.mcp_entries import is_our_mcp_entry
from tests.install.conftest import RunInstall


def home() -> Path:
    return Path(os.environ["HOME"])


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".bak-*"))


FOREIGN_CLAUDE = {
    "numStartups": 12,
    "projects": {"/work/x": {"allowedTools": [], "mcpServers": {"local-one": {"command": "a"}}}},
    "mcpServers": {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "gh-mcp"], "env": {}},
    },
    "tipsHistory": {"é-tip": 3},
}

FOREIGN_TOML = """\
# my codex config
model = "o4"  # the model

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.docs.env]
TOKEN_ENV = "X"

[profiles.fast]
model = "o4-mini"
notes = \"\"\"
[mcp_servers.cms]
this is text inside a string, not a table
\"\"\"
"""


def test_claude_user_scope_registers_cms_mcp_in_claude_json_beside_foreign_entries(
    run_install: RunInstall, fake_cms: Path
) -> None:
    path = home() / ".claude.json"
    path.write_text(json.dumps(FOREIGN_CLAUDE, indent=2, ensure_ascii=False), encoding="utf-8")
    done = run_install("--cms", str(fake_cms), "--mcp")
    assert done.returncode == 0, done.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    ours = data["mcpServers"].pop("cms")
    assert ours["type"] == "stdio"
    assert ours["command"] == str(fake_cms)
    assert ours["args"] == ["mcp"]
    assert ours["env"] == {"CMS_HOME": os.environ["CMS_HOME"]}
    assert data == FOREIGN_CLAUDE
    assert len(backups(path)) == 1
    assert "registered the MCP server in ~/.claude.json" in done.stdout


def test_install_mcp_twice_is_a_byte_identical_no_op(
    run_install: RunInstall, fake_cms: Path
) -> None:
    path = home() / ".claude.json"
    assert run_install("--cms", str(fake_cms), "--mcp").returncode == 0
    first = path.read_bytes()
    again = run_install("--cms", str(fake_cms), "--mcp")
    assert again.returncode == 0, again.stderr
    assert path.read_bytes() == first
    assert "already registers our MCP server; unchanged" in again.stdout
    assert backups(path) == []  # the file did not exist before the first run


def test_uninstall_mcp_removes_exactly_our_server(run_install: RunInstall, fake_cms: Path) -> None:
    path = home() / ".claude.json"
    original = json.dumps(FOREIGN_CLAUDE, indent=2, ensure_ascii=False) + "\n"
    path.write_text(original, encoding="utf-8")
    assert run_install("--cms", str(fake_cms), "--mcp").returncode == 0
    done = run_install("--uninstall", "--mcp")
    assert done.returncode == 0, done.stderr
    assert path.read_text(encoding="utf-8") == original
    assert "removed our MCP server from ~/.claude.json" in done.stdout


def test_uninstall_without_mcp_keeps_the_server_and_says_how_to_remove_it(
    run_install: RunInstall, fake_cms: Path
) -> None:
    assert run_install("--cms", str(fake_cms), "--mcp").returncode == 0
    done = run_install("--uninstall")
    assert done.returncode == 0, done.stderr
    assert "cms" in json.loads((home() / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]
    assert "add --mcp to remove it too" in done.stdout


def test_project_scope_writes_the_projects_mcp_json(
    run_install: RunInstall, fake_cms: Path, project_dir: Path
) -> None:
    done = run_install("--cms", str(fake_cms), "--mcp", "--project")
    assert done.returncode == 0, done.stderr
    data = json.loads((project_dir / ".mcp.json").read_text(encoding="utf-8"))
    assert data["mcpServers"]["cms"]["args"] == ["mcp"]
    assert not (home() / ".claude.json").exists()
    assert "approve" in done.stdout


def test_a_foreign_server_named_cms_is_never_overwritten(
    run_install: RunInstall, fake_cms: Path, project_dir: Path
) -> None:
    path = project_dir / ".mcp.json"
    text = json.dumps({"mcpServers": {"cms": {"command": "node", "args": ["other.js"]}}})
    path.write_text(text, encoding="utf-8")
    done = run_install("--cms", str(fake_cms), "--mcp", "--project")
    assert done.returncode == 1
    assert "not ours" in done.stderr
    assert path.read_text(encoding="utf-8") == text
    assert run_install("--uninstall", "--mcp", "--project").returncode == 0
    assert path.read_text(encoding="utf-8") == text


def test_dry_run_prints_the_mcp_diff_and_writes_nothing(
    run_install: RunInstall, fake_cms: Path
) -> None:
    done = run_install("--cms", str(fake_cms), "--mcp", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert '+    "cms": {' in done.stdout
    assert not (home() / ".claude.json").exists()


def test_status_reports_the_registered_server(run_install: RunInstall, fake_cms: Path) -> None:
    assert run_install("--cms", str(fake_cms), "--mcp").returncode == 0
    done = run_install("--status")
    assert f"Claude Code: MCP server registered in ~/.claude.json ({fake_cms} mcp, ok)" in (
        done.stdout
    )


# ------------------------------------------------------------------------------- Codex TOML


def codex_config() -> Path:
    return home() / ".codex" / "config.toml"


def test_codex_gets_an_mcp_servers_table_and_every_other_line_stays(
    run_install: RunInstall, fake_cms: Path
) -> None:
    path = codex_config()
    path.parent.mkdir(parents=True)
    path.write_text(FOREIGN_TOML, encoding="utf-8")
    done = run_install("--agent", "codex", "--cms", str(fake_cms), "--mcp")
    assert done.returncode == 0, done.stderr
    text = path.read_text(encoding="utf-8")
    start = text.index("[mcp_servers.cms]\ncommand")  # beside the other servers' tables
    end = text.index("\n\n", start) + 2
    assert text[:start] + text[end:] == FOREIGN_TOML
    data = tomllib.loads(text)
    assert data["mcp_servers"]["cms"] == {
        "command": str(fake_cms),
        "args": ["mcp"],
        "env": {"CMS_HOME": os.environ["CMS_HOME"]},
    }
    assert data["mcp_servers"]["docs"]["env"] == {"TOKEN_ENV": "X"}
    assert "[mcp_servers.cms]" in data["profiles"]["fast"]["notes"]
    again = run_install("--agent", "codex", "--cms", str(fake_cms), "--mcp")
    assert again.returncode == 0, again.stderr
    assert path.read_text(encoding="utf-8") == text
    removed = run_install("--agent", "codex", "--uninstall", "--mcp")
    assert removed.returncode == 0, removed.stderr
    assert path.read_text(encoding="utf-8") == FOREIGN_TOML


def test_codex_table_in_the_middle_is_updated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    text = (
        'model = "o4"\n\n[mcp_servers.cms]\ncommand = "/old/bin/cms"\nargs = ["mcp"]\n\n'
        '[mcp_servers.cms.env]\nCMS_HOME = "/old/home"\n\n[profiles.a]\nmodel = "x"\n'
    )
    entry = {"command": "/new/bin/cms", "args": ["mcp"]}
    after = edit_codex_mcp(path, text, entry, is_our_mcp_entry)
    assert after == (
        'model = "o4"\n\n[mcp_servers.cms]\ncommand = "/new/bin/cms"\nargs = ["mcp"]\n\n'
        '[profiles.a]\nmodel = "x"\n'
    )
    removed = edit_codex_mcp(path, after, None, is_our_mcp_entry)
    assert removed == 'model = "o4"\n\n[profiles.a]\nmodel = "x"\n'


def test_codex_paths_with_quotes_and_unicode_round_trip(tmp_path: Path) -> None:
    entry = {"command": '/opt/my "tools" é\\bin/cms', "args": ["mcp"], "env": {"CMS_HOME": "/d é"}}
    after = edit_codex_mcp(tmp_path / "c.toml", None, entry, is_our_mcp_entry)
    assert tomllib.loads(after)["mcp_servers"]["cms"] == entry


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers.cms.command = "/x/cms"\nmcp_servers.cms.args = ["mcp"]\n',
        '[mcp_servers]\ncms = { command = "/x/cms", args = ["mcp"] }\n',
    ],
)
def test_codex_inline_definitions_of_ours_become_our_table_and_go_on_removal(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "c.toml"
    entry = {"command": "/y/cms", "args": ["mcp"]}
    after = edit_codex_mcp(path, text, entry, is_our_mcp_entry)
    assert tomllib.loads(after)["mcp_servers"]["cms"] == entry
    removed = edit_codex_mcp(path, after, None, is_our_mcp_entry)
    assert "cms" not in tomllib.loads(removed).get("mcp_servers", {})


def test_codex_invalid_toml_and_foreign_cms_server_are_left_untouched(
    run_install: RunInstall, fake_cms: Path
) -> None:
    path = codex_config()
    path.parent.mkdir(parents=True)
    for text, message in (
        ("model = \n", "not valid TOML"),
        ('[mcp_servers.cms]\ncommand = "node"\nargs = ["server.js"]\n', "not ours"),
    ):
        path.write_text(text, encoding="utf-8")
        done = run_install("--agent", "codex", "--cms", str(fake_cms), "--mcp")
        assert done.returncode == 1
        assert message in done.stderr
        assert path.read_text(encoding="utf-8") == text


def test_codex_project_scope_uses_the_projects_codex_config(
    run_install: RunInstall, fake_cms: Path, project_dir: Path
) -> None:
    done = run_install("--agent", "codex", "--cms", str(fake_cms), "--mcp", "--project")
    assert done.returncode == 0, done.stderr
    data = tomllib.loads((project_dir / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert data["mcp_servers"]["cms"]["args"] == ["mcp"]
    assert not codex_config().exists()
