"""The `cms` link in the user's bin folder (~/.local/bin, or ~/bin when only that one is on
PATH), so the README's commands work in a shell after install.

Makes, updates and removes only a link it recorded as its own (in the install record); a file
or a link of someone else's stays.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from cms.install.places import display_path
from cms.install.records import load_records, save_records

LINK_KEY = "link:"  # install-record key prefix of our links: "link:<path of the link>"


def _on_path(folder: Path) -> bool:
    entries = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    return os.path.realpath(folder) in {os.path.realpath(os.path.expanduser(p)) for p in entries}


def user_bin_folder() -> Path:
    """~/.local/bin, or ~/bin when that one is on PATH and ~/.local/bin is not."""
    home = Path.home()
    local, plain = home / ".local" / "bin", home / "bin"
    return plain if _on_path(plain) and not _on_path(local) else local


def _recorded_target(home: Path, link: Path) -> str | None:
    entry = load_records(home).get(LINK_KEY + str(link))
    target = entry.get("target") if entry else None
    return target if isinstance(target, str) else None


def _is_ours(home: Path, link: Path) -> bool:
    """A symlink still pointing where we pointed it."""
    target = _recorded_target(home, link)
    return link.is_symlink() and target is not None and os.readlink(link) == target


def _set_record(home: Path, link: Path, target: str | None) -> None:
    records = load_records(home)
    if target is None:
        records.pop(LINK_KEY + str(link), None)
    else:
        records[LINK_KEY + str(link)] = {"target": target}
    save_records(home, records)


def _path_hint(folder: Path) -> str:
    if _on_path(folder):
        found = shutil.which("cms")
        if found and os.path.realpath(found) != os.path.realpath(folder / "cms"):
            return f"; but `cms` on PATH runs {found}, found first"
        return ""
    return f'; {display_path(folder)} is not on PATH: add it, e.g. export PATH="{folder}:$PATH"'


def link_cms(home: Path, cms: Path, dry_run: bool = False) -> str:
    """Make `cms` on PATH run `cms`: nothing when PATH already finds it, else our link in the
    user bin folder (made, or updated when it is ours). The line to print."""
    if os.name == "nt":
        return f"cms: the cms command is {cms}"
    folder = user_bin_folder()
    link = folder / "cms"
    found = shutil.which("cms")
    if found and os.path.realpath(found) == os.path.realpath(cms):
        return f"cms: `cms` on PATH is {display_path(Path(found))}"
    if link.is_symlink() and os.readlink(link) == str(cms):
        return f"cms: {display_path(link)} -> {cms}{_path_hint(folder)}"
    if os.path.lexists(link) and not _is_ours(home, link):
        return f"cms: {display_path(link)} exists and is not ours; the cms command is {cms}"
    if dry_run:
        return f"cms: would link {display_path(link)} -> {cms}"
    folder.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(link):
        link.unlink()
    link.symlink_to(cms)
    _set_record(home, link, str(cms))
    return f"cms: linked {display_path(link)} -> {cms}{_path_hint(folder)}"


def unlink_cms(home: Path, dry_run: bool = False) -> str | None:
    """Remove our link (only ours); the line to print, or None when there is none."""
    for folder in dict.fromkeys((user_bin_folder(), Path.home() / ".local" / "bin")):
        link = folder / "cms"
        if not _is_ours(home, link):
            continue
        if dry_run:
            return f"cms: would remove the link {display_path(link)}"
        link.unlink()
        _set_record(home, link, None)
        return f"cms: removed the link {display_path(link)}"
    return None
