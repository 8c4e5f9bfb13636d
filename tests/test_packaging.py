"""The wheel: every cms package is in it, and the prompts are built in from the top-level prompts/
folder (their one copy), where an installed cms finds them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from setuptools import find_packages

from cms.providers.prompts import PROMPT_NAMES

REPO = Path(__file__).resolve().parents[1]


def setuptools_config() -> dict[str, object]:
    with (REPO / "pyproject.toml").open("rb") as handle:
        config: dict[str, object] = tomllib.load(handle)["tool"]["setuptools"]
    return config


def test_every_cms_package_is_listed_and_the_prompts_come_from_the_top_level() -> None:
    config = setuptools_config()
    listed = config["packages"]
    assert isinstance(listed, list)
    missing = set(find_packages(str(REPO), include=["cms*"])) - set(listed)
    assert not missing, f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml"
    assert "cms.prompts" in listed
    assert config["package-dir"] == {"cms.prompts": "prompts"}
    assert config["package-data"] == {
        "cms": ["py.typed"],
        "cms.prompts": ["*.md"],
        "cms.language": ["model/*"],
    }


def can_build_here() -> bool:
    """Whether this interpreter's setuptools builds wheels itself (>= 70.1, or >= 68 with the
    wheel package); otherwise pip builds in an isolated environment from the package index."""
    try:
        major, minor = (int(x) for x in version("setuptools").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    try:
        version("wheel")
        has_wheel = True
    except PackageNotFoundError:
        has_wheel = False
    return (major, minor) >= (70, 1) or ((major, minor) >= (68, 0) and has_wheel)


def copy_sources(tmp_path: Path) -> Path:
    """What a clone holds that the build reads (pip builds in the tree it is given)."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "cms", src / "cms", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "prompts", src / "prompts")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, src / name)
    return src


def pip(*args: str, python: Path | None = None) -> None:
    """Run pip quietly, for this interpreter or (`python`) another environment."""
    target = ["--python", str(python)] if python is not None else []
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--quiet", *target, *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def throwaway_venv(tmp_path: Path) -> Path:
    """A new venv without pip (this interpreter's pip installs into it); its python."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv / "bin" / "python"


def read_prompt_with(python: Path, cwd: Path, name: str) -> tuple[Path, str, str]:
    """(cms.__file__, prompt_source, load_prompt) of prompt `name` as that python sees them."""
    script = (
        "import cms\n"
        "from cms.providers.prompts import load_prompt, prompt_source\n"
        f"print(cms.__file__); print(prompt_source({name!r})); print(load_prompt({name!r}), end='')"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, env=env, cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    where, source, text = done.stdout.split("\n", 2)
    return Path(where), source, text


@pytest.mark.slow
def test_the_wheel_carries_the_prompts_and_an_installed_cms_reads_them(tmp_path: Path) -> None:
    isolation = ["--no-build-isolation"] if can_build_here() else []
    dist = tmp_path / "dist"
    pip("wheel", "--no-deps", *isolation, "-w", str(dist), str(copy_sources(tmp_path)))
    (wheel,) = dist.glob("cms-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"cms/prompts/{name}.md" for name in PROMPT_NAMES} <= names
    assert {"cms/py.typed", "cms/providers/local/__init__.py", "cms/mcp_server/server.py"} <= names
    assert {"cms/language/model/vectors.bin", "cms/language/model/vocab.txt"} <= names
    assert not [n for n in names if n.startswith("prompts/")]  # no top-level prompts package

    python = throwaway_venv(tmp_path)
    pip("install", "--no-deps", "--no-index", str(wheel), python=python)
    where, source, text = read_prompt_with(python, tmp_path, "update")
    assert where.is_relative_to(tmp_path / "venv")
    assert source == "package:update.md"
    assert text == (REPO / "prompts" / "update.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_editable_install_runs_the_prompts_of_its_clone(tmp_path: Path) -> None:
    src = copy_sources(tmp_path)
    python = throwaway_venv(tmp_path)
    isolation = ["--no-build-isolation"] if can_build_here() else []
    pip("install", "--no-deps", *isolation, "--editable", str(src), python=python)
    (src / "prompts" / "search.md").write_text("edited in the clone", encoding="utf-8")
    where, source, text = read_prompt_with(python, tmp_path, "search")
    assert where == src / "cms" / "__init__.py"
    assert (source, text) == (str(src / "prompts" / "search.md"), "edited in the clone")
