"""The keys by which stored memory names files and commands, and the file notes that map them
to items: `path:<relative path>`, `name:<file name>` (a file named without its folder),
`ext:<.suffix>` (a rule about a kind of file) and `cmd:<program>`.

Light on purpose (the PreToolUse hook reads notes through it): standard library only, no store;
building the notes from the store is filenotes.py's.
"""

from __future__ import annotations

import json
import os
import re

from cms import paths

NOTES_NAME = "file-notes.json"
NOTES_VERSION = 1
_PATH = re.compile(
    r"(?<![\w/.@-])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,5})(?![\w/])"
)
_EXT_RULE = re.compile(
    r"\*\.([A-Za-z][A-Za-z0-9]{0,5})\b|(?<![\w.])\.([A-Za-z][A-Za-z0-9]{0,5}) files\b"
)
_NOT_FILES = frozenset({"com", "org", "net", "io", "dev", "ai", "js", "md"})  # Node.js, e.g.
_PROGRAM = re.compile(r"^[A-Za-z][\w.+-]*$")


def mention_keys(text: str) -> list[str]:
    """The files a text names, as keys: a path with a folder by that path, a bare file name by
    its name ("redact.py"; a name ending in a web suffix or .js/.md only with a folder)."""
    keys = []
    for found in _PATH.findall(text):
        path = found.removeprefix("./")
        if "/" in path:
            keys.append(f"path:{os.path.normpath(path).replace(os.sep, '/')}")
        elif path.rsplit(".", 1)[1].lower() not in _NOT_FILES:
            keys.append(f"name:{path}")
    return list(dict.fromkeys(keys))


def rule_keys(text: str) -> list[str]:
    """The kinds of file a rule is about ("*.py", ".tsx files") as ext: keys."""
    return list(dict.fromkeys(f"ext:.{a or b}".lower() for a, b in _EXT_RULE.findall(text)))


def program_of(command: str) -> str | None:
    """The program a shell command runs ("pytest -q" -> "pytest"; env assignments skipped)."""
    for word in command.split():
        if "=" in word and not word.startswith("="):
            continue
        name = os.path.basename(word)
        return name if _PROGRAM.match(name) else None
    return None


def file_keys(path: str, root: str) -> list[str]:
    """The keys a tool's file answers to: its path relative to the project root and each tail
    of it with a folder (absolute when outside the root), its name and its suffix."""
    full = os.path.normpath(os.path.join(root, path))
    relative = os.path.relpath(full, root)
    if relative.startswith(".."):
        keys = [f"path:{full}"]
    else:  # "cms/x/y.py", then "x/y.py": a note may name it from a subfolder
        parts = relative.split(os.sep)
        keys = [f"path:{'/'.join(parts[i:])}" for i in range(len(parts) - 1)]
    keys.append(f"name:{os.path.basename(full)}")
    suffix = os.path.splitext(full)[1].lower()
    return [*keys, f"ext:{suffix}"] if suffix else keys


def notes_path(project_id: str) -> str:
    return os.path.join(paths.project_dir(project_id), NOTES_NAME)


def read_notes(project_id: str) -> tuple[dict[str, list[str]], dict[str, list[object]]] | None:
    """(keys -> item ids, item id -> [line, aliases, branch]) of a project, or None when it has no
    notes or they are unreadable."""
    try:
        with open(notes_path(project_id), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != NOTES_VERSION:
        return None
    keys, items = data.get("keys"), data.get("items")
    if not isinstance(keys, dict) or not isinstance(items, dict):
        return None
    return keys, items
