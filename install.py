#!/usr/bin/env python3
"""Install, inspect and remove cms for Claude Code and Codex (standard library only).

Owns the virtual environment beside this file and our hook entries in the agents' settings files
(`~/.claude/settings.json`, `.claude/settings.json`, `~/.codex/hooks.json`), and with --mcp our
MCP server entry (`~/.claude.json`, `.mcp.json`, Codex's `config.toml`). It never touches an
entry that is not ours and never rewrites a settings file it cannot parse. Each file it changes is
recorded (the backup of its original bytes and a hash of what was written) in the data folder, so
--uninstall gives back the original bytes, or removes a file it created, when nothing else changed.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
AGENTS = ("claude", "codex")
AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex"}
# Our events in the order they are written. Codex 0.171.0 fires SessionEnd too (see
# docs/install.md), and Codex ignores event names it does not know, so it gets the same list.
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd", "PreCompact")
# First Claude Code version that knows each event (changelog). An unknown event name makes some
# versions reject the whole settings file, which silently drops every hook.
EVENT_SINCE: dict[str, tuple[int, int, int]] = {
    "SessionStart": (1, 0, 62),
    "UserPromptSubmit": (1, 0, 54),
    "Stop": (0, 0, 0),
    "SessionEnd": (1, 0, 85),
    "PreCompact": (1, 0, 48),
}
MATCHERS = {"SessionStart": "startup|resume|clear|compact"}
TIMEOUTS = {
    "SessionStart": 10,
    "UserPromptSubmit": 10,
    "Stop": 10,
    "SessionEnd": 10,
    "PreCompact": 10,
}
CMS_NAMES = ("cms", "cms.exe")
SELF_CHECK_SESSION = "cms-selfcheck"
EXIT_OK, EXIT_ERROR, EXIT_SELF_CHECK = 0, 1, 3

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEMVER = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class InstallError(Exception):
    """A settings file or the environment cannot be changed safely (one-line message).

    Mirrors cms.errors.InstallError; install.py runs before the package exists, so it cannot
    import it.
    """


# --------------------------------------------------------------------------- where things are


def data_home(env: dict[str, str] | None = None) -> Path:
    """The cms data folder: $CMS_HOME, else ~/.cms (same rule as cms.paths.cms_home)."""
    value = (os.environ if env is None else env).get("CMS_HOME")
    return Path(value).expanduser() if value else Path.home() / ".cms"


def settings_path(agent: str, project: bool, cwd: Path | None = None) -> Path:
    """The settings file our hooks go into for an agent and scope."""
    base = Path.cwd() if cwd is None else cwd
    if agent == "claude":
        return (base / ".claude" if project else Path.home() / ".claude") / "settings.json"
    if agent == "codex":
        if project:
            return base / ".codex" / "hooks.json"
        codex_home = os.environ.get("CODEX_HOME")
        return (Path(codex_home).expanduser() if codex_home else Path.home() / ".codex") / (
            "hooks.json"
        )
    raise InstallError(f"unknown agent {agent!r} (expected one of {', '.join(AGENTS)})")


def venv_cms(venv: Path) -> Path:
    """The `cms` console script inside a virtual environment."""
    if os.name == "nt":
        return venv / "Scripts" / "cms.exe"
    return venv / "bin" / "cms"


def venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def display_path(path: Path) -> str:
    """A path for messages, with the home folder shown as ~."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------- versions and events


