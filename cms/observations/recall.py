"""Recall: the observations relevant to a query, visible on the current branch, best first.

Owns the score formula (the shared text relevance of cms.observations.matching combined with
importance and age; see docs/observations.md), the paging of candidates, newest-only for
superseded pairs, the session-start briefing and the one-line rendering of an observation.
Reads through ObservationStore; knows nothing of hooks, the CLI or providers.
"""

from __future__ import annotations

import time

from cms.language.kinds import STANDING_KINDS
from cms.observations.matching import (
    MatchPlan,
    match_condition,
    plan_matches,
    query_terms,
    text_relevance,
)
from cms.observations.model import COLUMNS, Observation, row_to_observation, title_key
from cms.observations.overrides import newer_versions, version_here
from cms.observations.scope import BranchScope
from cms.observations.store import ObservationStore
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Mapping, Sequence

    from cms.observations.vectors import QueryMeaning

# Column weights for bm25(): title, body, files, context (the words around an observation: they
# help find it, but weigh less than its own). The context weight is chosen by cross-validation
# over conversations in bench/locomo_bench.py.
CONTEXT_WEIGHT = 0.5
WEIGHTS = (2.0, 1.0, 1.5, CONTEXT_WEIGHT)
HALF_LIFE_DAYS = 120.0
PAGE_MIN = 30  # BM25 hits re-scored per page
PAGE_PER_RESULT = 6
MAX_CANDIDATES = 2000
DATE_DAMPING = 0.5  # outside every date the query names
IN_FORCE_POOL = 80  # standing rules read before branch visibility filters them
USE_WEIGHT = 0.05  # uses move the ranking by at most 5%, as importance and age by 10% each
USE_HALF = 5


class RecalledObservation(Record):
    """One recall result."""

    observation: Observation
    score: float  # the final ranking score, 0..1
    relevance: float  # the text match alone, 0..1
    visibility: str  # why it is visible here (see BranchScope.visibility)

    def __repr__(self) -> str:
        return (
            f"RecalledObservation(id={self.observation.id}, score={self.score:.3f}, "
            f"relevance={self.relevance:.3f}, visibility={self.visibility!r})"
        )


def usage(obs: Observation) -> float:
    """0 for an item never injected or returned, a half at USE_HALF uses, towards 1 after."""
    uses = max(0, obs.use_count)
    return uses / (uses + USE_HALF)


def recency(obs: Observation, now: float) -> float:
    """1 for today, halving every HALF_LIFE_DAYS since the observation was last updated."""
    age_days = max(0.0, now - obs.updated_at) / 86400.0
    return float(0.5 ** (age_days / HALF_LIFE_DAYS))


def _text_of(obs: Observation) -> str:
    return f"{obs.title}\n{obs.body}\n{' '.join(obs.files)}".casefold()


def _context_of(obs: Observation) -> str:
    return obs.context.casefold()


def score_hits(
    hits: Sequence[tuple[Observation, float]],
    terms: Sequence[str],
    now: float,
    windows: Sequence[tuple[float, float]] = (),
    plan: MatchPlan | None = None,
) -> list[tuple[Observation, float, float]]:
    """(observation, score, relevance) for FTS5 hits (bm25() values, negative is better).

    relevance = coverage * (0.5 + 0.5 * strength), where strength = s / (s + BM25_HALF) with
    s = -bm25, and coverage is the share of query terms the observation holds, each term
    weighted by its rarity among the hits (see term_weights).
    score = relevance * min(1, 0.8 + 0.1 * importance' + 0.1 * recency + USE_WEIGHT * use'),
    times DATE_DAMPING when the query names dates and the observation was captured outside all
    of them; use' = uses / (uses + USE_HALF) (an item never used scores as before uses were
    counted).
    """
    relevances = text_relevance(
        [_text_of(obs) for obs, _ in hits],
        None if plan is not None and plan.newest_first else [b for _, b in hits],
        terms,
        contexts=[_context_of(obs) for obs, _ in hits],
        plan=plan,
    )
    scored = []
    for (obs, _bm25), relevance in zip(hits, relevances, strict=True):
        importance = (obs.importance - 1) / 4.0
        prior = 0.8 + 0.1 * importance + 0.1 * recency(obs, now) + USE_WEIGHT * usage(obs)
        score = relevance * min(1.0, prior)
        if windows and not any(lo <= obs.created_at < hi for lo, hi in windows):
            score *= DATE_DAMPING
        scored.append((obs, score, relevance))
    return scored


