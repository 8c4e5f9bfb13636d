"""The user tier beside a project's memory: its ids (U12), how its items are marked, and which of
them a project overrules (when a project item and a user item speak of one subject, the
project's is sent and the user's is not).

Pure functions over records already read; standard library and light cms modules only (the
prompt hook imports it once the user's store exists). Opening the store is access.py's, routing
captures to it personal.py's.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import TypeVar

    from cms.observations.model import Observation
    from cms.observations.recall import RecalledObservation

    T = TypeVar("T")

USER_PREFIX = "U"  # "U12": item 12 of the user tier (a project's are "O12")
MARK = "yours, every project"  # how an injected or printed user item says where it comes from


def user_item_id(number: int) -> str:
    return f"{USER_PREFIX}{number}"


def user_number(item: str) -> int | None:
    """The number of a user tier id ("U12", "u12"); None for anything else."""
    if item[:1] not in ("U", "u"):
        return None
    rest = item[1:]
    return int(rest) if rest.isdigit() else None


def subject_text(obs: Observation) -> str:
    """What an observation states, for comparing subjects: a fact's own words (its title is
    only its topic), else its title and body."""
    body = obs.body.strip()
    if obs.source and body:
        return body
    return f"{obs.title}. {body}" if body else obs.title


def same_subject(mine: str, theirs: str) -> bool:
    """Whether two statements of different tiers speak of one subject: the supersession rule of
    subject.py either way round, or the same frame once the words that only place a rule in a
    project ("in this repo", "here") and the values ("French", 'e_', "Postgres 16") are set
    aside: "Always answer in French" and "In this repo, answer in English" both govern the
    answer's language."""
    from cms.language.subject import relation
    from cms.language.wording import without_place

    mine, theirs = without_place(mine), without_place(theirs)
    if relation(mine, theirs) is not None or relation(theirs, mine) is not None:
        return True
    frame = bare_frame(mine)
    return bool(frame) and frame == bare_frame(theirs)


def bare_frame(text: str) -> frozenset[str]:
    """What a statement is about without the values it names (subject.frame_of keeps a product
    or language name, "French", among its words; here it is the value)."""
    from cms.language.subject import canonical, frame_of, values_of

    named = {canonical(word) for value in values_of(text) for word in value.split()}
    return frame_of(text) - named


def project_wins(
    items: Iterable[T], project: Sequence[str], text_of: Callable[[T], str]
) -> list[T]:
    """The user items that no project statement overrules, in order (a shared frame word is
    checked first: most pairs have none)."""
    from cms.language.subject import frame_of
    from cms.language.wording import without_place

    theirs = [(frame_of(without_place(text)) | bare_frame(text), text) for text in project]
    kept: list[T] = []
    for item in items:
        text = text_of(item)
        frame = frame_of(without_place(text))
        if not any(frame & words and same_subject(text, other) for words, other in theirs):
            kept.append(item)
    return kept


def merge_rules(
    project: Sequence[RecalledObservation], user: Sequence[RecalledObservation]
) -> list[tuple[RecalledObservation, bool]]:
    """The rules in force of both tiers as (rule, is the user's), the user's that the project
    overrules left out; most important first, then most recently confirmed (the project's first
    on a tie)."""
    mine = project_wins(user, [subject_text(r.observation) for r in project], _rule_text)
    both = [(r, False) for r in project] + [(r, True) for r in mine]
    both.sort(key=lambda pair: (-pair[0].observation.importance, -pair[0].observation.updated_at))
    return both


def _rule_text(found: RecalledObservation) -> str:
    return subject_text(found.observation)
