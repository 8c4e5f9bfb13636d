"""`cms audit`: check a project's store and say what is wrong, item by item.

Prints one line per finding (cms.observations.audit) and a total; `--quiet` prints nothing.
Exit 0 when the store is sound (or the project has none), 1 when something is wrong. Never
repairs: `cms forget`, `cms edit` and `cms gc` do, when the user decides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cms.console import config_checked
from cms.errors import CmsError
from cms.observations.audit import Finding, audit_store
from cms.project import identify_project

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print nothing; the exit code says (for scripts).")
]


def audit(cwd: CwdOpt = None, quiet: QuietOpt = False) -> None:
    """Check the project's memory: links to missing or circular versions, items whose files are
    gone, duplicates, and the database's integrity. Exit 1 when something is wrong."""
    from cms.observations.access import read_project_memory

    folder = (cwd or Path.cwd()).expanduser().resolve()
    project = identify_project(folder)
    try:
        memory = read_project_memory(project.id, str(folder))
        if memory is None:
            findings: list[Finding] = []
        else:
            with memory:
                findings = audit_store(memory.store, project.root)
    except CmsError as exc:  # a store that cannot be opened is the first thing wrong with it
        findings = [Finding("integrity", "", str(exc))]
    if not quiet:
        for finding in findings:
            print(finding.line())
        count = len(findings)
        print(f"{count} problem{'s' if count != 1 else ''} found" if count else "no problems found")
    if findings:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("audit")(config_checked(audit))
