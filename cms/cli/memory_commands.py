"""Commands on the project observation store: recall, remember, forget, list, stats, export,
import (and the registration of gc, cms/cli/upkeep_command.py).

Finds the project from --cwd (default: the current folder), calls cms.observations and prints
one line per observation or JSON; every error is a CmsError and reaches the boundary in cms.cli.
"""

from __future__ import annotations

import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import typer

from cms.cli.stats_command import stats
from cms.cli.upkeep_command import gc
from cms.cli.user_tier import (
    ScopeOpt,
    forget_user,
    list_user,
    recall_user,
    remember_user,
    user_line,
    user_record,
    wants_user,
)
from cms.console import config_checked, load_command_config, print_json, print_remembered
from cms.errors import CmsError, StoreError
from cms.observations.access import ProjectMemory, open_project_memory
from cms.observations.capture import capture_with_outcomes
from cms.observations.export import (
    export_json,
    export_markdown,
    exported_observations,
    import_records,
    observation_record,
    parse_export,
)
from cms.observations.filenotes import write_file_notes
from cms.observations.items import observation_number
from cms.observations.memoryfile import (
    DEFAULT_BUDGET,
    VIEWS,
    chosen_observations,
    merge_block,
    render_view,
)
from cms.observations.migrations import KINDS
from cms.observations.model import NewObservation, Observation
from cms.observations.recall import RecalledObservation, format_observation_line, recall
from cms.project import identify_project

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _memory(cwd: Path | None, *, create: bool) -> ProjectMemory | None:
    return open_project_memory(cwd or Path.cwd(), create=create)


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise typer.BadParameter(f"{kind!r} is not one of {', '.join(KINDS)}")
    return kind


def _line(obs: Observation | RecalledObservation, now: float, branch: str | None) -> str:
    o = obs.observation if isinstance(obs, RecalledObservation) else obs
    flags = " [archived]" if o.archived_at is not None else ""
    flags += f" [superseded by O{o.superseded_by}]" if o.superseded_by is not None else ""
    flags += f" [summarised into O{o.summarised_into}]" if o.summarised_into is not None else ""
    return f"O{o.id} {format_observation_line(obs, now, branch)}{flags}"


def recall_command(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    as_json: JsonOpt = False,
    limit: Annotated[int, typer.Option("--limit", min=1, max=100, help="How many.")] = 5,
    kind: Annotated[
        list[str] | None, typer.Option("--kind", help="Only these kinds (repeatable).")
    ] = None,
    min_relevance: Annotated[
        float | None,
        typer.Option("--min-relevance", min=0, max=1, help="Default: [observations] config."),
    ] = None,
    cwd: CwdOpt = None,
) -> None:
    """Print the stored observations relevant to QUERY that are visible on this branch, and your
    own preferences (the user tier, U ids) that this project does not overrule."""
    kinds = [_check_kind(k) for k in kind or []]
    config = load_command_config()
    floor = config.observations.min_relevance if min_relevance is None else min_relevance
    memory = _memory(cwd, create=False)
    hits: list[RecalledObservation] = []
    branch = None
    with memory or nullcontext():
        if memory is not None:
            from cms.semantic import meaning_for, print_notice

            hits = recall(
                memory.store,
                query,
                scope=memory.scope,
                limit=limit,
                kinds=kinds or None,
                min_relevance=floor,
                meaning=meaning_for(config, memory.store, query, print_notice),
                semantic_weight=config.semantic.weight,
            )
            branch = memory.scope.branch
        mine = recall_user(
            query,
            limit=limit,
            kinds=kinds or None,
            min_relevance=floor,
            project=memory,
            beside=hits,
        )
    ranked = sorted(
        [(h, False) for h in hits] + [(h, True) for h in mine], key=lambda p: -p[0].score
    )
    now = time.time()
    if as_json:
        print_json(
            [
                (
                    user_record(h.observation)
                    if personal
                    else observation_record(h.observation) | {"tier": "project"}
                )
                | {"score": round(h.score, 4), "relevance": round(h.relevance, 4)}
                | {"visibility": h.visibility, "line": format_observation_line(h, now, branch)}
                for h, personal in ranked[:limit]
            ]
        )
        return
    if not ranked:
        print(f"no stored observation matches {query!r}")
        return
    for hit, personal in ranked[:limit]:
        print(user_line(hit, now) if personal else _line(hit, now, branch))