def parse_version(text: str) -> tuple[int, int, int] | None:
    """The first x.y.z in `claude --version` output, e.g. "2.1.332 (Claude Code)"."""
    match = _SEMVER.search(text)
    if not match:
        return None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def claude_version(executable: str = "claude") -> tuple[int, int, int] | None:
    """The installed Claude Code version, or None when `claude` is absent or says nothing usable."""
    found = shutil.which(executable)
    if not found:
        return None
    try:
        done = subprocess.run(
            [found, "--version"],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=15,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_version(done.stdout) if done.returncode == 0 else None


def events_for(agent: str, version: tuple[int, int, int] | None) -> list[str]:
    """Our events the agent knows: version-gated for Claude Code, all of them otherwise."""
    if agent != "claude" or version is None:
        return list(EVENTS)
    return [event for event in EVENTS if version >= EVENT_SINCE[event]]


# --------------------------------------------------------------------------- our entries


def hook_command(cms: Path, event: str, cms_home: Path | None = None) -> str:
    """Shell-form command running `cms hook EVENT`, every word quoted for `sh -c`."""
    words = [shlex.quote(cms.as_posix() if os.name == "nt" else str(cms)), "hook", event]
    if cms_home is not None:
        words.insert(0, "CMS_HOME=" + shlex.quote(str(cms_home)))
    return " ".join(words)


def handler_argv(handler: Any) -> tuple[dict[str, str], list[str]] | None:
    """(env assignments, argv) of a command handler, or None when it is not a command handler."""
    if not isinstance(handler, dict) or handler.get("type") != "command":
        return None
    command = handler.get("command")
    if not isinstance(command, str):
        return None
    args = handler.get("args")
    if isinstance(args, list):  # exec form (Claude Code >= 2.1.139): no shell, no assignments
        if not all(isinstance(arg, str) for arg in args):
            return None
        return {}, [command, *args]
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    env: dict[str, str] = {}
    while words and _ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    return env, words


def is_our_handler(handler: Any, event: str) -> bool:
    """Our recognition rule (docs/install.md): a command handler whose argv, after leading
    NAME=value assignments, is `<dir>/cms hook EVENT ...` with EVENT the event it is filed under."""
    parsed = handler_argv(handler)
    if parsed is None:
        return False
    argv = parsed[1]
    if len(argv) < 3 or argv[1:3] != ["hook", event]:
        return False
    name = argv[0].replace("\\", "/").rsplit("/", 1)[-1]
    return name in CMS_NAMES


def desired_groups(
    cms: Path, events: list[str], cms_home: Path | None
) -> dict[str, dict[str, Any]]:
    """The matcher group we want under each event, in write order."""
    groups: dict[str, dict[str, Any]] = {}
    for event in events:
        group: dict[str, Any] = {}
        if event in MATCHERS:
            group["matcher"] = MATCHERS[event]
        group["hooks"] = [
            {
                "type": "command",
                "command": hook_command(cms, event, cms_home),
                "timeout": TIMEOUTS[event],
            }
        ]
        groups[event] = group
    return groups


def installed_hooks(data: Any) -> dict[str, list[dict[str, Any]]]:
    """Our handlers per event found in a settings object (malformed parts are skipped)."""
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list):
                found.setdefault(event, []).extend(h for h in handlers if is_our_handler(h, event))
    return {event: handlers for event, handlers in found.items() if handlers}


def _checked_hooks(data: dict[str, Any]) -> dict[str, Any]:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        raise InstallError('"hooks" is not a JSON object')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise InstallError(f'"hooks.{event}" is not a list')
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise InstallError(f'"hooks.{event}" holds a matcher group of an unexpected shape')
    return hooks


def _strip_ours(groups: list[Any], event: str, keep: tuple[int, int] | None = None) -> list[Any]:
    """The groups without our handlers (except the one at `keep`); groups we emptied are dropped."""
    result = []
    for gi, group in enumerate(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            result.append(group)
            continue
        handlers = group["hooks"]
        kept = [
            h for hi, h in enumerate(handlers) if (gi, hi) == keep or not is_our_handler(h, event)
        ]
        if len(kept) == len(handlers):
            result.append(group)
        elif kept:
            result.append({**group, "hooks": kept})
        # else: we emptied this group, so it goes
    return result


def _drop_ours(hooks: dict[str, Any], events: list[str] | None) -> bool:
    """Remove our handlers from `hooks` in place; drop events we emptied. True if it changed."""
    changed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list) or (events is not None and event not in events):
            continue
        remaining = _strip_ours(groups, event)
        if remaining == groups:
            continue
        changed = True
        if remaining:
            hooks[event] = remaining
        else:  # we emptied this event
            del hooks[event]
    return changed


def remove_entries(data: dict[str, Any], events: list[str] | None = None) -> dict[str, Any]:
    """A copy of `data` without our handlers (all events, or only `events`).

    A matcher group, an event list or the "hooks" object is removed only when our removal
    emptied it; containers that were already empty stay.
    """
    data = copy.deepcopy(data)
    hooks = data.get("hooks")
    if isinstance(hooks, dict) and _drop_ours(hooks, events) and not hooks:
        del data["hooks"]
    return data