def _files_match(wanted: Sequence[str], obs: Observation) -> bool:
    for want in wanted:
        w = want.strip().lstrip("./")
        for have in obs.files:
            h = have.strip().lstrip("./")
            if w and h and (h == w or h.endswith("/" + w) or w.endswith("/" + h)):
                return True
    return False


def _candidates(
    store: ObservationStore,
    expr: str,
    count: int,
    offset: int,
    weights: Sequence[float],
    newest_first: bool = False,
) -> list[tuple[Observation, float]]:
    """One page of FTS5 hits with their bm25() value, best first (see matching.match_condition
    for the rows an expression may match); or, newest_first, the newest matches with no value
    (0.0: score_hits computes it), archived and superseded ones included."""
    cols = ", ".join(f"o.{c.strip()}" for c in COLUMNS.split(","))
    if newest_first:
        params: tuple[object, ...] = (expr, count, offset)
        sql = (
            "WITH hits AS (SELECT rowid AS id FROM observations_fts WHERE observations_fts "
            "MATCH ? ORDER BY rowid DESC LIMIT ? OFFSET ?) "
            f"SELECT {cols}, 0.0 FROM hits JOIN observations o ON o.id = hits.id "
            "ORDER BY o.id DESC"
        )
    else:
        condition, matched = match_condition("observations_fts", expr)
        params = (*weights, *matched, count, offset)
        sql = (
            "WITH hits AS (SELECT rowid AS id, bm25(observations_fts, ?, ?, ?, ?) AS rank "
            f"FROM observations_fts WHERE {condition} ORDER BY rank LIMIT ? OFFSET ?) "
            f"SELECT {cols}, hits.rank FROM hits JOIN observations o ON o.id = hits.id "
            "ORDER BY hits.rank"
        )

    def run(conn: sqlite3.Connection) -> list[tuple[Observation, float]]:
        rows = conn.execute(sql, params)
        return [(row_to_observation(r), float(r[-1])) for r in rows]

    return store.read(run)


def _select(
    ranked: Sequence[tuple[Observation, float, float]],
    scope: BranchScope,
    limit: int,
    versions: Mapping[int, Sequence[Observation]] | None = None,
    admits: Callable[[Observation], bool] | None = None,
) -> list[RecalledObservation]:
    """Walk best first and keep visible ones; of observations with the same branch, kind and
    title only the newest visible one is kept (in the place of the best of them). One that a
    branch visible here changed (versions, see overrides.py) gives way to that later version,
    in its place (nothing when admits refuses it); nothing is kept twice."""
    groups: dict[tuple[object, ...], list[tuple[Observation, float, float]]] = {}
    for item in ranked:
        obs = item[0]  # a fact's observation is titled by its topic: its own identity
        key = (obs.id,) if obs.source else (obs.branch, obs.kind, title_key(obs.title))
        groups.setdefault(key, []).append(item)
    chosen: list[RecalledObservation] = []
    taken: set[int] = set()
    for members in groups.values():  # dicts keep insertion order: best first
        for obs, score, relevance in sorted(members, key=lambda m: -m[0].updated_at):
            why = scope.visibility(obs.branch, obs.commit, obs.shared_commit)
            if why is None:
                continue
            shown, why = version_here(obs, why, versions, scope) if versions else (obs, why)
            if shown.id not in taken and (shown is obs or admits is None or admits(shown)):
                taken.add(shown.id)
                chosen.append(RecalledObservation(shown, score, relevance, why))
            break
        if len(chosen) >= limit:
            break
    return chosen


def _versions_of(
    store: ObservationStore,
    items: Sequence[tuple[Observation, float, float]],
    versions: dict[int, list[Observation]],
    asked: set[int],
) -> dict[int, list[Observation]]:
    """versions (see overrides.newer_versions) grown by those of items not asked for yet."""
    new = [obs.id for obs, _score, _rel in items if obs.id not in asked]
    asked.update(new)
    versions.update(newer_versions(store, new))
    return versions


