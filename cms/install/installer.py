"""`cms install` without --status or --uninstall: our hooks (and with --mcp our MCP server)
merged into one agent's settings, the `cms` link on PATH, then a self-check of the hook.

Plans every file before writing any; refusals are InstallError. Never makes a venv or runs pip.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cms.errors import InstallError
from cms.install.hook_entries import (
    EVENTS,
    claude_version,
    desired_groups,
    events_for,
    merge_entries,
    uses_mcp_tools,
)
from cms.install.launcher import launcher_for, write_launcher
from cms.install.mcp_entries import mcp_entry, plan_mcp_change
from cms.install.options import InstallOptions, resolve_cms
from cms.install.places import (
    AGENT_NAMES,
    display_path,
    is_executable,
    mcp_config_path,
    pinned_home,
    record_home,
    settings_path,
)
from cms.install.records import record_change
from cms.install.self_check import self_check
from cms.install.settings_file import Change, apply_change, plan_change, settings_diff
from cms.install.user_bin import link_cms

EXIT_OK, EXIT_SELF_CHECK = 0, 3
NEXT_STEP = {
    "claude": "next: start a new Claude Code session; `cms show` to look",
    "codex": "next: start a new Codex session (after trusting the hooks); `cms show` to look",
}


def _say_version(version: tuple[int, int, int] | None, events: list[str]) -> None:
    skipped = [e for e in EVENTS if e not in events]
    if version is None:
        print("cms: no Claude Code version from `claude --version`; writing the core hook events")
    elif skipped:
        print(
            f"cms: Claude Code {'.'.join(map(str, version))} does not know "
            f"{', '.join(skipped)}; not writing them"
        )


def _print_diff(path: Path, change: Change, same: str) -> None:
    diff = settings_diff(path, change.settings.text, change.after)
    print(diff if diff else f"cms: {display_path(path)} {same}\n", end="")


def _apply_recorded(change: Change) -> str:
    """Write a planned change, record it for uninstall; the note naming its backup ("" when
    none was made)."""
    backup = apply_change(change)
    record_change(record_home(), change, backup)
    return f" (backup: {backup.name})" if backup else ""


def _register_mcp(agent: str, path: Path, entry: dict[str, object], project: bool) -> None:
    """Write our MCP server entry (re-read now: the file may have changed since planning)."""
    change = plan_mcp_change(agent, path, entry)
    note = _apply_recorded(change)
    if change.changed:
        print(f"cms: registered the MCP server in {display_path(path)}{note}")
    else:
        print(f"cms: {display_path(path)} already registers our MCP server; unchanged")
    print(f"  mcp: {entry['command']} mcp")
    if project and agent == "claude":
        print("cms: Claude Code asks you to approve servers from .mcp.json before first use")
    elif project:
        print("cms: Codex reads .codex/config.toml only in trusted projects")


def install(options: InstallOptions) -> int:
    """Wire cms in; 0 when the self-check passed, 3 when the hooks are written but it failed."""
    agent = options.agent
    path = settings_path(agent, options.project)
    cms = resolve_cms(options)
    version = claude_version() if agent == "claude" else None
    events = events_for(agent, version)
    if not options.dry_run and not is_executable(cms):
        hint = "" if options.cms or options.venv else " (pass --cms PATH or --skip-venv)"
        raise InstallError(f"{cms} is not an executable file{hint}")
    hook_program = launcher_for(cms) if options.dry_run else write_launcher(cms)
    mcp_tools = uses_mcp_tools(agent, version) and not options.command_hooks
    groups = desired_groups(hook_program, events, pinned_home(), mcp_tools=mcp_tools)
    change = plan_change(path, lambda data: merge_entries(data, groups))
    mcp_path = mcp_config_path(agent, options.project) if options.mcp else None
    if mcp_tools and (mcp_path is None or options.project):  # the hook tools' server, per user
        mcp_path = mcp_config_path(agent, False)
    entry = mcp_entry(cms, pinned_home())
    mcp_change = plan_mcp_change(agent, mcp_path, entry) if mcp_path is not None else None
    if agent == "claude":
        _say_version(version, events)
    if options.dry_run:
        _print_diff(path, change, "is already up to date")
        if mcp_path is not None and mcp_change is not None:
            _print_diff(mcp_path, mcp_change, "is already up to date")
        print(link_cms(record_home(), cms, dry_run=True))
        return EXIT_OK
    note = _apply_recorded(change)
    if change.changed:
        print(f"cms: wrote {len(events)} hooks to {display_path(path)}{note}")
    else:
        print(f"cms: {display_path(path)} already holds our hooks; unchanged")
    for event, group in groups.items():
        handler = group["hooks"][0]
        shown = handler.get("command") or f"mcp_tool {handler['server']}:{handler['tool']}"
        print(f"  {event}: {shown}")
    if mcp_path is not None:
        _register_mcp(agent, mcp_path, entry, options.project and not mcp_tools)
    if agent == "codex":
        print("cms: Codex runs new hooks only after you review and trust them in Codex")
    link_line = link_cms(record_home(), cms)
    ok, why = self_check(hook_program)
    if not ok:
        print(link_line)
        print(
            f"cms: WARNING: hooks are installed but the self-check failed: {why}. "
            f"See `{cms} doctor`; `{cms} install --uninstall` removes the hooks.",
            file=sys.stderr,
        )
        return EXIT_SELF_CHECK
    print(
        f"cms: memory is active for {AGENT_NAMES[agent]} ({', '.join(events)} in "
        f"{display_path(path)}; data in {display_path(record_home())})"
    )
    if options.semantic:
        print(f"cms: semantic search: fetch its model once with `{cms} semantic download`")
    print(link_line)
    print(NEXT_STEP[agent])
    return EXIT_OK