def merge_entries(data: dict[str, Any], groups: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A copy of `data` holding exactly our `groups`; every foreign entry keeps its place.

    An existing handler of ours is updated in place (so a second run is a no-op); duplicates of
    ours and ours under events we no longer want are removed; a missing one is appended as a new
    matcher group at the end of its event.
    """
    data = copy.deepcopy(data)
    if not isinstance(data, dict):
        raise InstallError("the settings file does not hold a JSON object")
    if "hooks" not in data:
        data["hooks"] = {}
    hooks = _checked_hooks(data)
    _drop_ours(hooks, [event for event in hooks if event not in groups])
    for event, wanted in groups.items():
        existing = hooks.get(event)
        if not existing:
            hooks[event] = [*(existing or []), copy.deepcopy(wanted)]
            continue
        spot = next(
            (
                (gi, hi)
                for gi, group in enumerate(existing)
                for hi, handler in enumerate(group.get("hooks", []))
                if is_our_handler(handler, event)
            ),
            None,
        )
        if spot is None:
            existing.append(copy.deepcopy(wanted))
            continue
        gi, hi = spot
        group = existing[gi]
        ours_only = all(is_our_handler(h, event) for h in group["hooks"])
        if ours_only:  # the whole group is ours: make it exactly what we want
            existing[gi] = copy.deepcopy(wanted)
            hooks[event] = _strip_ours(existing, event, keep=(gi, 0))
        elif group.get("matcher") == wanted.get("matcher"):  # shared group, same matcher
            group["hooks"][hi] = copy.deepcopy(wanted["hooks"][0])
            hooks[event] = _strip_ours(existing, event, keep=(gi, hi))
        else:  # shared group with another matcher: move ours into a group of its own
            hooks[event] = [*_strip_ours(existing, event), copy.deepcopy(wanted)]
    return data


# --------------------------------------------------------------------------- settings files


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


# --------------------------------------------------------------------------- install records

RECORD_NAME = "install-record.json"


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _record_key(path: Path) -> str:
    return os.path.realpath(path)


def load_records(home: Path) -> dict[str, dict[str, Any]]:
    """The install records of a data folder (a missing or unreadable file: none)."""
    try:
        with open(home / RECORD_NAME, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def save_records(home: Path, records: dict[str, dict[str, Any]]) -> None:
    """Write the records (0600 in a 0700 folder); no records: no file."""
    target = home / RECORD_NAME
    if not records:
        target.unlink(missing_ok=True)
        return
    if not home.is_dir():
        home.mkdir(mode=0o700, parents=True)
        home.chmod(0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{RECORD_NAME}.", suffix=".tmp", dir=home)  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(records, handle, indent=2, sort_keys=True)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def record_change(home: Path, change: Change, backup: Path | None) -> None:
    """Remember how to give a file we just changed back: the backup of its original bytes (none:
    there was no file) and the hash of what we wrote. When the file still held what an earlier
    install wrote, the original stays the one from before that first install."""
    if not change.changed:
        return
    records = load_records(home)
    key = _record_key(change.settings.path)
    before = change.settings.text
    old = records.get(key)
    if old is not None and old.get("written") == _digest(before):
        entry = {**old, "written": _digest(change.after)}
    else:
        entry = {
            "original": None if backup is None else str(backup),
            "original_sha256": _digest(before),
            "written": _digest(change.after),
        }
    records[key] = entry
    save_records(home, records)


def forget_record(home: Path, path: Path) -> None:
    records = load_records(home)
    if records.pop(_record_key(path), None) is not None:
        save_records(home, records)


def original_of(home: Path, path: Path, current: str | None) -> tuple[bool, str | None]:
    """(True, the original text, or None when there was no file) when path still holds exactly
    what install wrote and its original can be read back unchanged; else (False, None)."""
    entry = load_records(home).get(_record_key(path))
    if entry is None or current is None or entry.get("written") != _digest(current):
        return False, None
    if entry.get("original_sha256") is None:
        return True, None
    try:
        with open(str(entry.get("original")), encoding="utf-8", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return False, None
    return (True, text) if _digest(text) == entry.get("original_sha256") else (False, None)


def delete_settings_file(path: Path, expected: str) -> None:
    """Delete a file install created, if it still holds `expected` (else nothing is done)."""
    target = Path(os.path.realpath(path))
    try:
        with open(target, encoding="utf-8", newline="") as handle:
            current = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path} again: {exc}") from None
    if current != expected:
        raise InstallError(f"{path} changed while cms was editing it; nothing written, run again")
    target.unlink()


def plan_removal(home: Path, change: Change) -> Change:
    """The removal of our entries, as the original bytes when our entries were the only change
    since install (after: None means delete the file install created)."""
    if not change.changed:
        return change
    exact, original = original_of(home, change.settings.path, change.settings.text)
    if exact:
        return Change(change.settings, original)
    entry = load_records(home).get(_record_key(change.settings.path))
    created = entry is not None and entry.get("original_sha256") is None
    if created and change.after is not None and change.after.strip() in ("", "{}"):
        return Change(change.settings, None)  # a file we created, now empty again: it goes
    return change


def apply_removal(home: Path, change: Change) -> Path | None:
    """Apply a planned removal (a file write or the deletion of a file we created); the backup
    made, if any. The file's install record goes either way."""
    if change.changed:
        if change.after is None:
            assert change.settings.text is not None
            delete_settings_file(change.settings.path, change.settings.text)
            forget_record(home, change.settings.path)
            return None
        backup = apply_change(change)
        forget_record(home, change.settings.path)
        return backup
    return None


# --------------------------------------------------------------------------- MCP server entries

MCP_NAME = "cms"
_TOML_HEADER = re.compile(r"^\s*\[\[?(?P<key>[^\[\]]+)\]\]?\s*(?:#.*)?$")


def mcp_config_path(agent: str, project: bool, cwd: Path | None = None) -> Path:
    """Where an agent looks for MCP servers: Claude Code's ~/.claude.json (user) or the
    project's .mcp.json; Codex's config.toml under CODEX_HOME or the project's .codex/."""
    base = Path.cwd() if cwd is None else cwd
    if agent == "claude":
        return base / ".mcp.json" if project else Path.home() / ".claude.json"
    if agent == "codex":
        return settings_path(agent, project, cwd).with_name("config.toml")
    raise InstallError(f"unknown agent {agent!r} (expected one of {', '.join(AGENTS)})")


def mcp_entry(cms: Path, cms_home: Path | None) -> dict[str, Any]:
    """Our server entry: `cms mcp` over stdio, with CMS_HOME when it is not the default."""
    entry: dict[str, Any] = {"type": "stdio", "command": str(cms), "args": ["mcp"]}
    if cms_home is not None:
        entry["env"] = {"CMS_HOME": str(cms_home)}
    return entry


def is_our_mcp_entry(entry: Any) -> bool:
    """Our recognition rule: a server whose command is a `cms` executable and args are ["mcp"]."""
    if not isinstance(entry, dict) or entry.get("args") != ["mcp"]:
        return False
    command = entry.get("command")
    if not isinstance(command, str):
        return False
    return command.replace("\\", "/").rsplit("/", 1)[-1] in CMS_NAMES


def _servers(data: dict[str, Any]) -> dict[str, Any] | None:
    servers = data.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise InstallError('"mcpServers" is not a JSON object')
    return servers


def merge_mcp_json(data: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` whose mcpServers.cms is our entry (in place if one of ours was there)."""
    data = copy.deepcopy(data)
    servers = _servers(data)
    if servers is None:
        servers = data["mcpServers"] = {}
    current = servers.get(MCP_NAME)
    if current is not None and not is_our_mcp_entry(current):
        raise InstallError(f'an MCP server named "{MCP_NAME}" that is not ours is already there')
    servers[MCP_NAME] = copy.deepcopy(entry)
    return data


def remove_mcp_json(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` without our mcpServers.cms; every other entry (and key) stays, and
    "mcpServers" goes when our removal emptied it (as an event list of hooks does)."""
    data = copy.deepcopy(data)
    servers = _servers(data)
    if servers is not None and is_our_mcp_entry(servers.get(MCP_NAME)):
        del servers[MCP_NAME]
        if not servers:
            del data["mcpServers"]
    return data


def _toml_key_path(key: str) -> list[str]:
    """The parts of a dotted TOML key (bare or quoted parts; no escapes inside quotes)."""
    parts = re.findall(r"\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)", key)
    return [part[1:-1] if part[:1] in "\"'" else part for part in parts]


def _toml_headers(lines: list[str]) -> list[tuple[int, list[str]]]:
    """(line index, key path) of every table header outside multi-line strings."""
    headers = []
    in_string: str | None = None
    for index, line in enumerate(lines):
        if in_string is None:
            match = _TOML_HEADER.match(line)
            if match:
                headers.append((index, _toml_key_path(match.group("key"))))
        for quote in re.findall(r'"""|\'\'\'', line):
            if in_string is None:
                in_string = quote
            elif quote == in_string:
                in_string = None
    return headers


def _toml_block(lines: list[str]) -> tuple[int, int] | None:
    """Lines [start, end) of our [mcp_servers.cms] table and its sub-tables, if present."""
    ours = ["mcp_servers", MCP_NAME]
    start = end = None
    for index, key in _toml_headers(lines):
        if start is None:
            if key == ours:
                start = index
        elif key[:2] != ours:
            end = index
            break
    if start is None:
        return None
    end = len(lines) if end is None else end
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # the blank lines before the next table are not ours
    return start, end


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are all valid TOML escapes)."""
    return json.dumps(value, ensure_ascii=False)


def codex_mcp_table(entry: dict[str, Any]) -> list[str]:
    """Our [mcp_servers.cms] table as TOML lines."""
    lines = [
        f"[mcp_servers.{MCP_NAME}]",
        f"command = {_toml_string(entry['command'])}",
        "args = [" + ", ".join(_toml_string(a) for a in entry["args"]) + "]",
    ]
    env = entry.get("env")
    if env:
        pairs = ", ".join(f"{_toml_string(k)} = {_toml_string(v)}" for k, v in env.items())
        lines.append(f"env = {{ {pairs} }}")
    return lines


def _toml_load(text: str, path: Path) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); left it untouched") from None


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):
        servers.pop(MCP_NAME, None)
        if not servers:
            del data["mcp_servers"]
    return data


def edit_codex_mcp(path: Path, text: str | None, entry: dict[str, Any] | None) -> str:
    """The new text of a Codex config.toml with our table set to `entry` (None: removed).

    Only the lines of our table change; every other line stays byte for byte. The result is
    parsed again and compared with the original, so a file we would damage is never written.
    """
    before = _toml_load(text or "", path)
    servers = before.get("mcp_servers", {})
    current = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    if current is not None and not is_our_mcp_entry(current):
        raise InstallError(
            f'{path} has an MCP server named "{MCP_NAME}" that is not ours; left it untouched'
        )
    lines = (text or "").splitlines(keepends=True)
    block = _toml_block(lines)
    if current is not None and block is None:
        raise InstallError(
            f"{path} defines mcp_servers.{MCP_NAME} inline; make it a [mcp_servers.{MCP_NAME}] "
            "table or remove it, then run again"
        )
    new = [line + "\n" for line in codex_mcp_table(entry)] if entry is not None else []
    if block is not None:
        start, end = block
        if not new:  # drop one blank line around the removed table
            if end < len(lines) and not lines[end].strip():
                end += 1
            elif start > 0 and not lines[start - 1].strip():
                start -= 1
        lines[start:end] = new
    elif new:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        if lines and lines[-1].strip():
            lines.append("\n")
        lines += new
    after_text = "".join(lines)
    after = _toml_load(after_text, path)
    got = after.get("mcp_servers", {}).get(MCP_NAME)
    if _without_ours(after) != _without_ours(before) or got != entry:
        raise InstallError(f"{path}: cms could not edit its table safely; left it untouched")
    return after_text


def plan_mcp_change(agent: str, path: Path, entry: dict[str, Any] | None) -> Change:
    """The planned new text of an agent's MCP config with our server set (None: removed)."""
    if agent == "claude":
        if entry is None:
            return plan_change(path, remove_mcp_json)
        return plan_change(path, lambda data: merge_mcp_json(data, entry))
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text: str | None = handle.read()
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    if text is None and entry is None:
        return Change(Settings(path, {}, ""), "")  # no file: nothing to remove
    codex_entry = None if entry is None else {k: v for k, v in entry.items() if k != "type"}
    return Change(Settings(path, {}, text), edit_codex_mcp(path, text, codex_entry))


