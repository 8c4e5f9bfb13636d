"""`cms gc`: upkeep of the project's observations. Near-duplicates fold into the newest and
stale low-importance ones are archived; nothing is ever deleted.

Plans with cms.observations.upkeep and prints the plan or what was done; errors are CmsError and
reach the boundary in cms.cli.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from cms.console import load_command_config
from cms.observations.access import open_project_memory, read_project_memory
from cms.observations.filenotes import write_file_notes
from cms.observations.model import Observation
from cms.project import identify_project

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]


def gc(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan and change nothing.")
    ] = False,
    cwd: CwdOpt = None,
) -> None:
    """Upkeep: archive observations not recalled for stale_after_days (config section
    observations) whose importance is at most stale_max_importance, and fold near-duplicates of
    one subject into the newest. Nothing is deleted: archived ones stay in the store, folded
    ones are the newer one's history (`cms get`)."""
    from cms.observations.upkeep import (
        apply_folds,
        archive_observations,
        fold_plan,
        stale_observations,
    )

    settings = load_command_config().observations
    folder = cwd or Path.cwd()
    if dry_run:  # a plan opens the store read-only: not even a migration runs
        memory = read_project_memory(identify_project(folder).id, str(folder))
    else:
        memory = open_project_memory(folder, create=False)
    now = time.time()
    stale: list[Observation] = []
    folds = []
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
            if not dry_run:
                apply_folds(memory.store, folds)
                archive_observations(memory.store, [o.id for o in stale], now)
                write_file_notes(memory.store)
    verb = ("would fold", "would archive") if dry_run else ("folded", "archived")
    for fold in folds:
        print(f"{verb[0]} {fold.describe()}")
    if dry_run:
        for obs in stale:
            print(f"{verb[1]} #{obs.id} {obs.title!r}")
    print(
        f"{verb[1]} {len(stale)} observation{'s' if len(stale) != 1 else ''} not recalled for "
        f"{settings.stale_after_days} days with importance <= {settings.stale_max_importance}; "
        f"{verb[0]} {len(folds)} near-duplicate{'s' if len(folds) != 1 else ''}"
    )
