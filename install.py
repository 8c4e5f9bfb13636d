#!/usr/bin/env python3
"""Bootstrap cms (standard library only): find Python 3.11+, make the virtual environment beside
this file, pip-install this checkout into it, then run `<venv>/bin/cms install` with the same
arguments. Everything about hooks, settings files and PATH is `cms install`'s (cms/install/);
this file never reads or writes an agent's settings.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MINIMUM = (3, 11)
PYTHONS = ("python3.13", "python3.12", "python3.11")
NOT_SOURCE = {".git", ".venv", "build", "dist", "__pycache__", ".e2e-cache", ".mypy_cache"}
NOT_SOURCE |= {".ruff_cache", ".pytest_cache", ".hypothesis", "node_modules"}
PIP_FOR_SCRIPTS = "pip>=25.0"  # the first pip whose console scripts do not import re
BOOTSTRAP_ONLY = ("--editable",)  # pip's business; every other argument goes to `cms install`


class BootstrapError(Exception):
    """A step of the bootstrap failed (one-line message)."""


def find_python() -> str | None:
    """A Python 3.11+ on PATH, for when this file was started by an older one."""
    for name in PYTHONS:
        found = shutil.which(name)
        if found:
            return found
    return None


def venv_bin(venv: Path, name: str) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / f"{name}.exe"
    return venv / "bin" / name


def not_source(folder: str, names: list[str]) -> set[str]:
    """copytree filter: caches, build output and virtual environments are not package source."""
    return {
        name
        for name in names
        if name in NOT_SOURCE
        or name.endswith(".egg-info")
        or (Path(folder, name) / "pyvenv.cfg").exists()
    }


def run_step(command: list[str], label: str) -> None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8", errors="replace"
        )
    except OSError as exc:
        raise BootstrapError(f"{label} could not start: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
        sys.stderr.write("\n".join(tail) + "\n")
        raise BootstrapError(f"{label} failed (exit code {done.returncode}); settings untouched")


def create_venv(venv: Path, editable: bool, extras: str) -> Path:
    """Create (or reuse) the virtual environment and pip-install this checkout; its cms."""
    python = venv_bin(venv, "python")
    if not python.exists():
        if venv.exists() and any(venv.iterdir()) and not (venv / "pyvenv.cfg").exists():
            raise BootstrapError(f"{venv} exists, is not empty and is not a virtual environment")
        print(f"cms: creating the virtual environment {venv}")
        run_step([os.path.realpath(sys.executable), "-m", "venv", str(venv)], "python -m venv")
    print(f"cms: installing {HERE} into {venv} (pip; this can take a minute)")
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    try:  # pip before 25.0 writes a console script that imports re: ~5 ms on every hook
        run_step([*command, PIP_FOR_SCRIPTS], "pip upgrade")
    except BootstrapError as exc:
        print(f"cms: kept the venv's pip ({exc}); hooks start a few ms slower with it")
    if editable:
        run_step([*command, "-e", f"{HERE}{extras}"], "pip install")
    else:  # build from a clean copy: an in-tree build/ folder can carry stale modules
        with tempfile.TemporaryDirectory(prefix="cms-build-") as scratch:
            source = Path(scratch) / "cms-source"
            shutil.copytree(HERE, source, ignore=not_source)
            run_step([*command, "--upgrade", f"{source}{extras}"], "pip install")
    cms = venv_bin(venv, "cms")
    if not cms.exists():
        raise BootstrapError(f"pip finished but {cms} does not exist")
    return cms


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python install.py",
        allow_abbrev=False,
        description="Install cms into a virtual environment, then run its `cms install` with "
        "these arguments (hooks for Claude Code or Codex, `cms` on PATH).",
        epilog="Every other option (--agent, --project, --mcp, --status, --uninstall, --purge, "
        "--dry-run) goes to `cms install`; see `cms install --help` and docs/install.md.",
    )
    parser.add_argument("--venv", default=str(HERE / ".venv"), help="default: .venv here")
    parser.add_argument("--editable", action="store_true", help="pip install -e (development)")
    parser.add_argument("--semantic", action="store_true", help="also the semantic extra")
    parser.add_argument("--skip-venv", action="store_true", help="run the `cms` on PATH")
    parser.add_argument("--cms", metavar="PATH", help="run this cms (no venv, no pip)")
    for flag in ("--status", "--uninstall", "--purge", "--dry-run"):
        parser.add_argument(flag, action="store_true", help=argparse.SUPPRESS)
    return parser


def installed_cms(args: argparse.Namespace, venv: Path) -> Path | None:
    """The cms to run without pip: --cms, the `cms` on PATH with --skip-venv, else the venv's
    (or, for --status and --uninstall, the `cms` on PATH)."""
    if args.cms:
        return Path(os.path.abspath(os.path.expanduser(args.cms)))
    cms = venv_bin(venv, "cms")
    if not args.skip_venv and cms.exists():
        return cms
    found = shutil.which("cms") if args.skip_venv or args.status or args.uninstall else None
    return Path(found) if found else None


def main(argv: list[str]) -> int:
    parser = build_parser()
    args, _ = parser.parse_known_args(argv)
    if args.purge and not args.uninstall:
        parser.error("--purge only goes with --uninstall")
    venv = Path(os.path.abspath(os.path.expanduser(args.venv)))
    if not (args.cms or args.skip_venv or args.status or args.uninstall or args.dry_run):
        cms: Path | None = create_venv(venv, args.editable, "[semantic]" if args.semantic else "")
    else:
        cms = installed_cms(args, venv)
    if cms is None and args.dry_run and not args.skip_venv:
        print(f"cms: would create {venv}, pip install {HERE} into it, then run `cms install`")
        return 0
    if cms is None and args.status:
        print(f"cms: not installed (no {venv_bin(venv, 'cms')} and no `cms` on PATH)")
        return 0
    if cms is None:
        print("cms: error: no installed cms to run; `python install.py` makes one", file=sys.stderr)
        return 1
    sys.stdout.flush()
    forwarded = [arg for arg in argv if arg not in BOOTSTRAP_ONLY]
    return subprocess.run([str(cms), "install", *forwarded]).returncode


if __name__ == "__main__":
    if sys.version_info < MINIMUM:  # an older python may start this file
        other = find_python()
        if other is None:
            sys.exit("cms: needs Python 3.11 or newer; none found on PATH (python3.11 and up)")
        os.execv(other, [other, __file__, *sys.argv[1:]])
    try:
        sys.exit(main(sys.argv[1:]))
    except BootstrapError as exc:
        sys.exit(f"cms: error: {exc}")
    except KeyboardInterrupt:
        sys.exit("cms: interrupted")