def registered_mcp(agent: str, path: Path) -> dict[str, Any] | None:
    """Our server entry in an agent's MCP config, or None (unreadable files count as none)."""
    try:
        if agent == "claude":
            servers = _servers(load_settings(path).data) or {}
        else:
            with open(path, encoding="utf-8") as handle:
                servers = _toml_load(handle.read(), path).get("mcp_servers", {})
    except (OSError, UnicodeDecodeError, InstallError):
        return None
    entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    return entry if is_our_mcp_entry(entry) else None


# --------------------------------------------------------------------------- the environment


def create_venv(venv: Path, package: Path, editable: bool, extras: str = "") -> Path:
    """Create (or reuse) the virtual environment and pip-install the package (with extras, such
    as "[semantic]"); returns its cms."""
    python = venv_python(venv)
    if not python.exists():
        if venv.exists() and any(venv.iterdir()) and not (venv / "pyvenv.cfg").exists():
            raise InstallError(f"{venv} exists, is not empty and is not a virtual environment")
        print(f"cms: creating the virtual environment {venv}")
        _run_step([os.path.realpath(sys.executable), "-m", "venv", str(venv)], "python -m venv")
    print(f"cms: installing {package} into {venv} (pip; this can take a minute)")
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if editable:
        _run_step([*command, "-e", f"{package}{extras}"], "pip install")
    else:  # build from a clean copy: an in-tree build/ folder can carry stale modules
        with tempfile.TemporaryDirectory(prefix="cms-build-") as scratch:
            source = Path(scratch) / "cms-source"
            shutil.copytree(package, source, ignore=_not_source)
            _run_step([*command, "--upgrade", f"{source}{extras}"], "pip install")
    cms = venv_cms(venv)
    if not cms.exists():
        raise InstallError(f"pip finished but {cms} does not exist")
    return cms


