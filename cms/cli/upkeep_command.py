"""`cms gc`: upkeep of the project's observations. Near-duplicates fold into the newest, stale
low-importance ones are archived, and with a model those of one subject are first summarised.

Plans with cms.observations (upkeep, summaries), asks the model through cms.worker.summarise and
prints the plan or what was done; nothing is ever deleted. Errors are CmsError (cms.cli).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from cms.config import Config, ObservationsConfig
from cms.console import load_command_config
from cms.observations.access import open_project_memory, read_project_memory
from cms.observations.filenotes import write_file_notes
from cms.observations.model import Observation
from cms.observations.summaries import SummaryGroup, summary_groups
from cms.observations.upkeep import (
    Fold,
    apply_folds,
    archive_observations,
    fold_plan,
    stale_observations,
)
from cms.project import identify_project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.observations.store import ObservationStore

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]


def _plural(count: int, word: str, many: str = "") -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


def _model_mode(config: Config) -> tuple[str, str]:
    from cms.providers.select import choose_provider

    return choose_provider(config)


def _summarise(
    store: ObservationStore, groups: list[SummaryGroup], config: Config, project: str
) -> tuple[set[int], set[int], int]:
    """Ask the model for the groups' summaries: (ids summarised, ids left as they were,
    summaries stored)."""
    from cms.providers.select import make_provider
    from cms.worker.summarise import LEFT, SUMMARISED, summarise_groups

    provider = make_provider(config)
    if provider is None:  # pragma: no cover - the caller checked the mode
        return set(), set(), 0
    outcomes = summarise_groups(store, groups, provider, config, project=project, report=_say)
    done = {i for o in outcomes if o.status == SUMMARISED for i in o.group.ids}
    left = {i for o in outcomes if o.status == LEFT for i in o.group.ids}
    return done, left, sum(1 for o in outcomes if o.status == SUMMARISED)


def _say(line: str) -> None:
    print(line, flush=True)  # one line per group as it is done: a model call takes seconds


def gc(
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the plan; change nothing and call no model."),
    ] = False,
    summarise: Annotated[
        bool,
        typer.Option(
            "--summarise/--no-summarise",
            help="With a model provider, summarise stale observations of one subject into one "
            "before archiving them (default); --no-summarise archives them as they are.",
        ),
    ] = True,
    cwd: CwdOpt = None,
) -> None:
    """Upkeep: archive observations not recalled for stale_after_days (config section
    observations) whose importance is at most stale_max_importance, and fold near-duplicates of
    one subject into the newest. With a model provider, stale ones of one subject (kind, branch,
    shared files or title words) are first summarised into one new observation each. Nothing is
    deleted: archived ones stay in the store, folded ones are the newer one's history, summarised
    ones point to their summary and it to them (`cms get`)."""
    config = load_command_config()
    settings = config.observations
    folder = cwd or Path.cwd()
    mode, reason = _model_mode(config) if summarise else ("", "")
    if dry_run:  # a plan opens the store read-only: not even a migration runs
        memory = read_project_memory(identify_project(folder).id, str(folder))
    else:
        memory = open_project_memory(folder, create=False)
    now = time.time()
    stale: list[Observation] = []
    folds: list[Fold] = []
    groups: list[SummaryGroup] = []
    done: set[int] = set()
    left: set[int] = set()
    summaries = 0
    with_model = summarise and mode != "local"
    if memory is not None:
        with memory:
            folds = fold_plan(memory.store)
            folded = {f.older.id for f in folds} | {f.newer.id for f in folds}  # kept in use
            stale = [
                o
                for o in stale_observations(
                    memory.store,
                    now=now,
                    stale_after_days=settings.stale_after_days,
                    max_importance=settings.stale_max_importance,
                )
                if o.id not in folded
            ]
            groups = summary_groups(stale) if summarise else []
            if not dry_run:
                apply_folds(memory.store, folds)
            for fold in folds:
                print(f"{'would fold' if dry_run else 'folded'} {fold.describe()}")
            if not dry_run and with_model and groups:
                done, left, summaries = _summarise(memory.store, groups, config, memory.project.id)
            if not dry_run:
                archive_observations(
                    memory.store, [o.id for o in stale if o.id not in done | left], now
                )
                write_file_notes(memory.store)
    if dry_run:
        _print_plan(stale, groups if with_model else [])
    if summarise and not with_model:
        _print_local(reason, groups, dry_run)
    if dry_run and with_model:
        done, summaries = {i for g in groups for i in g.ids}, len(groups)
    archived = len([o for o in stale if o.id not in left])
    print(_totals(settings, dry_run, archived, len(folds), (len(done), summaries), len(left)))


def _totals(
    settings: ObservationsConfig,
    dry_run: bool,
    archived: int,
    folded: int,
    summarised: tuple[int, int],
    left: int,
) -> str:
    """The last line: how many were (or would be) archived, summarised into how many new ones,
    folded, and left as they were."""
    verb = ("would archive", "would fold") if dry_run else ("archived", "folded")
    line = (
        f"{verb[0]} {_plural(archived, 'observation')} not recalled for "
        f"{settings.stale_after_days} days with importance <= {settings.stale_max_importance}"
    )
    members, summaries = summarised
    if members:
        line += (
            f" ({members} of them {'to be ' if dry_run else ''}summarised into "
            f"{_plural(summaries, 'new observation')}"
            + (f", {_plural(summaries, 'model call')}" if dry_run else "")
            + ")"
        )
    line += f"; {verb[1]} {_plural(folded, 'near-duplicate')}"
    if left:
        line += f"; {left} stale left as they were (see above)"
    return line


def _print_plan(stale: list[Observation], groups: list[SummaryGroup]) -> None:
    """The dry run's lines: each summary a model would write, then each plain archive."""
    grouped = {i for g in groups for i in g.ids}
    for group in groups:
        print(f"would summarise {group.describe()} ({group.kind}) into one new observation")
    for obs in stale:
        if obs.id not in grouped:
            print(f"would archive O{obs.id} {obs.title!r}")


def _print_local(reason: str, groups: list[SummaryGroup], dry_run: bool) -> None:
    """The one line that says summarising needs a model (the local provider has none)."""
    if not groups:
        print(f"summarising needs a model ({reason}); no stale observations share a subject")
        return
    members = sum(len(g.members) for g in groups)
    print(
        f"summarising needs a model ({reason}): {_plural(members, 'stale observation')} of "
        f"{_plural(len(groups), 'shared subject')} {'would be' if dry_run else 'are'} "
        "archived as they are"
    )
