"""`cms team sync` and `cms team status`: the team database (docs/team.md) by hand.

`sync` pushes what this machine stored for the project and pulls what others stored, now (the
worker does the same in the background); `status` says where the project syncs, what is not
pushed yet, and when it last synced or failed. The password is never printed. Errors are
CmsError (one line, exit 1) and reach the boundary in cms.cli.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cms.config import team_url
from cms.console import config_checked, load_command_config

team_app = typer.Typer(
    name="team", help="Memory shared across machines through PostgreSQL.", no_args_is_help=True
)

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]


def _folder(cwd: Path | None) -> str:
    return str((cwd or Path.cwd()).expanduser().resolve())


def sync(cwd: CwdOpt = None) -> None:
    """Push this project's new memory to the team database and pull what other machines stored
    (and the user tier, with [team] share_user)."""
    from cms.team.sync import sync_project
    from cms.worker.projectsync import give_meanings, update_file_notes

    folder = _folder(cwd)
    reports = sync_project(folder, load_command_config())
    give_meanings(folder)  # what was pulled, ready for the hooks as the worker leaves it
    update_file_notes(folder)
    for report in reports:
        print(f"synced {report.line()}")


def status(cwd: CwdOpt = None) -> None:
    """Where this project syncs, what is waiting to be pushed, the last sync and error."""
    from cms.observations.access import open_project_memory
    from cms.team.sync import status_lines

    url = team_url(load_command_config())
    memory = open_project_memory(_folder(cwd), create=False)
    if memory is None:
        print(f"team database: {'set' if url else '(not set)'}; this project has no memory yet")
        return
    with memory:
        for line in status_lines(memory.store, url):
            print(line)


def register(app: typer.Typer) -> None:
    team_app.command("sync")(config_checked(sync))
    team_app.command("status")(config_checked(status))
    app.add_typer(team_app)