_NOT_SOURCE = {
    ".git",
    ".venv",
    "build",
    "dist",
    "__pycache__",
    ".e2e-cache",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "node_modules",
}


def _not_source(folder: str, names: list[str]) -> set[str]:
    """copytree filter: caches, build output and virtual environments are not package source."""
    return {
        name
        for name in names
        if name in _NOT_SOURCE
        or name.endswith(".egg-info")
        or (Path(folder, name) / "pyvenv.cfg").exists()
    }


def _run_step(command: list[str], label: str) -> None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8", errors="replace"
        )
    except OSError as exc:
        raise InstallError(f"{label} could not start: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
        sys.stderr.write("\n".join(tail) + "\n")
        raise InstallError(f"{label} failed (exit code {done.returncode}); settings untouched")


def resolve_cms(args: argparse.Namespace) -> Path:
    """The cms executable the hooks will call (absolute path, not yet required to exist)."""
    if args.cms:
        return Path(os.path.abspath(os.path.expanduser(args.cms)))
    if args.skip_venv:
        found = shutil.which("cms")
        if not found:
            raise InstallError("--skip-venv: no `cms` on PATH (use --cms PATH)")
        return Path(os.path.abspath(found))
    return venv_cms(Path(os.path.abspath(os.path.expanduser(args.venv))))


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def self_check(cms: Path, timeout: float = 60.0) -> tuple[bool, str]:
    """Run `cms hook UserPromptSubmit` through `sh -c` on a sample payload in a throwaway home.

    Passes when the command exits 0 and prints nothing or valid JSON.
    """
    with tempfile.TemporaryDirectory(prefix="cms-selfcheck-") as scratch:
        work = Path(scratch) / "project"
        home = Path(scratch) / "cms-home"
        work.mkdir()
        home.mkdir()
        payload = {
            "session_id": SELF_CHECK_SESSION,
            "transcript_path": str(Path(scratch) / "transcript.jsonl"),
            "cwd": str(work),
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": "cms install self-check",
        }
        env = {k: v for k, v in os.environ.items() if k not in ("CMS_DISABLE", "CMS_CONFIG")}
        env["CMS_HOME"] = str(home)
        command = hook_command(cms, "UserPromptSubmit", home)
        argv = ["sh", "-c", command] if os.name != "nt" else [str(cms), "hook", "UserPromptSubmit"]
        try:
            done = subprocess.run(
                argv,
                input=json.dumps(payload) + "\n",
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                cwd=work,
                env=env,
            )
        except subprocess.TimeoutExpired:
            return False, f"the hook did not answer within {timeout:.0f} s"
        except OSError as exc:
            return False, f"the hook could not start: {exc}"
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [""])[-1][:200]
        return False, f"the hook exited with code {done.returncode}: {detail}".rstrip(": ")
    if done.stdout.strip():
        try:
            json.loads(done.stdout)
        except json.JSONDecodeError:
            return False, f"the hook printed something that is not JSON: {done.stdout[:120]!r}"
    return True, "ok"


