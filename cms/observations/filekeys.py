"""The keys by which stored memory names files and commands, and the file notes that map them
to items: `path:<relative path>`, `name:<file name>` (a file named without its folder),
`ext:<.suffix>` (a rule about a kind of file), `cmd:<program> <subcommand>` and `cmd:<program>`.

Light on purpose (the PreToolUse hook reads notes through it): standard library only, no store;
building the notes from the store is filenotes.py's.
"""

from __future__ import annotations

import os

from cms import jsonio, paths
from cms.lazypattern import LazyPattern

NOTES_NAME = "file-notes.json"
NOTES_VERSION = 1
_PATH = LazyPattern(
    r"(?<![\w/.@-])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,5})(?![\w/])"
)
_EXT_RULE = LazyPattern(
    r"\*\.([A-Za-z][A-Za-z0-9]{0,5})\b|(?<![\w.])\.([A-Za-z][A-Za-z0-9]{0,5}) files\b"
)
_NOT_FILES = frozenset({"com", "org", "net", "io", "dev", "ai", "js", "md"})  # Node.js, e.g.
_CD = LazyPattern(r"cd\s+\S+\s*(?:&&|;)\s*", hints=("cd",))


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
    found = (m.group(1) or m.group(2) for m in _EXT_RULE.finditer(text))
    return list(dict.fromkeys(f"ext:.{suffix}".lower() for suffix in found))


def program_of(command: str) -> str | None:
    """The program a shell command runs: "pytest -q" -> "pytest", "`make lint`" -> "make";
    env assignments, a leading `$ ` prompt and `cd DIR &&` are skipped."""
    text = command.strip().strip("`").removeprefix("$ ").strip()
    while (cd := _CD.match(text)) is not None:
        text = text[cd.end() :]
    for word in text.split():
        if "=" in word and not word.startswith("="):
            continue
        name = os.path.basename(word.strip("`"))
        return name if is_program_name(name) and name.islower() else None
    return None


def command_key(command: str) -> str | None:
    """The key of one simple command: its program and, when the next word is a plain word (not a
    flag, path, assignment or value), that subcommand: "make deploy ENV=prod" -> "cmd:make
    deploy", "pytest -q tests" -> "cmd:pytest", "alembic upgrade head" -> "cmd:alembic upgrade"."""
    program = program_of(command)
    if program is None or program == "cd":
        return None
    words = command.strip().strip("`").removeprefix("$ ").split()
    after = words[[os.path.basename(w.strip("`")) for w in words].index(program) + 1 :]
    sub = after[0].strip("`") if after else ""
    plain = is_program_name(sub) and sub.isalpha() and sub.islower()
    return f"cmd:{program} {sub}" if plain else f"cmd:{program}"


def command_keys(text: str) -> list[str]:
    """The commands a text names, as keys: each simple command (split at &&, ||, ; and |) of a
    line, of a `quoted` span, after a "$ " prompt or after a colon ("Deploy with: make deploy
    ENV=prod")."""
    spans = [*text.splitlines(), *text.split("`")[1::2]]
    for line in text.splitlines():
        spans += [line.split("$ ", 1)[1]] if "$ " in line else []
        spans += [line.rsplit(": ", 1)[1]] if ": " in line else []
    keys: list[str] = []
    for span in spans:
        for part in span.replace("&&", ";").replace("||", ";").replace("|", ";").split(";"):
            key = command_key(part)
            keys += [key] if key else []
    return list(dict.fromkeys(keys))


def tool_command_keys(command: str) -> list[str]:
    """The keys a shell tool's command answers to: each of its commands with its subcommand,
    then by its program alone (a note about `pytest` answers `pytest tests/x.py`)."""
    keys = command_keys(command)
    return list(dict.fromkeys([*keys, *(" ".join(k.split()[:1]) for k in keys)]))


def is_program_name(name: str) -> bool:
    """An ASCII letter, then letters, digits, _ . + or - (what re's ^[A-Za-z][\\w.+-]*$ takes,
    without importing re on the PreToolUse hook)."""
    name = name.removesuffix("\n")  # $ also matches before a final newline
    return (
        name[:1].isascii() and name[:1].isalpha() and all(c.isalnum() or c in "_.+-" for c in name)
    )


def file_keys(path: str, root: str) -> list[str]:
    """The keys a tool's file (absolute, or relative to root) answers to: its absolute path, its
    path relative to the project root and each tail of that with a folder, its name and its
    suffix."""
    full = os.path.normpath(os.path.join(root, path))  # an absolute path stays itself
    relative = os.path.relpath(full, root)
    keys = [f"path:{full.replace(os.sep, '/')}"]
    if relative != ".." and not relative.startswith(".." + os.sep):
        parts = relative.split(os.sep)  # "cms/x/y.py", then "x/y.py": notes name it from a folder
        keys += [f"path:{'/'.join(parts[i:])}" for i in range(len(parts) - 1)]
    keys.append(f"name:{os.path.basename(full)}")
    suffix = os.path.splitext(full)[1].lower()
    return [*keys, f"ext:{suffix}"] if suffix else keys


def notes_path(project_id: str) -> str:
    return os.path.join(paths.project_dir(project_id), NOTES_NAME)


def read_notes(
    project_id: str,
) -> tuple[dict[str, list[str]], dict[str, list[object]], dict[str, list[object]]] | None:
    """(keys -> item ids, item id -> [line, aliases, branch], item id -> the states of its files
    when stored) of a project, or None when it has no notes or they are unreadable."""
    try:
        with open(notes_path(project_id), encoding="utf-8") as handle:
            data = jsonio.loads(handle.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != NOTES_VERSION:
        return None
    keys, items = data.get("keys"), data.get("items")
    if not isinstance(keys, dict) or not isinstance(items, dict):
        return None
    marks = data.get("marks")
    return keys, items, marks if isinstance(marks, dict) else {}