def recall(
    store: ObservationStore,
    query: str,
    *,
    scope: BranchScope,
    limit: int = 5,
    kinds: Sequence[str] | None = None,
    files: Sequence[str] | None = None,
    min_relevance: float = 0.0,
    now: float | None = None,
    touch: bool = True,
    weights: Sequence[float] = WEIGHTS,
    meaning: QueryMeaning | None = None,
    semantic_weight: float = 1.0,
) -> list[RecalledObservation]:
    """The observations best matching query that are visible in scope, best first.

    Only those scoring at least min_relevance are returned; files, when given, keeps only
    observations about one of those files. Marks the returned ones as recalled (one UPDATE).
    weights are bm25()'s column weights (title, body, files, context). meaning (what the
    semantic index says of the query) fuses it in by score (fusion.fuse_semantic).
    """
    now = time.time() if now is None else now
    windows: list[tuple[float, float]] = []
    text = query
    if any(ch.isdigit() for ch in query):  # every date form names a day or a year: dates.py
        from cms.language.dates import query_dates  # is imported only then

        windows, text = query_dates(query)
    terms = query_terms(text + " " + " ".join(files or ()))
    if limit <= 0 or not (terms or meaning):
        return []
    first_page = max(PAGE_MIN, limit * PAGE_PER_RESULT)
    pool: dict[int, tuple[Observation, float]] = {}
    scored: list[tuple[Observation, float, float]] = []
    enough = False
    versions: dict[int, list[Observation]] = {}
    asked: set[int] = set()

    def admits(obs: Observation) -> bool:
        return (
            obs.archived_at is None
            and obs.superseded_by is None
            and (not kinds or obs.kind in kinds)
            and (not files or _files_match(files, obs))
        )

    plan = plan_matches(store, terms) if terms else None
    for expr in plan.expressions if plan is not None else ():
        newest_first = plan is not None and plan.newest_first
        page, offset = first_page, 0
        while True:
            hits = _candidates(store, expr, page, offset, weights, newest_first)
            for obs, bm25 in hits:
                if obs.id not in pool and admits(obs):
                    pool[obs.id] = (obs, bm25)
            scored = score_hits(list(pool.values()), terms, now, windows, plan)
            scored.sort(key=lambda item: (-item[1], -item[0].updated_at, item[0].id))
            _versions_of(store, scored, versions, asked)
            enough = len(_select(scored, scope, limit, versions, admits)) >= limit
            if enough or len(hits) < page or offset + page >= MAX_CANDIDATES:
                break  # more pages only help when branches hide many
            offset += page
            page = MAX_CANDIDATES - offset
        if enough:
            break
    scored = [item for item in scored if item[1] >= min_relevance]
    if meaning:
        from cms.observations.fusion import fuse_semantic

        scored = fuse_semantic(
            store, scored, meaning, semantic_weight, admits, windows, min_relevance, DATE_DAMPING
        )
    result = _select(scored, scope, limit, _versions_of(store, scored, versions, asked), admits)
    if touch and result:
        store.mark_recalled([r.observation.id for r in result], now)
    return result


def briefing(
    store: ObservationStore,
    scope: BranchScope,
    limit: int = 5,
    *,
    now: float | None = None,
    touch: bool = True,
    skip_kinds: Sequence[str] = (),
) -> list[RecalledObservation]:
    """The most important recent observations visible in scope, for the session start; kinds
    in skip_kinds (the rules the "in force" section shows) are left out."""
    now = time.time() if now is None else now
    if limit <= 0:
        return []
    live = "archived_at IS NULL AND superseded_by IS NULL"
    if skip_kinds:
        live += f" AND kind NOT IN ({', '.join('?' * len(skip_kinds))})"

    def run(conn: sqlite3.Connection, size: int) -> list[Observation]:
        rows = conn.execute(
            f"SELECT {COLUMNS} FROM observations WHERE {live} "
            "ORDER BY importance DESC, updated_at DESC LIMIT ?",
            (*skip_kinds, size),
        ).fetchall()
        rows += conn.execute(
            f"SELECT {COLUMNS} FROM observations WHERE {live} ORDER BY updated_at DESC LIMIT ?",
            (*skip_kinds, size),
        ).fetchall()
        return [row_to_observation(r) for r in rows]

    pool = max(20, limit * 4)
    versions: dict[int, list[Observation]] = {}
    asked: set[int] = set()
    admits: Callable[[Observation], bool] = lambda o: not o.archived_at and o.kind not in skip_kinds  # noqa: E731
    while True:
        found = store.read(lambda c: run(c, pool))  # noqa: B023 - called at once
        unique = {obs.id: obs for obs in found}
        ranked = [
            (obs, 0.6 * (obs.importance - 1) / 4.0 + 0.4 * recency(obs, now), 1.0)
            for obs in unique.values()
        ]
        ranked.sort(key=lambda item: (-item[1], -item[0].updated_at, item[0].id))
        _versions_of(store, ranked, versions, asked)
        result = _select(ranked, scope, limit, versions, admits)
        if len(result) >= limit or len(found) < 2 * pool or pool >= 5000:
            break
        pool *= 4  # branches hid too many: look further
    if touch and result:
        store.mark_recalled([r.observation.id for r in result], now)
    return result


