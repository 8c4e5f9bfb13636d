"""The hook launcher runs the hooks with the venv's Python without its site module, finds cms
where it was found at install time (a folder with a space too, through /bin/sh), and is only
ever written over or removed when it is ours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cms.install import launcher
from cms.install.places import running_cms

pytestmark = pytest.mark.skipif(os.name == "nt", reason="the launcher is POSIX only")


def write(path: Path, python: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(launcher.launcher_source(python, launcher.import_folders()), encoding="utf-8")
    path.chmod(0o755)
    return path


def run_hook(program: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    payload = {"session_id": "s-launch", "cwd": str(tmp_path), "prompt": "hello there"}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(program), "hook", "UserPromptSubmit"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
    )


def test_the_launcher_runs_a_hook_without_the_site_module(tmp_path: Path) -> None:
    program = write(tmp_path / "libexec" / "cms", sys.executable)
    assert program.read_text(encoding="utf-8").startswith(f"#!{sys.executable} -S\n")
    done = run_hook(program, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" or isinstance(json.loads(done.stdout), dict)
    probe = program.read_text(encoding="utf-8").replace(
        "from cms.entry import main", "import cms; print(sys.flags.no_site, cms.__file__)"
    )
    (tmp_path / "probe").write_text(probe.replace("sys.exit(main())", ""), encoding="utf-8")
    (tmp_path / "probe").chmod(0o755)
    shown = subprocess.run([str(tmp_path / "probe")], capture_output=True, text=True, check=True)
    no_site, found = shown.stdout.split()
    assert no_site == "1" and Path(found).parent.name == "cms"


def test_an_interpreter_path_with_a_space_is_run_through_sh(tmp_path: Path) -> None:
    python = tmp_path / "py dir" / "python"
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    program = write(tmp_path / "libexec" / "cms", str(python))
    assert program.read_text(encoding="utf-8").startswith("#!/bin/sh\n")
    done = run_hook(program, tmp_path)
    assert done.returncode == 0, done.stderr


def test_only_the_running_venvs_own_console_script_gets_a_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    other = tmp_path / "elsewhere" / "cms"
    assert launcher.write_launcher(other) == other
    assert not launcher.launcher_path().exists()
    written = launcher.write_launcher(running_cms())
    assert written == launcher.launcher_path() and launcher.is_launcher(written)
    assert launcher.write_launcher(running_cms()) == written  # unchanged: not rewritten


def test_a_file_not_ours_is_never_overwritten_or_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    theirs = launcher.launcher_path()
    theirs.parent.mkdir(parents=True)
    theirs.write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    assert launcher.write_launcher(running_cms()) == running_cms()
    assert launcher.remove_launcher() is None
    assert theirs.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"


def test_the_uninstall_removes_our_launcher_and_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    written = launcher.write_launcher(running_cms())
    assert launcher.remove_launcher(dry_run=True) is not None and written.exists()
    assert launcher.remove_launcher() is not None
    assert not written.parent.exists()


def test_the_search_line_a_launched_hook_injects_names_the_venvs_console_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from cms.hooks import inject

    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "cms").write_text("#!/bin/sh\n", encoding="utf-8")
    monkeypatch.setattr(sys, "executable", str(venv_bin / "python"))
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "venv" / "libexec" / "cms-hook" / "cms")])
    monkeypatch.setattr(sys, "flags", SimpleNamespace(no_site=1))
    assert inject.cms_executable() == str(venv_bin / "cms")
