"""Our hook entries in an agent's settings object: which events, the command each runs, how
ours are recognised, and merging them in or taking them out (pure functions on dicts).

It never reads or writes a file (settings_file does) and never touches a handler not ours.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

from cms.errors import InstallError
from cms.hooks.events import KNOWN_EVENTS
from cms.install.codex_toml import MCP_NAME

# Our events in the order they are written. Codex 0.171.0 fires SessionEnd too (see
# docs/install.md), and Codex ignores event names it does not know, so it gets the same list.
EVENTS = KNOWN_EVENTS
# First Claude Code version that knows each event (changelog). An unknown event name makes some
# versions reject the whole settings file, which silently drops every hook.
EVENT_SINCE: dict[str, tuple[int, int, int]] = {
    "SessionStart": (1, 0, 62),
    "UserPromptSubmit": (1, 0, 54),
    "PreToolUse": (1, 0, 54),
    "Stop": (0, 0, 0),
    "SessionEnd": (1, 0, 85),
    "PreCompact": (1, 0, 48),
}
MATCHERS = {
    "SessionStart": "startup|resume|clear|compact",
    "PreToolUse": "Read|Edit|MultiEdit|Write|NotebookEdit|Bash|PowerShell",
}
TIMEOUTS = dict.fromkeys(EVENTS, 10)
CMS_NAMES = ("cms", "cms.exe")
# Claude Code calls a tool of a running MCP server as a hook since 2.1.118 (`"type":
# "mcp_tool"`); these events are answered so by `cms mcp`'s hook tools (cms/mcp_server/front.py),
# with the fields of the payload the tools read as `${...}` placeholders. SessionStart stays a
# command hook: at startup and resume no MCP server is connected yet.
MCP_TOOL_SINCE = (2, 1, 118)
_COMMON = {"session_id": "${session_id}", "cwd": "${cwd}", "transcript_path": "${transcript_path}"}
MCP_TOOL_HOOKS: dict[str, tuple[str, dict[str, str]]] = {
    "UserPromptSubmit": ("hook_user_prompt_submit", {**_COMMON, "prompt": "${prompt}"}),
    "PreToolUse": (
        "hook_pre_tool_use",
        {**_COMMON, "tool_name": "${tool_name}", "tool_input": "${tool_input}"},
    ),
}

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEMVER = re.compile(r"(\d+)\.(\d+)\.(\d+)")


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


def uses_mcp_tools(agent: str, version: tuple[int, int, int] | None) -> bool:
    """Whether the agent's version takes our `mcp_tool` hooks (Claude Code 2.1.118 or later)."""
    return agent == "claude" and version is not None and version >= MCP_TOOL_SINCE


def is_our_handler(handler: Any, event: str) -> bool:
    """Our recognition rule (docs/install.md): a command handler whose argv, after leading
    NAME=value assignments, is `<dir>/cms hook EVENT ...` with EVENT the event it is filed under,
    or an `mcp_tool` handler calling our server's hook tool for that event."""
    if isinstance(handler, dict) and handler.get("type") == "mcp_tool":
        tool = MCP_TOOL_HOOKS.get(event, ("", {}))[0]
        return handler.get("server") == MCP_NAME and bool(tool) and handler.get("tool") == tool
    parsed = handler_argv(handler)
    if parsed is None:
        return False
    argv = parsed[1]
    if len(argv) < 3 or argv[1:3] != ["hook", event]:
        return False
    return is_cms_program(argv[0])


def is_cms_program(command: str) -> bool:
    """Whether a program path names a `cms` executable (any folder)."""
    return command.replace("\\", "/").rsplit("/", 1)[-1] in CMS_NAMES


def desired_groups(
    cms: Path, events: list[str], cms_home: Path | None, *, mcp_tools: bool = False
) -> dict[str, dict[str, Any]]:
    """The matcher group we want under each event, in write order; with mcp_tools, the events
    `cms mcp` answers call its hook tools."""
    groups: dict[str, dict[str, Any]] = {}
    for event in events:
        group: dict[str, Any] = {}
        if event in MATCHERS:
            group["matcher"] = MATCHERS[event]
        if mcp_tools and event in MCP_TOOL_HOOKS:
            tool, arguments = MCP_TOOL_HOOKS[event]
            handler = {"type": "mcp_tool", "server": MCP_NAME, "tool": tool, "input": arguments}
        else:
            handler = {"type": "command", "command": hook_command(cms, event, cms_home)}
        group["hooks"] = [{**handler, "timeout": TIMEOUTS[event]}]
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


def pinned_home_of(handlers: dict[str, list[dict[str, Any]]]) -> Path | None:
    """The CMS_HOME fixed in our installed commands, if any."""
    for found in handlers.values():
        for handler in found:
            parsed = handler_argv(handler)
            if parsed and parsed[0].get("CMS_HOME"):
                return Path(parsed[0]["CMS_HOME"])
    return None


def cms_of(handlers: dict[str, list[dict[str, Any]]]) -> Path | None:
    """The cms executable our installed commands run, if any."""
    for found in handlers.values():
        for handler in found:
            parsed = handler_argv(handler)
            if parsed:
                return Path(parsed[1][0])
    return None
