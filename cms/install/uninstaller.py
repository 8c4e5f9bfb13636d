"""`cms install --uninstall`: exactly our entries out of one agent's settings (the original
bytes back when nothing else changed), with --mcp (or when our hooks called its tools) our MCP server, our `cms` link, --purge the data.

Never removes an entry, a link or a folder that is not ours; refusals are InstallError.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from cms.errors import InstallError
from cms.install.hook_entries import installed_hooks, pinned_home_of, remove_entries
from cms.install.launcher import remove_launcher
from cms.install.mcp_entries import plan_mcp_change, registered_mcp
from cms.install.options import InstallOptions
from cms.install.places import AGENTS, data_home, display_path, mcp_config_path, settings_path
from cms.install.records import apply_removal, plan_removal
from cms.install.settings_file import Change, load_settings, plan_change, settings_diff
from cms.install.user_bin import unlink_cms

EXIT_OK = 0


def _safe_to_delete(folder: Path) -> bool:
    """Not the root, nor the home folder, the current folder, the folder holding the cms package
    (the checkout of an editable install) or this venv, nor a folder holding one of them."""
    real = Path(os.path.realpath(folder))
    package_parent = Path(__file__).resolve().parents[2]
    places = (Path.home(), Path.cwd(), package_parent, Path(sys.prefix))
    protected = [Path(os.path.realpath(p)) for p in places]
    return real != Path(real.anchor) and not any(real == p or real in p.parents for p in protected)


def _hooks_elsewhere(path: Path) -> bool:
    """Whether our hooks are in another agent's or scope's settings file than `path`."""
    for agent in AGENTS:
        for project in (False, True):
            other = settings_path(agent, project)
            if os.path.realpath(other) == os.path.realpath(path):
                continue
            try:
                if installed_hooks(load_settings(other).data):
                    return True
            except InstallError:
                continue
    return False


def _print_diff(path: Path, change: Change, none: str) -> None:
    diff = settings_diff(path, change.settings.text, change.after)
    print(diff if diff else f"cms: {none} {display_path(path)}\n", end="")


def _report(path: Path, change: Change, backup: Path | None, what: str) -> None:
    if change.changed and change.after is None:
        print(f"cms: removed {display_path(path)}: cms created it and nothing else changed")
    elif change.changed:
        note = f" (backup: {backup.name})" if backup else ""
        print(f"cms: removed our {what} from {display_path(path)}{note}")
    else:
        print(f"cms: no cms {what} in {display_path(path)}; unchanged")


def uninstall(options: InstallOptions) -> int:
    path = settings_path(options.agent, options.project)
    change = plan_change(path, remove_entries)
    home = pinned_home_of(installed_hooks(change.settings.data)) or data_home()
    change = plan_removal(home, change)
    mcp_path = mcp_config_path(options.agent, options.project)
    tools = any(
        h.get("type") == "mcp_tool"
        for hs in installed_hooks(change.settings.data).values()
        for h in hs
    )
    if tools and not options.mcp:  # our hook tools' server goes with them
        mcp_path = mcp_config_path(options.agent, False)
    mcp_change = None
    if options.mcp or tools:
        mcp_change = plan_removal(home, plan_mcp_change(options.agent, mcp_path, None))
    if options.dry_run:
        _print_diff(path, change, "no cms hooks in")
        if mcp_change is not None:
            _print_diff(mcp_path, mcp_change, "no cms MCP server in")
        if not _hooks_elsewhere(path):
            print(unlink_cms(home, dry_run=True) or "cms: no `cms` link of ours to remove")
            if line := remove_launcher(dry_run=True):
                print(line)
        if options.purge:
            print(f"cms: would delete the data folder {home}")
        return EXIT_OK
    _report(path, change, apply_removal(home, change), "hooks")
    if mcp_change is not None:
        _report(mcp_path, mcp_change, apply_removal(home, mcp_change), "MCP server")
    elif registered_mcp(options.agent, mcp_path):
        print(f"cms: the MCP server in {display_path(mcp_path)} stays; add --mcp to remove it too")
    if _hooks_elsewhere(path):
        print("cms: the `cms` link stays: cms hooks are still installed elsewhere")
    else:
        for line in (unlink_cms(home), remove_launcher()):
            if line:
                print(line)
    if options.purge:
        if not home.exists():
            print(f"cms: no data folder at {home}")
        elif not _safe_to_delete(home):
            raise InstallError(
                f"refusing to delete {home}: it holds your home, this folder or cms itself"
            )
        else:
            print(f"cms: deleting the data folder {home}")
            shutil.rmtree(home)
    return EXIT_OK
