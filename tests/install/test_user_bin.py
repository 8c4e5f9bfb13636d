"""`cms install` puts `cms` on PATH with a link in the user bin folder and `--uninstall` takes
out only a link that is ours; run in-process on a temporary home."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.install.conftest import FAKE_CMS, RunInstall, write_executable


def home() -> Path:
    return Path(os.environ["HOME"])


def local_link() -> Path:
    return home() / ".local" / "bin" / "cms"


def records() -> dict[str, object]:
    path = Path(os.environ["CMS_HOME"]) / "install-record.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_install_links_cms_into_local_bin_and_uninstall_removes_the_link(
    run_install: RunInstall, fake_cms: Path
) -> None:
    done = run_install("--cms", str(fake_cms))
    assert done.returncode == 0, done.stderr
    assert local_link().is_symlink() and os.readlink(local_link()) == str(fake_cms)
    assert f"cms: linked ~/.local/bin/cms -> {fake_cms}" in done.stdout

    again = run_install("--cms", str(fake_cms))
    assert again.returncode == 0, again.stderr
    assert f"cms: ~/.local/bin/cms -> {fake_cms}" in again.stdout

    removed = run_install("--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert "cms: removed the link ~/.local/bin/cms" in removed.stdout
    assert not os.path.lexists(local_link())
    assert records() == {}


def test_the_last_lines_say_the_link_is_on_path_when_it_is(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    path = os.pathsep.join([str(home() / ".local" / "bin"), str(fake_bin), "/usr/bin", "/bin"])
    done = run_install("--cms", str(fake_cms), env={"PATH": path})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == [
        f"cms: linked ~/.local/bin/cms -> {fake_cms}",
        "next: start a new Claude Code session; `cms show` to look",
    ]
    again = run_install("--cms", str(fake_cms), env={"PATH": path})
    assert "cms: `cms` on PATH is ~/.local/bin/cms" in again.stdout


def test_a_cms_of_someone_else_in_local_bin_is_left_alone(
    run_install: RunInstall, fake_cms: Path, tmp_path: Path
) -> None:
    theirs = write_executable(local_link(), "#!/bin/sh\necho theirs\n")
    done = run_install("--cms", str(fake_cms))
    assert done.returncode == 0, done.stderr
    assert "cms: ~/.local/bin/cms exists and is not ours" in done.stdout
    assert run_install("--uninstall").returncode == 0
    assert theirs.read_text(encoding="utf-8") == "#!/bin/sh\necho theirs\n"

    theirs.unlink()
    other = write_executable(tmp_path / "pipx" / "cms", FAKE_CMS)
    local_link().symlink_to(other)  # a link the user made (say pipx's): not recorded, not ours
    assert run_install("--cms", str(fake_cms)).returncode == 0
    assert run_install("--uninstall").returncode == 0
    assert os.readlink(local_link()) == str(other)


def test_no_link_when_path_already_finds_this_cms(run_install: RunInstall, fake_bin: Path) -> None:
    cms = write_executable(fake_bin / "cms", FAKE_CMS)
    done = run_install("--skip-venv")
    assert done.returncode == 0, done.stderr
    assert f"cms: `cms` on PATH is {cms}" in done.stdout
    assert not os.path.lexists(local_link())


def test_the_link_goes_to_home_bin_when_only_that_folder_is_on_path(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    path = os.pathsep.join([str(home() / "bin"), str(fake_bin), "/usr/bin", "/bin"])
    assert run_install("--cms", str(fake_cms), env={"PATH": path}).returncode == 0
    assert os.readlink(home() / "bin" / "cms") == str(fake_cms)
    assert not os.path.lexists(local_link())
    assert run_install("--uninstall", env={"PATH": path}).returncode == 0
    assert not os.path.lexists(home() / "bin" / "cms")


def test_the_link_stays_while_another_agent_still_has_our_hooks(
    run_install: RunInstall, fake_cms: Path
) -> None:
    assert run_install("--cms", str(fake_cms)).returncode == 0
    assert run_install("--cms", str(fake_cms), "--agent", "codex").returncode == 0
    dry = run_install("--uninstall", "--dry-run")
    assert "would remove the link" not in dry.stdout
    done = run_install("--uninstall")
    assert "the `cms` link stays" in done.stdout
    assert local_link().is_symlink()
    last = run_install("--uninstall", "--agent", "codex")
    assert "cms: removed the link ~/.local/bin/cms" in last.stdout
    assert not os.path.lexists(local_link())


def test_dry_run_says_it_would_link_and_makes_nothing(
    run_install: RunInstall, fake_cms: Path
) -> None:
    done = run_install("--cms", str(fake_cms), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"cms: would link ~/.local/bin/cms -> {fake_cms}" in done.stdout
    assert not (home() / ".local").exists()


def test_a_cms_found_first_on_path_is_named_after_the_link(
    run_install: RunInstall, fake_cms: Path, fake_bin: Path
) -> None:
    other = write_executable(fake_bin / "cms", FAKE_CMS)
    path = os.pathsep.join([str(fake_bin), str(home() / ".local" / "bin"), "/usr/bin", "/bin"])
    done = run_install("--cms", str(fake_cms), env={"PATH": path})
    assert done.returncode == 0, done.stderr
    assert f"; but `cms` on PATH runs {other}, found first" in done.stdout
    assert os.readlink(local_link()) == str(fake_cms)