def remember(
    title: Annotated[str, typer.Option("--title", help="One line naming the observation.")],
    kind: Annotated[str, typer.Option("--kind", help=f"One of: {', '.join(KINDS)}.")] = "other",
    body: Annotated[str, typer.Option("--body", help="The details.")] = "",
    files: Annotated[
        list[str] | None, typer.Option("--files", help="A file it is about (repeatable).")
    ] = None,
    importance: Annotated[int, typer.Option("--importance", min=1, max=5)] = 3,
    session: Annotated[str, typer.Option("--session", help="Session id recorded.")] = "cli",
    cwd: CwdOpt = None,
    scope: ScopeOpt = "project",
) -> None:
    """Store one observation by hand (redacted, deduplicated, with branch and commit); with
    --scope user, one of your own preferences, for every project (no branch)."""
    new = NewObservation(_check_kind(kind), title, body, tuple(files or ()), importance)
    if wants_user(scope):
        return remember_user(new, session)
    folder = cwd or Path.cwd()
    memory = _memory(folder, create=True)
    assert memory is not None
    with memory:
        outcomes = capture_with_outcomes(
            memory.store, [new], session=session, agent="cli", cwd=folder
        )
        write_file_notes(memory.store)  # what the PreToolUse hook reads
    if not outcomes:
        raise StoreError("nothing to remember: the title is empty")
    print_remembered(outcomes[0].status, f"O{outcomes[0].id}")


def forget(
    ids: Annotated[
        list[str] | None, typer.Option("--id", help="Observation id: 12, O12 (U12) (repeatable).")
    ] = None,
    branch: Annotated[str | None, typer.Option("--branch", help="Every one of a branch.")] = None,
    session: Annotated[
        str | None, typer.Option("--session", help="Every one of a session.")
    ] = None,
    cwd: CwdOpt = None,
    scope: ScopeOpt = "project",
) -> None:
    """Delete observations for good: by id, by branch or by session (exactly one of them); with
    --scope user, items of the user tier (by id or session)."""
    given = sum(1 for x in (ids, branch, session) if x)
    if given != 1:
        raise typer.BadParameter("give exactly one of --id, --branch or --session")
    if wants_user(scope):
        return forget_user(ids or [], branch, session)
    numbers = [observation_number(i) for i in ids or []]
    if None in numbers:
        bad = next(i for i, n in zip(ids or [], numbers, strict=True) if n is None)
        where = "; add --scope user" if bad[:1] in "Uu" else ""
        raise CmsError(f"{bad} is not an observation id of this project{where}")
    memory = _memory(cwd, create=False)
    count = 0
    if memory is not None:
        with memory:
            count = memory.store.forget(
                ids=[n for n in numbers if n is not None], branch=branch, session=session
            )
            write_file_notes(memory.store)
    print(f"forgot {count} observation{'s' if count != 1 else ''}")


def list_command(
    as_json: JsonOpt = False,
    include_all: Annotated[
        bool, typer.Option("--all", help="Also archived and superseded ones.")
    ] = False,
    kind: Annotated[str | None, typer.Option("--kind", help="Only this kind.")] = None,
    branch: Annotated[str | None, typer.Option("--branch", help="Only this branch.")] = None,
    cwd: CwdOpt = None,
    scope: ScopeOpt = "project",
) -> None:
    """List the project's observations, oldest first (live ones unless --all); with --scope
    user, your own preferences (the user tier, every project)."""
    if wants_user(scope):
        return list_user(as_json, include_all, _check_kind(kind) if kind else None, branch)
    memory = _memory(cwd, create=False)
    observations: list[Observation] = []
    current: str | None = None
    if memory is not None:
        with memory:
            observations = memory.store.list_observations(
                include_archived=include_all,
                include_superseded=include_all,
                kind=_check_kind(kind) if kind else None,
                branch=branch,
            )
            current = memory.scope.branch
    if as_json:
        print_json(
            [
                observation_record(o)
                | {"superseded_by": o.superseded_by, "summarised_into": o.summarised_into}
                for o in observations
            ]
        )
        return
    if not observations:
        print("no observations stored for this project")
        return
    now = time.time()
    for obs in observations:
        print(_line(obs, now, current))


