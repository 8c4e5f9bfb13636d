"""The hook launcher: a `cms` script that starts the hooks without Python's `site` module.

`site` (the venv's site-packages, its .pth files) is about a quarter of a bare interpreter's
start, and a hook imports only the standard library and cms: the launcher runs the venv's
Python with -S and puts back the folders cms and its optional dependencies were imported from
when it was written. Written by `cms install` into the venv (libexec/cms-hook/cms), recognised
by its marker line, removed by the uninstall; anything else it finds it leaves alone.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

from cms.install.places import running_cms

MARKER = "# cms hook launcher: written by `cms install`, removed by `cms install --uninstall`"
SHEBANG_LIMIT = 120  # longer interpreter lines are cut by some kernels (127 bytes on older Linux)


def launcher_path(prefix: Path | None = None) -> Path:
    """Where the launcher of the venv at prefix (the running one by default) lives."""
    return (Path(sys.prefix) if prefix is None else prefix) / "libexec" / "cms-hook" / "cms"


def import_folders() -> list[str]:
    """The folders the launcher puts on sys.path: the one holding the cms package running now
    (an editable install's checkout too), then the venv's site-packages."""
    import cms

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(cms.__file__)))
    return list(dict.fromkeys([package_parent, sysconfig.get_path("purelib")]))


def launcher_source(python: str, folders: list[str]) -> str:
    """The launcher's text: a direct `#!python -S` line when the interpreter path allows one
    (no spaces, short enough), else a /bin/sh line that execs it (pip's own workaround)."""
    if " " not in python and len(python) <= SHEBANG_LIMIT:
        head = f"#!{python} -S\n"
    else:
        quoted = python.replace("'", "'\"'\"'")
        head = f"#!/bin/sh\n'''exec' '{quoted}' -S \"$0\" \"$@\"\n' '''\n"
    return (
        f"{head}{MARKER}\n"
        "import sys\n\n"
        f"sys.path += {folders!r}  # after the standard library, where site puts them\n"
        "from cms.entry import main\n\n"
        "sys.exit(main())\n"
    )


def is_launcher(path: Path) -> bool:
    """Whether path is a launcher written by cms (its marker line among the first three)."""
    try:
        with open(path, encoding="utf-8") as handle:
            head = [handle.readline() for _ in range(4)]
    except (OSError, UnicodeDecodeError):
        return False
    return MARKER + "\n" in head


def launcher_for(cms: Path) -> Path:
    """The program the hook commands run for the console script cms: the running venv's
    launcher when cms is this venv's own script (its interpreter and import folders are known
    here) and this is not Windows, else cms itself."""
    return cms if os.name == "nt" or cms != running_cms() else launcher_path()


def write_launcher(cms: Path) -> Path:
    """launcher_for(cms), the launcher written (or rewritten when it differs) first; cms itself
    when it cannot be written or a file not ours is in its place."""
    target = launcher_for(cms)
    if target == cms:
        return cms
    text = launcher_source(sys.executable, import_folders())
    try:
        if target.exists() and target.read_text(encoding="utf-8") == text:
            return target
        if os.path.lexists(target) and not is_launcher(target):
            return cms  # a file of someone else's: never overwritten
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".cms.{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.chmod(0o755)
        os.replace(temporary, target)
    except OSError:
        return cms
    return target


def remove_launcher(dry_run: bool = False) -> str | None:
    """Remove the running venv's launcher (only ours, and its folder when emptied); the line
    to print, or None when there is none."""
    target = launcher_path()
    if not is_launcher(target):
        return None
    if dry_run:
        return f"cms: would remove the hook launcher {target}"
    try:
        target.unlink()
        target.parent.rmdir()
    except OSError:
        pass  # a folder holding something else stays
    return f"cms: removed the hook launcher {target}"