def outranks(older: str, newer: str) -> bool:
    """Whether an item of kind `older` stands above a newer one of kind `newer`: a standing
    kind (a rule, a decision: what is in force) is replaced only by another standing one, for
    observations and facts alike (the agent's narration never replaces the user's rule)."""
    return older in STANDING_KINDS and newer not in STANDING_KINDS


def in_force(
    store: ObservationStore, scope: BranchScope, *, now: float | None = None
) -> list[RecalledObservation]:
    """The project's standing rules (preferences and decisions, live and visible in scope),
    most important first, then most recently confirmed."""
    now = time.time() if now is None else now
    kinds = ", ".join(f"'{k}'" for k in STANDING_KINDS)  # as the partial index 007 names them
    rows = store.read(
        lambda c: c.execute(
            f"SELECT {COLUMNS} FROM observations INDEXED BY observations_in_force WHERE "
            f"archived_at IS NULL AND superseded_by IS NULL AND kind IN ({kinds}) "
            "ORDER BY importance DESC, updated_at DESC LIMIT ?",
            (IN_FORCE_POOL,),
        ).fetchall()
    )
    ranked = [(row_to_observation(r), 1.0, 1.0) for r in rows]
    versions = _versions_of(store, ranked, {}, set())
    return _select(
        ranked, scope, IN_FORCE_POOL, versions, lambda o: o.kind in STANDING_KINDS and not o.archived_at
    )  # fmt: skip


def format_age(seconds: float) -> str:
    """'just now', '5 minutes ago', 'yesterday', '3 days ago', '2 weeks ago', '4 months ago'..."""
    units = (
        (365 * 86400, "year"),
        (30 * 86400, "month"),
        (7 * 86400, "week"),
        (86400, "day"),
        (3600, "hour"),
        (60, "minute"),
    )
    if seconds < 60:
        return "just now"
    if 86400 <= seconds < 2 * 86400:
        return "yesterday"
    for size, name in units:
        if name == "week" and seconds < 14 * 86400:
            continue
        if name == "month" and seconds < 60 * 86400:
            continue
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {name}{'s' if count != 1 else ''} ago"
    return "just now"


def observation_text(obs: Observation, limit: int | None = None) -> str:
    """Title, then body when it adds to it (a chat's fact: the fact alone, its title is only
    its topic); over limit, the title and the body's first whole sentence (never a word cut:
    `cms get` prints the rest)."""
    title = " ".join(obs.title.split())
    body = " ".join(obs.body.split())
    if obs.source and body:
        return body
    if not body or body.casefold() == title.casefold():
        return title
    text = f"{title} \u2014 {body}"
    if limit is None or len(text) <= limit:
        return text
    from cms.excerpt import first_sentence

    return f"{title} \u2014 {first_sentence(body)} [\u2026]"


def format_observation_line(
    obs: Observation | RecalledObservation,
    now: float,
    current_branch: str | None,
    *,
    limit: int | None = None,
) -> str:
    """One line: `[decision · 3 days ago] Title — body (branch: feat-x)`.

    The branch is shown only when it is not the current one; over limit characters the body
    is shortened to its first whole sentence.
    """
    o = obs.observation if isinstance(obs, RecalledObservation) else obs
    line = f"[{o.kind} \u00b7 {format_age(now - o.updated_at)}] {observation_text(o, limit)}"
    if o.branch is not None and o.branch != current_branch:
        line += f" (branch: {o.branch})"
    return line
