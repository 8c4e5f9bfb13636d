"""Which captured candidates belong to the user tier, and storing them there.

A standing preference whose wording is the user's own (`wording.is_personal`: "I prefer ...",
"never ask me ...", "always answer in French") goes to the user's store, shared by every
project; everything else stays with the project. Off the fast path (worker, CLI); knows nothing
of hooks, providers or the CLI.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from cms.language.kinds import STANDING_KINDS
from cms.language.wording import is_personal
from cms.observations.access import open_user_memory
from cms.observations.capture import CaptureOutcome, capture_with_outcomes
from cms.observations.matching import tidy_text_indexes
from cms.observations.model import NewObservation


def is_personal_candidate(new: NewObservation) -> bool:
    """A preference or decision the user holds for every project: a fact's own words (its title
    is only its topic), else the title and body a model or a person wrote."""
    if new.kind not in STANDING_KINDS:
        return False
    text = new.body if new.source and new.body.strip() else f"{new.title}. {new.body}"
    return is_personal(text)


def split_personal(
    candidates: Sequence[NewObservation],
) -> tuple[list[NewObservation], list[NewObservation]]:
    """(the project's candidates, the user's own), each in the order given; the user's lose
    their context (the prompt of the project's chat that stated them)."""
    project: list[NewObservation] = []
    personal: list[NewObservation] = []
    for candidate in candidates:
        if is_personal_candidate(candidate):  # without the project's prompt around it: there
            personal.append(candidate.replace(context=""))  # it would match that project's talk
        else:
            project.append(candidate)
    return project, personal


def capture_personal(
    candidates: Sequence[NewObservation],
    *,
    session: str | None,
    agent: str | None,
    now: float | None = None,
) -> list[CaptureOutcome]:
    """Store candidates in the user tier (made on this first write) through the capture rules of
    any store (redacted, deduplicated, a changed value superseding the older one), without a
    branch: they hold wherever the user works."""
    if not candidates:
        return []
    memory = open_user_memory(create=True)
    if memory is None:  # pragma: no cover - create=True always opens
        return []
    with memory:
        outcomes = capture_with_outcomes(
            memory.store,
            candidates,
            session=session,
            agent=agent,
            cwd=None,
            now=time.time() if now is None else now,
        )
        memory.store.write(tidy_text_indexes)
        return outcomes
