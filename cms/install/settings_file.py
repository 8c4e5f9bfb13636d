"""An agent's JSON settings file as cms install reads and writes it: strict loading, the file's
own formatting, unified diffs and atomic writes with a backup, planned before anything is written.

It knows nothing of hooks or MCP entries: callers pass the transform of the settings object.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cms.errors import InstallError


@dataclass(frozen=True)
class JsonStyle:
    """How a settings file is formatted, so rewriting it changes only what we change."""

    indent: Any = 2
    ensure_ascii: bool = False
    trailing_newline: bool = True


DEFAULT_STYLE = JsonStyle()


@dataclass
class Settings:
    """A loaded settings file: its object, its exact text (None when absent) and its style."""

    path: Path
    data: dict[str, Any]
    text: str | None
    style: JsonStyle = field(default=DEFAULT_STYLE)


def render_settings(data: Any, style: JsonStyle = DEFAULT_STYLE) -> str:
    """Stable JSON text: key order kept, the file's indent, a trailing newline by default."""
    text = json.dumps(data, indent=style.indent, ensure_ascii=style.ensure_ascii)
    return text + "\n" if style.trailing_newline else text


def detect_style(data: Any, text: str) -> JsonStyle:
    """The style that reproduces `text` exactly, else the default (indent 2, newline)."""
    for indent in (2, 4, "\t"):
        for ensure_ascii in (False, True):
            for newline in (True, False):
                style = JsonStyle(indent, ensure_ascii, newline)
                if render_settings(data, style) == text:
                    return style
    return DEFAULT_STYLE


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise InstallError(f"duplicate key {key!r}")
        result[key] = value
    return result


def load_settings(path: Path) -> Settings:
    """Read a settings file; a missing or blank file is an empty object.

    Raises InstallError (one line) for anything we could not rewrite without losing content:
    invalid JSON (comments, trailing commas), duplicate keys, a non-object top level, bad UTF-8.
    """
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except FileNotFoundError:
        return Settings(path, {}, None)
    except UnicodeDecodeError:
        raise InstallError(f"{path} is not UTF-8 text; left it untouched") from None
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror}") from None
    if not text.strip():
        return Settings(path, {}, text)
    try:
        data = json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}; "
            "comments and trailing commas are not allowed); left it untouched"
        ) from None
    except InstallError as exc:
        raise InstallError(f"{path} has a {exc}; left it untouched") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; left it untouched")
    return Settings(path, data, text, detect_style(data, text))


def _backup_path(target: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = target.with_name(f"{target.name}.bak-{stamp}")
    n = 1
    while candidate.exists():
        n += 1
        candidate = target.with_name(f"{target.name}.bak-{stamp}-{n}")
    return candidate


def _new_file_mode() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_settings_atomically(path: Path, text: str, expected: str | None) -> Path | None:
    """Replace the file with `text` atomically; returns the backup made, if any.

    `expected` is the content we read (None: the file did not exist); if the file changed since,
    nothing is written. Same content: nothing is written and no backup is made. A symlinked
    settings file is written through (the link stays). Temp file in the same folder, fsync,
    os.replace, then fsync of the folder.
    """
    target = Path(os.path.realpath(path))
    try:
        with open(target, encoding="utf-8", newline="") as handle:
            current: str | None = handle.read()
    except FileNotFoundError:
        current = None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path} again: {exc}") from None
    if current != expected:
        raise InstallError(f"{path} changed while cms was editing it; nothing written, run again")
    if current == text:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if current is not None:
        backup = _backup_path(target)
        shutil.copy2(target, backup)
    mode = (target.stat().st_mode & 0o7777) if current is not None else _new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if os.name != "nt":
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return backup


def settings_diff(path: Path, before: str | None, after: str | None) -> str:
    """A unified diff of a settings file (empty when nothing changes; after None: deleted)."""
    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True),
        (after or "").splitlines(keepends=True),
        fromfile=str(path) if before is not None else "/dev/null",
        tofile=str(path) if after is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


@dataclass
class Change:
    """The planned new text of one settings file."""

    settings: Settings
    after: str | None  # None: the file goes (an uninstall giving back "no file")

    @property
    def changed(self) -> bool:
        return self.after != self.settings.text


def plan_change(path: Path, transform: Callable[[dict[str, Any]], dict[str, Any]]) -> Change:
    """Load a settings file and compute its new text with `transform` (nothing is written)."""
    settings = load_settings(path)
    after = transform(settings.data)
    if after == settings.data and settings.text is not None:
        return Change(settings, settings.text)
    return Change(settings, render_settings(after, settings.style))


def apply_change(change: Change) -> Path | None:
    """Write a planned change (no-op when unchanged); returns the backup path, if any."""
    if not change.changed:
        return None
    if change.after is None:
        raise InstallError(f"{change.settings.path}: a deletion goes through apply_removal")
    return write_settings_atomically(change.settings.path, change.after, change.settings.text)
