"""`python install.py`, the standard-library bootstrap, run for real: it hands its arguments to
`<cms> install` and makes no venv for --dry-run, --status or bad options (no pip here)."""

from __future__ import annotations

from pathlib import Path

from tests.install.conftest import INSTALL_PY, RunInstall


def test_install_py_stays_a_short_bootstrap() -> None:
    text = INSTALL_PY.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    assert "import cms" not in text and "from cms" not in text


def test_cms_option_runs_that_cms_install_with_the_same_arguments(
    run_install_py: RunInstall, fake_cms: Path
) -> None:
    done = run_install_py("--cms", str(fake_cms), "--agent", "codex", "--mcp", "--editable")
    assert done.returncode == 0, done.stderr
    calls = (fake_cms.parent / "calls.log").read_text(encoding="utf-8").splitlines()
    assert [call.split("|", 1)[1] for call in calls] == [
        f"install --cms {fake_cms} --agent codex --mcp"
    ]


def test_dry_run_without_a_venv_says_what_it_would_do_and_makes_nothing(
    run_install_py: RunInstall, tmp_path: Path
) -> None:
    done = run_install_py("--venv", str(tmp_path / "v"), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"cms: would create {tmp_path / 'v'}, pip install ")
    assert not (tmp_path / "v").exists()


def test_status_without_an_install_says_so(run_install_py: RunInstall, tmp_path: Path) -> None:
    done = run_install_py("--venv", str(tmp_path / "v"), "--status")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("cms: not installed (no ")
    assert not (tmp_path / "v").exists()


def test_purge_without_uninstall_stops_before_any_venv(
    run_install_py: RunInstall, tmp_path: Path
) -> None:
    done = run_install_py("--venv", str(tmp_path / "v"), "--purge")
    assert done.returncode == 2
    assert "--purge only goes with --uninstall" in done.stderr
    assert not (tmp_path / "v").exists()