EXPORT_FORMATS = ("md", "json", *VIEWS)


def export(
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="md (every observation, MEMORY.md style), json, claude-md (a budgeted index of "
            "what is in force) or agents-md (a '## Memory' section for AGENTS.md).",
        ),
    ] = "md",
    output: Annotated[Path | None, typer.Option("--output", help="File (default: stdout).")] = None,
    budget: Annotated[
        int, typer.Option("--budget", min=200, help="claude-md, agents-md: characters of entries.")
    ] = DEFAULT_BUDGET,
    chat_map: Annotated[
        bool, typer.Option("--map", help="Export a chat's map as Markdown instead.")
    ] = False,
    session: Annotated[
        str | None, typer.Option("--session", help="With --map: the chat (default: the latest).")
    ] = None,
    cwd: CwdOpt = None,
) -> None:
    """Write the project's memory: every observation (md, json), what is in force (claude-md,
    agents-md: a marked block that replaces its earlier version in an existing --output file,
    the rest of the file kept), or with --map a chat's map."""
    if chat_map:
        from cms.chats import locate_map
        from cms.map.render import render_markdown
        from cms.map.store import load_map

        here = identify_project(cwd or Path.cwd()).id
        _write_export(render_markdown(load_map(locate_map(session, None, here))), output, "the map")
        return
    if fmt not in EXPORT_FORMATS:
        raise typer.BadParameter(f"--format must be one of {', '.join(EXPORT_FORMATS)}")
    project = identify_project(cwd or Path.cwd())
    memory = _memory(cwd, create=False)
    observations: list[Observation] = []
    if memory is not None:
        with memory:
            if fmt in VIEWS:
                observations = chosen_observations(memory.store, memory.scope, budget)
            else:
                observations = exported_observations(memory.store)
    if fmt in VIEWS:
        block = render_view(fmt, project.id, observations)
        text = merge_block(_existing(output), block) if output is not None else block
    else:
        text = (export_json if fmt == "json" else export_markdown)(project.id, observations)
    _write_export(text, output, f"{len(observations)} observations")


def _existing(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as handle:  # line endings as they are
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read {path}: {exc}") from exc


def _write_export(text: str, output: Path | None, what: str) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        raise StoreError(f"cannot write {output}: {exc.strerror}") from exc
    print(f"exported {what} to {output}")


def import_command(
    file: Annotated[Path, typer.Argument(help="A `cms export` file (Markdown or JSON).")],
    cwd: CwdOpt = None,
) -> None:
    """Add the observations of an export to this project (what is known already is skipped)."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read {file}: {exc}") from exc
    records = parse_export(text)
    memory = _memory(cwd, create=True)
    assert memory is not None
    with memory:
        report = import_records(memory.store, records)
        write_file_notes(memory.store)
    print(
        f"imported from {file}: {report.added} added, {report.superseding} replacing older ones, "
        f"{report.duplicates} already known, {report.older} older than stored, "
        f"{report.skipped} without a title"
    )


def register(app: typer.Typer) -> None:
    app.command("recall")(config_checked(recall_command))
    app.command("remember")(config_checked(remember))
    app.command("forget")(config_checked(forget))
    app.command("list")(config_checked(list_command))
    app.command("stats")(config_checked(stats))
    app.command("export")(config_checked(export))
    app.command("import")(config_checked(import_command))
    app.command("gc")(config_checked(gc))
