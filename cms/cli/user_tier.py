"""The user tier on the command line: the --scope option of remember, forget and list, and the
user's side of those commands and of recall and get.

The user tier is one store under $CMS_HOME/user (cms.observations.access), shared by every
project; its items are U ids (U12). Errors are CmsError and reach the boundary in cms.cli; a bad
--scope is one line on stderr and exit 2, like any bad argument.
"""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from cms.console import print_json, print_remembered
from cms.errors import CmsError, StoreError
from cms.observations.access import ProjectMemory, open_user_memory
from cms.observations.export import observation_record
from cms.observations.model import NewObservation, Observation
from cms.observations.recall import RecalledObservation, format_observation_line, recall
from cms.observations.usertier import MARK, USER_PREFIX, project_wins, subject_text, user_number

SCOPES = ("project", "user")
ScopeOpt = Annotated[
    str,
    typer.Option(
        "--scope",
        help="project (this project's memory, the default) or user (your own preferences, "
        "shared by every project).",
    ),
]


def wants_user(scope: str) -> bool:
    """Whether --scope names the user tier; any other value than project or user ends the
    command with one line (exit 2)."""
    if scope not in SCOPES:
        print(f"cms: error: --scope must be project or user, not {scope!r}", file=sys.stderr)
        raise typer.Exit(2)
    return scope == "user"


def user_line(obs: Observation | RecalledObservation, now: float) -> str:
    """`U3 [preference · 2 days ago] Always answer in French (yours, every project)`."""
    o = obs.observation if isinstance(obs, RecalledObservation) else obs
    flags = " [archived]" if o.archived_at is not None else ""
    flags += f" [superseded by U{o.superseded_by}]" if o.superseded_by is not None else ""
    return f"{USER_PREFIX}{o.id} {format_observation_line(obs, now, None)} ({MARK}){flags}"


def user_record(obs: Observation) -> dict[str, object]:
    return observation_record(obs) | {"ref": f"{USER_PREFIX}{obs.id}", "tier": "user"}


def remember_user(new: NewObservation, session: str) -> None:
    """Store one item by hand in the user tier (made on this first write), without a branch."""
    from cms.observations.capture import capture_with_outcomes

    memory = open_user_memory(create=True)
    assert memory is not None
    with memory:
        outcomes = capture_with_outcomes(
            memory.store, [new], session=session, agent="cli", cwd=None
        )
    if not outcomes:
        raise StoreError("nothing to remember: the title is empty")
    print_remembered(outcomes[0].status, f"{USER_PREFIX}{outcomes[0].id}", MARK)


def user_numbers(ids: list[str]) -> list[int]:
    """The numbers of user tier ids given to --id (U12 or 12)."""
    numbers = []
    for item in ids:
        number = user_number(item) if not item.isdigit() else int(item)
        if number is None:
            raise CmsError(f"{item} is not an id of the user tier (they look like U12)")
        numbers.append(number)
    return numbers


def forget_user(ids: list[str], branch: str | None, session: str | None) -> None:
    """Delete items of the user tier for good, by id or by the session that stored them."""
    if branch:
        raise CmsError("the user tier has no branches: forget its items by --id or --session")
    numbers = user_numbers(ids)
    memory = open_user_memory()
    count = 0
    if memory is not None:
        with memory:
            count = memory.store.forget(ids=numbers, session=session)
    print(f"forgot {count} item{'s' if count != 1 else ''} of the user tier")


def list_user(as_json: bool, include_all: bool, kind: str | None, branch: str | None) -> None:
    """The user tier's items, oldest first (live ones unless include_all)."""
    if branch:
        raise CmsError("the user tier has no branches: list it without --branch")
    memory = open_user_memory()
    observations: list[Observation] = []
    if memory is not None:
        with memory:
            observations = memory.store.list_observations(
                include_archived=include_all, include_superseded=include_all, kind=kind
            )
    if as_json:
        print_json([user_record(o) | {"superseded_by": o.superseded_by} for o in observations])
        return
    if not observations:
        print("no preferences stored in the user tier (cms remember --scope user)")
        return
    now = time.time()
    for obs in observations:
        print(user_line(obs, now))


def recall_user(
    query: str,
    *,
    limit: int,
    kinds: list[str] | None,
    min_relevance: float,
    project: ProjectMemory | None,
    beside: list[RecalledObservation],
) -> list[RecalledObservation]:
    """The user tier's items relevant to query that the project does not overrule (a project
    observation found beside them or a rule in force there, of the same subject)."""
    memory = open_user_memory()
    if memory is None:
        return []
    with memory:
        found = recall(
            memory.store,
            query,
            scope=memory.scope,
            limit=limit,
            kinds=kinds,
            min_relevance=min_relevance,
            touch=False,
        )
        theirs = [subject_text(r.observation) for r in beside]
        if project is not None and found:
            from cms.observations.recall import in_force

            theirs += [subject_text(r.observation) for r in in_force(project.store, project.scope)]
        kept = project_wins(found, theirs, lambda r: subject_text(r.observation))
        if kept:
            memory.store.mark_recalled([r.observation.id for r in kept], time.time())
    return kept
