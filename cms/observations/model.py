"""The observation records (NewObservation, Observation), their row form and their cleaning.

Slotted classes and pure functions, standard library only (on the prompt hook's path): must not
open, query or write a database; store.py does.
"""

from __future__ import annotations

import json
import re

from cms.errors import StoreError
from cms.observations.migrations import KINDS

TYPE_CHECKING = False  # typing costs the prompt hook milliseconds; mypy reads these
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
    "source, turn, context"
)


class NewObservation:
    """A candidate observation, before it is checked, redacted, deduplicated and stored.

    A plain slotted class (building a dataclass costs milliseconds on the prompt path); treat
    instances as immutable.
    """

    __slots__ = ("body", "context", "files", "importance", "kind", "source", "title", "turn")

    def __init__(
        self,
        kind: str,
        title: str,
        body: str = "",
        files: tuple[str, ...] = (),
        importance: int = 3,
        *,
        source: str | None = None,
        turn: int | None = None,
        context: str = "",
    ) -> None:
        self.kind = kind
        self.title = title
        self.body = body
        self.files = tuple(files)
        self.importance = importance
        self.source = source  # "<session>/<fact id>" when promoted from a chat map's fact
        self.turn = turn
        self.context = context  # words around it that help find it (never shown as its text)

    def _values(self) -> tuple[object, ...]:
        return (self.kind, self.title, self.body, self.files, self.importance, self.source)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NewObservation) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return (
            f"NewObservation(kind={self.kind!r}, title={self.title!r}, body={self.body!r}, "
            f"files={self.files!r}, importance={self.importance!r}, source={self.source!r})"
        )


class Observation:
    """A stored observation (times are Unix seconds); treat instances as immutable.

    A plain slotted class: a dataclass would pull its machinery onto the prompt path.
    `shared_commit` means the capture commit was already on another branch (proves no merge).
    """

    __slots__ = (
        "agent",
        "archived_at",
        "body",
        "branch",
        "commit",
        "context",
        "created_at",
        "files",
        "id",
        "importance",
        "kind",
        "last_recalled_at",
        "project",
        "session",
        "shared_commit",
        "source",
        "superseded_by",
        "title",
        "turn",
        "updated_at",
    )

    def __init__(
        self,
        *,
        id: int,
        project: str,
        kind: str,
        title: str,
        body: str,
        files: tuple[str, ...],
        importance: int,
        branch: str | None,
        commit: str | None,
        shared_commit: bool,
        session: str | None,
        agent: str | None,
        created_at: float,
        updated_at: float,
        last_recalled_at: float | None,
        superseded_by: int | None,
        archived_at: float | None,
        source: str | None = None,
        turn: int | None = None,
        context: str = "",
    ) -> None:
        self.id = id
        self.project = project
        self.kind = kind
        self.title = title
        self.body = body
        self.files = files
        self.importance = importance
        self.branch = branch
        self.commit = commit
        self.shared_commit = shared_commit
        self.session = session
        self.agent = agent
        self.created_at = created_at
        self.updated_at = updated_at
        self.last_recalled_at = last_recalled_at
        self.superseded_by = superseded_by
        self.archived_at = archived_at
        self.source = source
        self.turn = turn
        self.context = context

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in _OBSERVATION_FIELDS)

    def replace(self, **changes: object) -> Observation:
        """A copy with some fields changed."""
        values = dict(zip(_OBSERVATION_FIELDS, self._values(), strict=True))
        values.update(changes)
        return Observation(**values)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Observation) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"Observation(id={self.id!r}, kind={self.kind!r}, title={self.title!r}, branch={self.branch!r})"


_OBSERVATION_FIELDS = (
    "id",
    "project",
    "kind",
    "title",
    "body",
    "files",
    "importance",
    "branch",
    "commit",
    "shared_commit",
    "session",
    "agent",
    "created_at",
    "updated_at",
    "last_recalled_at",
    "superseded_by",
    "archived_at",
    "source",
    "turn",
    "context",
)


def title_key(title: str) -> str:
    """The form of a title used to decide that two observations describe the same thing."""
    return re.sub(r"\s+", " ", title.casefold()).strip(" .,:;!?-\u2014\u2013")


def row_to_observation(row: Sequence[Any]) -> Observation:
    try:
        files = tuple(str(f) for f in json.loads(row[5] or "[]"))
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
