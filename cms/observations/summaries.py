"""Summaries of stale observations (`cms gc` with a model): which stale observations share one
subject (groups), and storing a group's summary with links both ways (the originals archived,
each pointing to its summary). Nothing is deleted here.

Store work only: the text of a summary is the caller's (a model's answer); knows nothing of
providers, the CLI or the worker.
"""

from __future__ import annotations

from cms.language.subject import canonical, subject_words
from cms.observations.model import (
    COLUMNS,
    NewObservation,
    Observation,
    clean_new,
    row_to_observation,
)
from cms.observations.store import ObservationStore, insert_observation
from cms.record import Record
from cms.transcripts.redact import redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

MIN_GROUP = 2  # a summary replaces at least two observations
MAX_GROUP = 10  # and at most this many (one model call reads them all)
MAX_POSTINGS = 200  # a title word or file shared by more stale ones names no subject
SUMMARY_SESSION = "gc"  # the session and agent recorded with a summary


class SummaryGroup(Record, frozen=True):
    """Stale observations of one kind and branch about one subject, oldest first."""

    members: tuple[Observation, ...]

    @property
    def kind(self) -> str:
        return self.members[0].kind

    @property
    def branch(self) -> str | None:
        return self.members[0].branch

    @property
    def ids(self) -> list[int]:
        return [o.id for o in self.members]

    def names(self) -> str:
        """`O12, O15, O19`"""
        return ", ".join(f"O{o.id}" for o in self.members)

    def describe(self) -> str:
        """`O12 'Title', O15 'Other title'`"""
        return ", ".join(f"O{o.id} {o.title!r}" for o in self.members)


def _title_words(obs: Observation) -> frozenset[str]:
    return frozenset(canonical(w) for w in subject_words(obs.title))


def _strength(a: Observation, b: Observation, words: dict[int, frozenset[str]]) -> int:
    """How strongly two stale observations of one kind and branch share a subject: shared files
    count double, shared title words once; 0 when they share no file and the shared title words
    are not most of the shorter title ("Flaky tests in CI" and "CI: flaky upload test" share a
    subject; "Storage: database" and "Storage: maps" do not)."""
    files = len(set(a.files) & set(b.files))
    wa, wb = words[a.id], words[b.id]
    shared = len(wa & wb)
    if not files and (not shared or 2 * shared <= min(len(wa), len(wb))):
        return 0
    return 2 * files + shared


def _candidate_pairs(
    bucket: Sequence[Observation], words: dict[int, frozenset[str]]
) -> set[tuple[int, int]]:
    """Pairs of one bucket that share a title word or a file (an inverted index: the work
    grows with what is shared, not with the square of the bucket)."""
    postings: dict[str, list[int]] = {}
    for index, obs in enumerate(bucket):
        for key in {*(f"w:{w}" for w in words[obs.id]), *(f"f:{f}" for f in obs.files)}:
            postings.setdefault(key, []).append(index)
    pairs: set[tuple[int, int]] = set()
    for members in postings.values():
        if len(members) > MAX_POSTINGS:
            continue
        for i, first in enumerate(members):
            pairs.update((first, second) for second in members[i + 1 :])
    return pairs


def _clusters(count: int, edges: list[tuple[int, int, int]], max_group: int) -> list[list[int]]:
    """Indexes joined by (strength, i, j) edges, strongest first (ties by position), no cluster
    past max_group: a union-find that refuses a join that would grow one too large."""
    parent = list(range(count))
    size = [1] * count

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for _strength, i, j in sorted(edges, key=lambda e: (-e[0], e[1], e[2])):
        ri, rj = root(i), root(j)
        if ri != rj and size[ri] + size[rj] <= max_group:
            parent[rj] = ri
            size[ri] += size[rj]
    joined: dict[int, list[int]] = {}
    for index in range(count):
        joined.setdefault(root(index), []).append(index)
    return list(joined.values())


