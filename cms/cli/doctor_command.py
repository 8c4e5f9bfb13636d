"""`cms doctor`: what cms would do here and why (config, data folder, provider, prompts, errors,
deleted branches whose never-merged memory shows everywhere).

It only inspects: it never calls a model, never creates the data folder and never changes a
file. A broken config or CMS_PROVIDER is reported as such (exit code 1) instead of stopping the
report; the rest of the report then shows the defaults. Deleted branches are warnings: they never
change the exit code.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

from cms import paths
from cms.cli.branch_report import (
    HEADING,
    WARNING,
    branch_records,
    branch_warning,
    find_deleted,
)
from cms.config import Config, load_config
from cms.console import print_json
from cms.errors import CmsError
from cms.log import last_error
from cms.observations.access import read_project_memory
from cms.project import identify_project
from cms.providers.prompts import PROMPT_NAMES, prompt_source
from cms.providers.select import choose_provider


def _credentials() -> list[str]:
    return [
        name
        for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
        if os.environ.get(name)
    ]


def collect_report(folder: Path | None = None) -> tuple[dict[str, Any], bool]:
    """The doctor's findings as a dict, and whether everything needed is usable; folder is the
    project checked for deleted, never-merged branches (a warning, never unhealthy)."""
    healthy = True
    warnings: list[str] = []
    config_error: str | None = None
    try:
        config = load_config()
    except CmsError as exc:
        config = Config()
        config_error = str(exc)
        warnings.append(f"config not usable, defaults shown: {exc}")
        healthy = False
    warnings += [f"{config.source}: {w}" for w in config.warnings]
    try:
        provider, reason = choose_provider(config)
    except CmsError as exc:
        provider, reason = "error", str(exc)
        healthy = False
    claude = shutil.which(config.provider.claude_cli_path)
    codex = shutil.which(config.provider.codex_cli_path)
    usage: dict[str, Any] | None
    try:
        from cms.providers.usage import summarize_usage

        usage = summarize_usage(config)["budget"]
    except CmsError as exc:
        usage = None
        warnings.append(str(exc))
    deleted = _deleted_branches(folder or Path.cwd(), folder, warnings)
    home = paths.cms_home()
    report = {
        "cms_home": str(home),
        "cms_home_exists": os.path.isdir(home),
        "config": config.source or None,
        "config_path": str(paths.config_path()),
        "config_error": config_error,
        "warnings": warnings,
        "provider": provider,
        "provider_reason": reason,
        "provider_mode": config.provider.mode,
        "models": {
            "update": config.provider.update_model,
            "search": config.provider.search_model,
            "observe": config.provider.observe_model,
            "summarise": config.provider.summarise_model,
        },
        "claude": claude,
        "codex": codex,
        "credentials_set": _credentials(),
        "cms_disable": bool(os.environ.get("CMS_DISABLE")),
        "prompts": {name: prompt_source(name, config) for name in PROMPT_NAMES},
        "budget": usage,
        "semantic": _semantic_state(config),
        "team": _team_state(config),
        "log": str(paths.log_path()),
        "last_error": last_error(),
        "deleted_branches": deleted,
    }
    return report, healthy


def _deleted_branches(folder: Path, cwd: Path | None, warnings: list[str]) -> list[dict[str, Any]]:
    """The project's deleted, never-merged branches (read-only: the store opened read-only,
    git only read), each also added to warnings with its forget line."""
    try:
        memory = read_project_memory(identify_project(folder).id, str(folder))
    except CmsError as exc:
        warnings.append(f"deleted branches not checked: {exc}")
        return []
    if memory is None:
        return []
    with memory:
        found = find_deleted(memory.store, folder)
    warnings += [branch_warning(b, cwd) for b in found]
    return branch_records(found, cwd)


def _semantic_state(config: Config) -> dict[str, Any]:
    from cms.semantic import model_folder, unavailable_reason

    reason = unavailable_reason(config)
    return {
        "mode": config.semantic.mode,
        "model": model_folder(config),
        "usable": reason is None,
        "reason": reason,
    }


def _team_state(config: Config) -> dict[str, Any]:
    """Whether a team database is set (shown without its password) and psycopg installed."""
    from importlib.util import find_spec

    from cms.config import team_url
    from cms.team.server import hidden_password

    url = team_url(config)
    return {
        "url": hidden_password(url) if url else None,
        "psycopg": find_spec("psycopg") is not None,
    }


def _print_text(report: dict[str, Any]) -> None:
    if report["config_error"]:
        config = (
            f"BROKEN ({report['config_path']}): {report['config_error']}; commands stop on it, "
            "hooks log it and run on the defaults shown here"
        )
    else:
        config = report["config"] or f"defaults (no file at {report['config_path']})"
    home_state = "" if report["cms_home_exists"] else " (not created yet)"
    print(f"config:     {config}")
    for warning in report["warnings"]:
        if warning.startswith(WARNING):
            continue  # the deleted branches are listed below, each with its forget line
        if not report["config_error"] or report["config_error"] not in warning:
            print(f"warning:    {warning}")
    branches = report["deleted_branches"]
    if branches:
        print(f"warning:    {HEADING}")
        for branch in branches:
            print(f"              {branch['line']}")
            print(f"                {branch['forget']}")
    print(f"data:       {report['cms_home']}{home_state}")
    print(f"provider:   {report['provider']} ({report['provider_reason']})")
    print(f"claude CLI: {report['claude'] or 'not found on PATH'}")
    print(f"codex CLI: {report['codex'] or 'not found on PATH'}")
    creds = ", ".join(report["credentials_set"]) or "none set"
    print(f"API env:    {creds}")
    if report["cms_disable"]:
        print("CMS_DISABLE is set: hooks do nothing in this environment")
    print("prompts:    " + ", ".join(f"{k}: {v}" for k, v in report["prompts"].items()))
    budget = report["budget"]
    if budget and budget["daily_tokens"]:
        print(
            f"budget:     {budget['spent_today']} of {budget['daily_tokens']} tokens spent today"
            " (UTC)"
        )
    elif budget:
        print(f"budget:     unlimited ({budget['spent_today']} tokens today)")
    semantic = report["semantic"]
    state = f"on, model {semantic['model']}" if semantic["usable"] else f"off: {semantic['reason']}"
    print(f"semantic:   {state}")
    team = report["team"]
    if team["url"] is None:
        print("team:       off (no [team] url; docs/team.md)")
    elif team["psycopg"]:
        print(f"team:       {team['url']} (`cms team status` in a project)")
    else:
        print(f"team:       {team['url']}, but psycopg is missing: pip install 'cms[team]'")
    print(f"log:        {report['log']}")
    print(f"last error: {report['last_error'] or 'none'}")


def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
    cwd: Annotated[
        Path | None,
        typer.Option("--cwd", help="A folder of the project checked (default: the current one)."),
    ] = None,
) -> None:
    """Show the config in use, the data folder, which provider `auto` picks and why, and the
    project's deleted branches whose unmerged memory shows on every branch."""
    report, healthy = collect_report(cwd)
    if as_json:
        print_json(report)
    else:
        _print_text(report)
    if not healthy:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(doctor)
