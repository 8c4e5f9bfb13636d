"""Summarising stale observations with a model (`cms gc`): one call per group of one subject,
the answer validated, the summary stored with links both ways and the originals archived.

Glue between the store's groups (cms.observations.summaries) and a provider; each call runs
outside any write transaction. A bad answer leaves its group as it was; a failed call or a spent
budget stops the calls, leaving the rest as they were. Never deletes anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cms.config import Config
from cms.errors import ProviderError
from cms.observations.export import iso
from cms.observations.model import fit_body
from cms.observations.store import ObservationStore
from cms.observations.summaries import SummaryGroup, store_summary, summary_candidate
from cms.providers.base import ModelProvider
from cms.providers.model_calls import ask_for_summary
from cms.providers.summary_schema import SummaryAnswerError

SUMMARISED = "summarised"  # stored behind a summary
APART = "apart"  # the model found no common subject: archived one by one, as without a model
LEFT = "left"  # left as it was (a bad answer, a failed call, changed meanwhile): the next gc tries
ENTRY_BODY = 1500  # characters of one original's body sent to the model

Report = Callable[[str], None]


@dataclass(frozen=True)
class GroupOutcome:
    group: SummaryGroup
    status: str  # SUMMARISED, APART or LEFT
    summary_id: int | None = None


def group_entries(group: SummaryGroup) -> tuple[list[str], int]:
    """What the model reads of a group (each original with its id, date, importance, title,
    body and files, oldest first) and how many characters its titles and bodies hold."""
    entries = []
    for obs in group.members:
        lines = [f"O{obs.id} ({(iso(obs.created_at) or '')[:10]}, importance {obs.importance})"]
        lines.append(f"title: {obs.title}")
        if obs.body.strip():
            lines.append(f"body: {fit_body(obs.body.strip(), ENTRY_BODY)}")
        if obs.files:
            lines.append("files: " + ", ".join(obs.files))
        entries.append("\n".join(lines))
    return entries, sum(len(o.title) + len(o.body) for o in group.members)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summarise_groups(
    store: ObservationStore,
    groups: Sequence[SummaryGroup],
    provider: ModelProvider,
    config: Config,
    *,
    project: str,
    report: Report = print,
) -> list[GroupOutcome]:
    """Ask the model for each group's summary in turn and store the usable ones; report says
    one line per group (and one for the groups not asked after the calls stopped)."""
    outcomes: list[GroupOutcome] = []
    stopped = False
    unasked: list[SummaryGroup] = []
    for group in groups:
        if stopped:
            unasked.append(group)
            outcomes.append(GroupOutcome(group, LEFT))
            continue
        entries, source_chars = group_entries(group)
        try:
            proposed = ask_for_summary(
                provider,
                config,
                kind=group.kind,
                entries=entries,
                source_chars=source_chars,
                project=project,
            )
        except SummaryAnswerError as exc:
            report(f"cms: warning: left {group.names()} as they were: {exc}")
            outcomes.append(GroupOutcome(group, LEFT))
            continue
        except ProviderError as exc:  # the call failed or the budget is spent: stop calling
            report(f"cms: warning: left {group.names()} as they were: {exc}")
            outcomes.append(GroupOutcome(group, LEFT))
            stopped = True
            continue
        if proposed.skip is not None:
            report(
                f"kept {group.names()} apart (the model sees no common subject: "
                f"{proposed.skip}); archived one by one"
            )
            outcomes.append(GroupOutcome(group, APART))
            continue
        summary = summary_candidate(group, proposed.title, proposed.body)
        summary_id = store_summary(store, group, summary, now=time.time())
        if summary_id is None:
            report(f"left {group.names()} as they were: changed since the plan")
            outcomes.append(GroupOutcome(group, LEFT))
            continue
        report(f"summarised {group.describe()} into O{summary_id} {summary.title!r}")
        outcomes.append(GroupOutcome(group, SUMMARISED, summary_id))
    if unasked:
        members = sum(len(g.members) for g in unasked)
        report(
            f"cms: warning: model calls stopped: {_plural(len(unasked), 'more group')} "
            f"({_plural(members, 'observation')}) left as they were for the next gc"
        )
    return outcomes