def summary_groups(
    stale: Sequence[Observation], *, max_group: int = MAX_GROUP
) -> list[SummaryGroup]:
    """The groups of at least MIN_GROUP stale observations worth one summary each: one kind and
    branch, linked by shared files or most of their title words. The strongest links join
    first and no group grows past max_group (the same input always gives the same groups).
    Groups come in the order of their oldest member's id."""
    buckets: dict[tuple[str, str | None], list[Observation]] = {}
    for obs in sorted(stale, key=lambda o: o.id):
        buckets.setdefault((obs.kind, obs.branch), []).append(obs)
    words = {o.id: _title_words(o) for o in stale}
    groups: list[SummaryGroup] = []
    for bucket in buckets.values():
        edges = [
            (strength, i, j)
            for i, j in _candidate_pairs(bucket, words)
            if (strength := _strength(bucket[i], bucket[j], words))
        ]
        for cluster in _clusters(len(bucket), edges, max_group):
            if len(cluster) >= MIN_GROUP:
                members = sorted((bucket[i] for i in cluster), key=lambda o: (o.created_at, o.id))
                groups.append(SummaryGroup(tuple(members)))
    return sorted(groups, key=lambda g: min(g.ids))


def summary_candidate(group: SummaryGroup, title: str, body: str) -> NewObservation:
    """The summary of a group as it will be stored: the given title and body (redacted), the
    group's kind, every file its members name, their highest importance, and their titles as
    context (words that find it, never shown as its text)."""
    files = tuple(dict.fromkeys(f for o in group.members for f in o.files))
    titles = "; ".join(o.title for o in group.members)
    return clean_new(
        NewObservation(
            kind=group.kind,
            title=redact_text(title),
            body=redact_text(body),
            files=tuple(redact_text(f) for f in files),
            importance=max(o.importance for o in group.members),
            context=redact_text(f"summary of {group.names()}: {titles}"),
        )
    )


def _unchanged(conn: sqlite3.Connection, group: SummaryGroup) -> bool:
    """Whether every member is still as planned: live, not archived, not touched since."""
    marks = ",".join("?" * len(group.members))
    rows = conn.execute(
        "SELECT id, updated_at, last_recalled_at, archived_at, superseded_by "
        f"FROM observations WHERE id IN ({marks})",
        group.ids,
    ).fetchall()
    now = {row[0]: row[1:] for row in rows}
    return all(
        now.get(o.id) == (o.updated_at, o.last_recalled_at, None, None) for o in group.members
    )


def store_summary(
    store: ObservationStore, group: SummaryGroup, summary: NewObservation, *, now: float
) -> int | None:
    """Store the summary (on the group's branch, at the commit of its newest member) and archive
    the members with a link to it, in one write transaction. The summary carries the members'
    uses. Returns its id; None, with nothing written, when a member changed since the plan
    (recalled, revised, archived or superseded in between)."""
    newest = group.members[-1]

    def run(conn: sqlite3.Connection) -> int | None:
        if not _unchanged(conn, group):
            return None
        summary_id = insert_observation(
            conn,
            store.project,
            summary,
            branch=group.branch,
            commit=newest.commit,
            shared_commit=newest.shared_commit,
            session=SUMMARY_SESSION,
            agent=SUMMARY_SESSION,
            created_at=now,
        )
        conn.execute(
            "UPDATE observations SET use_count = ? WHERE id = ?",
            (sum(o.use_count for o in group.members), summary_id),
        )
        marks = ",".join("?" * len(group.members))
        conn.execute(
            f"UPDATE observations SET archived_at = ?, summarised_into = ? WHERE id IN ({marks})",
            (now, summary_id, *group.ids),
        )
        return summary_id

    return store.write(run)


def summarised_originals(store: ObservationStore, summary_id: int) -> list[Observation]:
    """The observations a summary was written from, oldest first (empty for any other one)."""
    rows = store.read(
        lambda c: c.execute(
            f"SELECT {COLUMNS} FROM observations WHERE summarised_into = ? ORDER BY created_at, id",
            (summary_id,),
        ).fetchall()
    )
    return [row_to_observation(r) for r in rows]
