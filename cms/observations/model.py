"""The observation records (NewObservation, Observation), their row form and their cleaning.

Slotted classes and pure functions, standard library only (on the prompt hook's path): must not
open, query or write a database; store.py does.
"""

from __future__ import annotations

from cms import jsonio
from cms.errors import StoreError
from cms.observations.migrations import KINDS
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

MAX_TITLE = 200
MAX_BODY = 4000
MAX_FILES = 50
MAX_CONTEXT = 1000  # the words around an observation (sibling facts, the turn before)

COLUMNS = (
    'id, project, kind, title, body, files, importance, branch, "commit", shared_commit, '
    "session, agent, created_at, updated_at, last_recalled_at, superseded_by, archived_at, "
    "source, turn, context, use_count, summarised_into"
)


class NewObservation(Record, frozen=True):
    """A candidate observation, before it is checked, redacted, deduplicated and stored."""

    kind: str
    title: str
    body: str = ""
    files: tuple[str, ...] = ()
    importance: int = 3
    source: str | None = None  # "<session>/<fact id>" when promoted from a chat map's fact
    turn: int | None = None
    context: str = ""  # words around it that help find it (never shown as its text)

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", tuple(self.files))  # a list given by a caller


class Observation(Record):
    """A stored observation (times are Unix seconds). `shared_commit` means the capture commit
    was already on another branch (proves no merge)."""

    id: int
    project: str
    kind: str
    title: str
    body: str
    files: tuple[str, ...]
    importance: int
    branch: str | None
    commit: str | None
    shared_commit: bool
    session: str | None
    agent: str | None
    created_at: float
    updated_at: float
    last_recalled_at: float | None
    superseded_by: int | None
    archived_at: float | None
    source: str | None = None
    turn: int | None = None
    context: str = ""
    use_count: int = 0  # how often it was injected or returned by recall (last: last_recalled_at)
    summarised_into: int | None = None  # the summary that `cms gc` archived it behind

    def __repr__(self) -> str:
        return f"Observation(id={self.id!r}, kind={self.kind!r}, title={self.title!r}, branch={self.branch!r})"


def title_key(title: str) -> str:
    """The form of a title used to decide that two observations describe the same thing."""
    return " ".join(title.casefold().split()).strip(" .,:;!?-\u2014\u2013")


def row_to_observation(row: Sequence[Any]) -> Observation:
    try:
        files = tuple(str(f) for f in jsonio.loads(row[5] or "[]"))
    except (ValueError, TypeError):
        files = ()
    return Observation(
        id=row[0],
        project=row[1],
        kind=row[2],
        title=row[3],
        body=row[4],
        files=files,
        importance=row[6],
        branch=row[7],
        commit=row[8],
        shared_commit=bool(row[9]),
        session=row[10],
        agent=row[11],
        created_at=row[12],
        updated_at=row[13],
        last_recalled_at=row[14],
        superseded_by=row[15],
        archived_at=row[16],
        source=row[17],
        turn=row[18],
        context=row[19] or "",
        use_count=int(row[20] or 0),
        summarised_into=row[21],
    )


def fit_body(body: str, limit: int) -> str:
    """A body within limit, lines kept, shortened at a sentence boundary (never a cut word)."""
    if len(body) <= limit:
        return body
    from cms.excerpt import fit_text

    lines, kept = body.splitlines(), list[str]()
    for line in lines:
        room = limit - sum(len(k) + 1 for k in kept)
        if len(line) <= room:
            kept.append(line)
            continue
        if room > 1:
            kept.append(fit_text(line, room))
        break
    return "\n".join(kept)


def clean_new(new: NewObservation) -> NewObservation:
    """A candidate with a known kind, importance 1-5, trimmed texts; StoreError if it has no title."""
    kind = new.kind.strip().lower().replace("-", "_")
    if kind not in KINDS:
        kind = "other"
    from cms.excerpt import fit_text  # only when writing: off the prompt path

    title = fit_text(new.title, MAX_TITLE)
    if not title:
        raise StoreError("an observation needs a non-empty title")
    files = tuple(dict.fromkeys(f.strip() for f in new.files if f and f.strip()))[:MAX_FILES]
    return NewObservation(
        kind=kind,
        title=title,
        body=fit_body(new.body.strip(), MAX_BODY),
        files=files,
        importance=min(5, max(1, int(new.importance))),
        source=new.source,
        turn=new.turn,
        context=fit_text(" ".join(new.context.split()), MAX_CONTEXT),
    )
