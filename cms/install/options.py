"""What a `cms install` run was asked to do (the command line's options as one value) and the
`cms` executable the hooks will call.

Only interprets options; it changes nothing.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from cms.errors import InstallError
from cms.install.places import absolute, running_cms, venv_cms


@dataclass(frozen=True)
class InstallOptions:
    agent: str = "claude"
    project: bool = False
    mcp: bool = False
    dry_run: bool = False
    purge: bool = False
    semantic: bool = False
    cms: str | None = None  # --cms PATH: hooks call this executable
    skip_venv: bool = False  # hooks call the `cms` found on PATH
    venv: str | None = None  # hooks call this venv's cms
    command_hooks: bool = False  # every hook a command, even where `mcp_tool` hooks would do


def resolve_cms(options: InstallOptions) -> Path:
    """The cms executable the hooks will call (absolute path, not yet required to exist):
    --cms, else the `cms` on PATH with --skip-venv, else --venv's, else the one running now."""
    if options.cms:
        return absolute(options.cms)
    if options.skip_venv:
        found = shutil.which("cms")
        if not found:
            raise InstallError("--skip-venv: no `cms` on PATH (use --cms PATH)")
        return absolute(found)
    if options.venv:
        return venv_cms(absolute(options.venv))
    return running_cms()