def provider_now(cms: Path | None, env: dict[str, str]) -> tuple[str, str]:
    """What `auto` would pick now and why, from `cms doctor --json`; ("unknown", why) on failure."""
    if cms is None or not _is_executable(cms):
        return "unknown", "no installed cms to ask"
    try:
        done = subprocess.run(
            [str(cms), "doctor", "--json"],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=60,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        report = json.loads(done.stdout)
        provider = report["provider"]
        reason = report.get("provider_reason", "")
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return "unknown", "`cms doctor --json` did not answer"
    return str(provider), str(reason)


def last_hook_error(home: Path) -> str | None:
    """The last line containing " ERROR " in $CMS_HOME/logs/cms.log."""
    try:
        with open(home / "logs" / "cms.log", encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()[-5000:]
    except OSError:
        return None
    return next((line.rstrip("\n") for line in reversed(lines) if " ERROR " in line), None)


def _home_of(handlers: dict[str, list[dict[str, Any]]]) -> Path | None:
    """The CMS_HOME fixed in our installed commands, if any."""
    for found in handlers.values():
        for handler in found:
            parsed = handler_argv(handler)
            if parsed and parsed[0].get("CMS_HOME"):
                return Path(parsed[0]["CMS_HOME"])
    return None


def _cms_of(handlers: dict[str, list[dict[str, Any]]]) -> Path | None:
    for found in handlers.values():
        for handler in found:
            parsed = handler_argv(handler)
            if parsed:
                return Path(parsed[1][0])
    return None


def register_mcp(agent: str, path: Path, entry: dict[str, Any], project: bool) -> None:
    """Write our MCP server entry (re-read now: the file may have changed since planning)."""
    change = plan_mcp_change(agent, path, entry)
    backup = apply_change(change)
    record_change(_cms_home_for_commands() or data_home(), change, backup)
    if change.changed:
        note = f" (backup: {backup.name})" if backup else ""
        print(f"cms: registered the MCP server in {display_path(path)}{note}")
    else:
        print(f"cms: {display_path(path)} already registers our MCP server; unchanged")
    print(f"  mcp: {entry['command']} {' '.join(entry['args'])}")
    if project and agent == "claude":
        print("cms: Claude Code asks you to approve servers from .mcp.json before first use")
    elif project:
        print("cms: Codex reads .codex/config.toml only in projects you trust")


# --------------------------------------------------------------------------- commands


def show_status(args: argparse.Namespace) -> int:
    """Print, per agent: installed or not, the events wired, data, provider, last hook error."""
    default_cms: Path | None
    try:
        default_cms = resolve_cms(args)
    except InstallError:
        default_cms = None
    version = claude_version()
    for agent in AGENTS:
        name = AGENT_NAMES[agent]
        places = []
        user_file = settings_path(agent, False)
        project_file = settings_path(agent, True)
        for path in [user_file] + ([project_file] if project_file != user_file else []):
            try:
                found = installed_hooks(load_settings(path).data)
            except InstallError as exc:
                print(f"{name}: cannot read settings: {exc}")
                continue
            if found:
                places.append((path, found))
        if not places:
            print(f"{name}: not installed ({display_path(settings_path(agent, False))})")
            continue
        for path, found in places:
            print(f"{name}: installed in {display_path(path)}")
            print(f"  events: {', '.join(found)}")
            expected = events_for(agent, version if agent == "claude" else None)
            missing = [e for e in expected if e not in found]
            unknown = [e for e in found if e not in expected]
            if missing:
                print(f"  not wired: {', '.join(missing)} (run install.py again)")
            if unknown:
                print(f"  WARNING: this {name} version does not know {', '.join(unknown)}")
            cms = _cms_of(found) or default_cms
            state = "ok" if cms is not None and _is_executable(cms) else "MISSING: reinstall"
            print(f"  command: {cms} ({state})")
            home = _home_of(found) or data_home()
            print(f"  data: {home}")
            env = dict(os.environ, CMS_HOME=str(home))
            provider, reason = provider_now(cms, env)
            print(f"  provider (auto): {provider}" + (f" ({reason})" if reason else ""))
            print(f"  last hook error: {last_hook_error(home) or 'none'}")
    for agent in AGENTS:
        for path in dict.fromkeys(mcp_config_path(agent, project) for project in (False, True)):
            entry = registered_mcp(agent, path)
            if entry is not None:
                state = "ok" if _is_executable(Path(entry["command"])) else "MISSING: reinstall"
                print(
                    f"{AGENT_NAMES[agent]}: MCP server registered in {display_path(path)} "
                    f"({entry['command']} mcp, {state})"
                )
    return EXIT_OK


def _cms_home_for_commands() -> Path | None:
    """CMS_HOME to fix in the hook commands: the one set now, unless it is the default."""
    value = os.environ.get("CMS_HOME")
    if not value:
        return None
    home = Path(os.path.abspath(os.path.expanduser(value)))
    return None if home == Path.home() / ".cms" else home


def install(args: argparse.Namespace) -> int:
    agent = args.agent
    path = settings_path(agent, args.project)
    cms = resolve_cms(args)
    version = claude_version() if agent == "claude" else None
    events = events_for(agent, version)
    groups = desired_groups(cms, events, _cms_home_for_commands())
    # Planned before the slow venv step so a settings file we would refuse fails at once.
    change = plan_change(path, lambda data: merge_entries(data, groups))
    mcp_path = mcp_config_path(agent, args.project) if args.mcp else None
    if mcp_path is not None:
        mcp_change = plan_mcp_change(agent, mcp_path, mcp_entry(cms, _cms_home_for_commands()))
    if agent == "claude":
        skipped = [e for e in EVENTS if e not in events]
        if version is None:
            print(
                "cms: no Claude Code version from `claude --version`; writing the core hook events"
            )
        elif skipped:
            print(
                f"cms: Claude Code {'.'.join(map(str, version))} does not know "
                f"{', '.join(skipped)}; not writing them"
            )
    if args.dry_run:
        diff = settings_diff(path, change.settings.text, change.after)
        print(diff if diff else f"cms: {display_path(path)} is already up to date\n", end="")
        if mcp_path is not None:
            diff = settings_diff(mcp_path, mcp_change.settings.text, mcp_change.after)
            print(
                diff if diff else f"cms: {display_path(mcp_path)} is already up to date\n", end=""
            )
        return EXIT_OK
    if not (args.cms or args.skip_venv):
        cms = create_venv(
            Path(os.path.abspath(os.path.expanduser(args.venv))),
            HERE,
            args.editable,
            "[semantic]" if args.semantic else "",
        )
    elif not _is_executable(cms):
        raise InstallError(f"{cms} is not an executable file")
    change = plan_change(path, lambda data: merge_entries(data, groups))  # re-read after pip
    backup = apply_change(change)
    record_change(_cms_home_for_commands() or data_home(), change, backup)
    if change.changed:
        note = f" (backup: {backup.name})" if backup else ""
        print(f"cms: wrote {len(events)} hooks to {display_path(path)}{note}")
    else:
        print(f"cms: {display_path(path)} already holds our hooks; unchanged")
    for event, group in groups.items():
        print(f"  {event}: {group['hooks'][0]['command']}")
    if mcp_path is not None:
        register_mcp(agent, mcp_path, mcp_entry(cms, _cms_home_for_commands()), args.project)
    if agent == "codex":
        print("cms: Codex runs new hooks only after you review and trust them in Codex")
    ok, why = self_check(cms)
    home = _cms_home_for_commands() or data_home()
    if ok:
        print(
            f"cms: memory is active for {AGENT_NAMES[agent]} ({', '.join(events)} in "
            f"{display_path(path)}; data in {display_path(home)})"
        )
        if getattr(args, "semantic", False):
            print(f"cms: semantic search installed; fetch its model once: {cms} semantic download")
        return EXIT_OK
    print(
        f"cms: WARNING: hooks are installed but the self-check failed: {why}. "
        f"See `{cms} doctor`; `python install.py --uninstall` removes the hooks.",
        file=sys.stderr,
    )
    return EXIT_SELF_CHECK


def _safe_to_delete(folder: Path) -> bool:
    real = Path(os.path.realpath(folder))
    protected = [Path(os.path.realpath(p)) for p in (Path.home(), HERE, Path.cwd())]
    return real != Path(real.anchor) and not any(real == p or real in p.parents for p in protected)


def uninstall(args: argparse.Namespace) -> int:
    path = settings_path(args.agent, args.project)
    change = plan_change(path, remove_entries)
    home = _home_of(installed_hooks(change.settings.data)) or data_home()
    change = plan_removal(home, change)
    mcp_path = mcp_config_path(args.agent, args.project) if args.mcp else None
    if mcp_path is not None:
        mcp_change = plan_removal(home, plan_mcp_change(args.agent, mcp_path, None))
    if args.dry_run:
        diff = settings_diff(path, change.settings.text, change.after)
        print(diff if diff else f"cms: no cms hooks in {display_path(path)}\n", end="")
        if mcp_path is not None:
            diff = settings_diff(mcp_path, mcp_change.settings.text, mcp_change.after)
            print(diff if diff else f"cms: no cms MCP server in {display_path(mcp_path)}\n", end="")
        if args.purge:
            print(f"cms: would delete the data folder {home}")
        return EXIT_OK
    backup = apply_removal(home, change)
    if change.changed and change.after is None:
        print(f"cms: removed {display_path(path)}: cms created it and nothing else changed")
    elif change.changed:
        note = f" (backup: {backup.name})" if backup else ""
        print(f"cms: removed our hooks from {display_path(path)}{note}")
    else:
        print(f"cms: no cms hooks in {display_path(path)}; unchanged")
    if mcp_path is not None:
        mcp_backup = apply_removal(home, mcp_change)
        if mcp_change.changed and mcp_change.after is None:
            print(f"cms: removed {display_path(mcp_path)}: cms created it and nothing else changed")
        elif mcp_change.changed:
            note = f" (backup: {mcp_backup.name})" if mcp_backup else ""
            print(f"cms: removed our MCP server from {display_path(mcp_path)}{note}")
        else:
            print(f"cms: no cms MCP server in {display_path(mcp_path)}; unchanged")
    elif registered_mcp(args.agent, mcp_config_path(args.agent, args.project)):
        print(
            f"cms: the MCP server in {display_path(mcp_config_path(args.agent, args.project))} "
            "stays; add --mcp to remove it too"
        )
    if args.purge:
        if not home.exists():
            print(f"cms: no data folder at {home}")
        elif not _safe_to_delete(home):
            raise InstallError(f"refusing to delete {home}: it holds your home or this checkout")
        else:
            print(f"cms: deleting the data folder {home}")
            shutil.rmtree(home)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python install.py",
        description="Install cms into a virtual environment and wire its hooks into "
        "Claude Code (~/.claude/settings.json) or Codex (~/.codex/hooks.json).",
    )
    parser.add_argument("--agent", choices=AGENTS, default="claude", help="default: claude")
    parser.add_argument(
        "--project",
        action="store_true",
        help="the current folder's .claude/settings.json "
        "(or .codex/hooks.json) instead of the user-wide file",
    )
    parser.add_argument(
        "--venv", default=str(HERE / ".venv"), help="default: .venv beside install.py"
    )
    parser.add_argument("--editable", action="store_true", help="pip install -e (for development)")
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="also install the semantic search extra (model2vec, numpy); then run "
        "`cms semantic download` once",
    )
    parser.add_argument("--skip-venv", action="store_true", help="use the `cms` found on PATH")
    parser.add_argument("--cms", metavar="PATH", help="use this cms executable (no venv, no pip)")
    parser.add_argument("--status", action="store_true", help="show what is installed and exit")
    parser.add_argument("--uninstall", action="store_true", help="remove exactly our hook entries")
    parser.add_argument(
        "--purge", action="store_true", help="with --uninstall: delete the data too"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
    parser.add_argument(
        "--mcp",
        action="store_true",
        help="also register (with --uninstall: remove) the `cms mcp` server: ~/.claude.json "
        "or, with --project, .mcp.json; for Codex its config.toml",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.purge and not args.uninstall:
        build_parser().error("--purge only goes with --uninstall")
    if sys.version_info < (3, 11):  # noqa: UP036 - this file may be started by an older python
        print("cms: needs Python 3.11 or newer; run this file with python3.11", file=sys.stderr)
        return EXIT_ERROR
    try:
        if args.status:
            return show_status(args)
        if args.uninstall:
            return uninstall(args)
        return install(args)
    except InstallError as exc:
        print(f"cms: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("cms: interrupted", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
