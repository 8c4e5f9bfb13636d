"""Capture: turning candidate observations into stored ones, and a chat map's facts into candidates.

Owns the capture rules: redaction before anything is stored, the git branch and commit of the
capture, deduplication against the store (same kind and title on the same branch supersedes,
on another branch overrides for this one; a near-identical body is skipped or revives an
archived twin) and the local provider's promotion of map facts with a kind guessed from their
wording. Runs off the fast path (it may run git); knows nothing of hooks, the CLI or providers.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cms.errors import StoreError
from cms.observations.ids import fact_source
from cms.observations.matching import or_expression, query_terms
from cms.observations.model import NewObservation, clean_new, title_key
from cms.observations.overrides import pass_on_overrides, record_overrides
from cms.observations.recall import STANDING_KINDS
from cms.observations.scope import DEFAULT_NAMES, commit_is_shared, read_git_state, scope_from_state
from cms.observations.store import ObservationStore, insert_observation
from cms.observations.subject import CHANGED, SAME, frame_of, is_vague, relation, values_of
from cms.observations.wording import (
    has_literal,
    is_courtesy,
    is_directive,
    is_firm,
    is_personal,
    is_question,
    is_rule,
    is_specific,
)
from cms.transcripts.redact import redact_text

if TYPE_CHECKING:
    from cms.map.model import CorrelationMap
    from cms.observations.scope import BranchScope

NEAR_IDENTICAL = 0.9  # difflib ratio of normalised bodies from which two bodies are one


@dataclass(frozen=True)
class CapturePlace:
    """Where a capture happens: the branch and commit recorded with each observation."""

    branch: str | None  # None outside git or on a detached HEAD
    commit: str | None
    shared_commit: bool
    default_branches: frozenset[str]
    scope: BranchScope | None = None  # what is visible there (else: no branch, its own, default)

    def sees(self, branch: str | None, commit: str | None, shared: bool) -> bool:
        """Whether an observation of that branch is visible where this capture happens."""
        if branch is None or branch in (self.branch, *self.default_branches):
            return True
        return self.scope is not None and self.scope.is_visible(branch, commit, shared)


@dataclass(frozen=True)
class CaptureOutcome:
    id: int
    status: str  # "new", "superseded" (new, replacing older ones) or "duplicate" (kept the old)


def capture_place(cwd: str | Path | None) -> CapturePlace:
    """Branch, commit and whether that commit is shared with another branch (runs git once)."""
    state = read_git_state(cwd) if cwd is not None else None
    if state is None:
        return CapturePlace(None, None, False, frozenset(DEFAULT_NAMES))
    shared = False
    if state.branch is not None and state.branch not in state.default_branches:
        shared = commit_is_shared(state)
    return CapturePlace(
        state.branch, state.head, shared, state.default_branches, scope_from_state(state)
    )


def redact_new(new: NewObservation) -> NewObservation:
    return NewObservation(
        kind=new.kind,
        title=redact_text(new.title),
        body=redact_text(new.body),
        files=tuple(redact_text(f) for f in new.files),
        importance=new.importance,
        source=new.source,
        turn=new.turn,
        context=redact_text(new.context),
    )


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold()).strip()


def _near(a: str, b: str) -> bool:
    a, b = _normal(a), _normal(b)
    if a == b:
        return True
    if not a or not b:
        return False
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= NEAR_IDENTICAL


def _numbered_apart(a: str, b: str) -> bool:
    """Titles that say the same words but name other values ("note 17", "note 18")."""
    return frame_of(a) == frame_of(b) and values_of(a) != values_of(b)


def _relation(new: NewObservation, body: str, title: str) -> str | None:
    """How the candidate relates to a stored observation: SAME (a restatement: the same subject
    and the same values), CHANGED (the same subject, another value) or None. Bodies are what is
    compared; near-identical wording counts as the same subject, and a correction is never
    folded as a near-duplicate. Titles given by hand that differ only by a value ("note 17",
    "note 18") name two items; a fact's title is only its topic."""
    newer, older = new.body.strip(), body.strip()
    same_title = title_key(title) == title_key(new.title)
    if not newer or not older:
        return (SAME if newer == older else CHANGED) if same_title else None
    if not same_title and new.source is None and _numbered_apart(new.title, title):
        return None
    found = relation(newer, older)
    if found is None and _near(newer, older):
        found = SAME if values_of(newer) <= values_of(older) else CHANGED
    return found


_ROW = 'id, kind, title, body, branch, archived_at, source, "commit", shared_commit'


def _related_rows(
    conn: sqlite3.Connection, new: NewObservation, place: CapturePlace
) -> list[tuple[Any, ...]]:
    """Live observations that may describe the candidate's subject: the same source fact, the
    same kind and title (on any branch), then the best FTS hits."""
    rows: list[tuple[Any, ...]] = []
    if new.source:
        rows += conn.execute(
            f"SELECT {_ROW} FROM observations WHERE source = ? AND superseded_by IS NULL",
            (new.source,),
        ).fetchall()
    else:
        rows += conn.execute(
            f"SELECT {_ROW} FROM observations WHERE kind = ? AND title_key = ? "
            "AND superseded_by IS NULL AND source IS NULL ORDER BY updated_at DESC",
            (new.kind, title_key(new.title)),
        ).fetchall()
    terms = query_terms(f"{new.title} {new.body}")[:16]
    if terms:
        expr = f"{{title body files}} : ({or_expression(terms)})"  # its own words, not context
        rows += conn.execute(
            f"SELECT {', '.join('o.' + c.strip() for c in _ROW.split(','))} FROM observations o "
            "JOIN (SELECT rowid AS id, bm25(observations_fts, 1, 1, 1, 0) AS rank "
            "FROM observations_fts "
            "WHERE observations_fts MATCH ? ORDER BY rank LIMIT 12) hits ON hits.id = o.id "
            "WHERE o.superseded_by IS NULL ORDER BY hits.rank",
            (expr,),
        ).fetchall()
    unique: dict[int, tuple[Any, ...]] = {}
    for row in rows:
        unique.setdefault(row[0], row)
    return list(unique.values())


def store_candidate(
    conn: sqlite3.Connection,
    project: str,
    new: NewObservation,
    place: CapturePlace,
    *,
    session: str | None,
    agent: str | None,
    now: float,
    created_at: float | None = None,
    updated_at: float | None = None,
    archived_at: float | None = None,
) -> CaptureOutcome:
    """Store one cleaned, redacted candidate inside the caller's write transaction.

    A restatement of a visible observation (same subject, same values) is folded into it (its
    importance raised, its time refreshed: confirmed again). A changed value of the same subject,
    on the same branch, is stored and supersedes the older one; so does a new text for the same
    source fact, or for the same kind and title given by hand. On another branch visible here
    (the default one, a merged or deleted one) it overrides the older one where the new one is
    visible (overrides.py). created_at, updated_at and archived_at default to a fresh capture.
    """
    superseded: list[int] = []
    overridden: list[int] = []  # another branch's, changed here: for this branch only
    for row in _related_rows(conn, new, place):
        obs_id, kind, title, body, branch, _archived, source, commit, shared = row
        same_title = new.source is None and source is None and kind == new.kind
        same_title = same_title and title_key(title) == title_key(new.title)  # on any branch
        same_identity = (new.source is not None and source == new.source) or (
            same_title and branch == place.branch
        )
        found = _relation(new, body, title)
        if found is None and (same_identity or same_title):  # one subject, on any branch
            found = CHANGED
        if found is None:
            continue
        visible = branch is None or branch == place.branch or branch in place.default_branches
        if found == SAME and visible:
            conn.execute(
                "UPDATE observations SET importance = MAX(importance, ?) WHERE id = ?",
                (new.importance, obs_id),
            )
            if new.context:  # the words around it now (a subtopic's facts grow)
                conn.execute(
                    "UPDATE observations SET context = ? WHERE id = ? AND context != ?",
                    (new.context, obs_id, new.context),
                )
            if archived_at is None:  # said again: confirmed now, and back into recall
                conn.execute(
                    "UPDATE observations SET archived_at = NULL, updated_at = MAX(updated_at, ?) "
                    "WHERE id = ?",
                    (now, obs_id),
                )
            return CaptureOutcome(obs_id, "duplicate")
        if branch == place.branch or same_identity:
            superseded.append(obs_id)
        elif found == CHANGED and place.branch is not None and place.sees(branch, commit, shared):
            overridden.append(obs_id)  # visible here (merged, deleted...): for this branch only
    new_id = insert_observation(
        conn,
        project,
        new,
        branch=place.branch,
        commit=place.commit,
        shared_commit=place.shared_commit,
        session=session,
        agent=agent,
        created_at=now if created_at is None else created_at,
        updated_at=updated_at,
        archived_at=archived_at,
    )
    record_overrides(conn, new_id, overridden)
    if superseded:
        marks = ",".join("?" * len(superseded))
        conn.execute(
            f"UPDATE observations SET superseded_by = ? WHERE id IN ({marks})",
            (new_id, *superseded),
        )
        pass_on_overrides(conn, new_id, superseded)
        return CaptureOutcome(new_id, "superseded")
    return CaptureOutcome(new_id, "new")


def capture_with_outcomes(
    store: ObservationStore,
    candidates: Sequence[NewObservation],
    *,
    session: str | None,
    agent: str | None,
    cwd: str | Path | None,
    now: float | None = None,
) -> list[CaptureOutcome]:
    """Redact, clean and store candidates in one transaction; one outcome per stored candidate
    (candidates without a title are dropped)."""
    place = capture_place(cwd)
    stamp = time.time() if now is None else now
    cleaned = []
    for candidate in candidates:
        try:
            cleaned.append(clean_new(redact_new(candidate)))
        except StoreError:
            continue
    if not cleaned:
        return []

    def run(conn: sqlite3.Connection) -> list[CaptureOutcome]:
        return [
            store_candidate(conn, store.project, c, place, session=session, agent=agent, now=stamp)
            for c in cleaned
        ]

    return store.write(run)


def capture_observations(
    store: ObservationStore,
    candidates: list[NewObservation],
    *,
    session: str | None,
    agent: str | None,
    cwd: str | Path | None,
) -> list[int]:
    """Store candidates (redacted, deduplicated, with branch and commit); the ids of those that
    were stored as new observations (duplicates of stored ones are left out)."""
    outcomes = capture_with_outcomes(store, candidates, session=session, agent=agent, cwd=cwd)
    return [o.id for o in outcomes if o.status != "duplicate"]


# -- promotion of a chat map's facts (local provider) -------------------------------------

_FILE = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}|[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|"
    r"json|jsonl|toml|yaml|yml|md|rs|go|java|kt|rb|sh|sql|css|scss|html|c|h|cc|cpp|hpp|lock|"
    r"cfg|ini|txt|env))(?![\w/])"
)
_KIND_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "decision",
        re.compile(
            r"\b(decid(e|ed|es|ing)|decision|chose|chosen|choose|opted|went with|going with|"
            r"settled on|switch(ed)? (to|from)|agreed|in favou?r of)\b|\buse\b.*\binstead\b",
            re.IGNORECASE,
        ),
    ),
    (
        "bugfix",
        re.compile(
            r"\b(fix(ed|es|ing)?|bug(s|fix)?|errors?|exceptions?|traceback|crash(es|ed)?|broken|"
            r"regression|root cause|workaround)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "command",
        re.compile(
            r"(^|\s)\$ \S|\brun(s|ning)?\s+`[^`]+`|`(git|npm|pnpm|npx|yarn|pip|uv|python3?|pytest|"
            r"make|cargo|go|docker|kubectl|node|ruff|mypy|cms|bash|sh)\b[^`]*`",
            re.IGNORECASE,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(prefers?|preferred|preference|always|never|(user|they) wants?|avoid)\b",
            re.IGNORECASE,
        ),
    ),
    ("file_summary", _FILE),
    (
        "learning",
        re.compile(
            r"\b(learn(ed|t|ing)?|turns? out|turned out|notes?|noted|noticed|discovered|"
            r"realis(ed|ed)|realized|TIL|found that|apparently)\b",
            re.IGNORECASE,
        ),
    ),
)


def guess_kind(text: str) -> str:
    """The observation kind a fact's wording suggests (first matching rule wins), else other."""
    for kind, pattern in _KIND_RULES:
        if pattern.search(text):
            return kind
    return "other"


def files_in(text: str) -> list[str]:
    """File paths named in a text, in order, without repeats."""
    return list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text)))


_NOT_MEMORY = re.compile(r"^(?:open question|task|question)\s*:", re.I)
_OPEN_ITEM = re.compile(r"^(?:todo|problem)\s*:", re.I)
_CAUSE = re.compile(
    r"\b(?:root cause|caused by|because|the fix|fixed by|resolved by|was causing)\b", re.I
)


_ASKED = re.compile(
    r"\b(?:that|if) you (?:always|never)\b|\byour\b.*\b(?:always|never)\b|"
    r"^(?:make sure|be sure|ensure|remember to)\b.*\byour?\b",
    re.I,
)


def is_memory(text: str) -> bool:
    """Whether a fact is worth keeping as project memory: never a question, a request or a task
    (a request is the chat's current task, not knowledge for later chats)."""
    flat = text.strip()
    return (
        bool(flat)
        and not is_question(flat)
        and not _NOT_MEMORY.match(flat)
        and not is_courtesy(flat)
    )


_COMMITTED = re.compile(
    r"^(?=.*\b(?:from now on|going forward|moving forward|in all|always|never|every|"
    r"continue\w*)\b)(?:\w+,? )?i(?:'ll| will) (?:definitely |certainly |also )?(?:make sure to|"
    r"always|never|continue|start|keep|remember to|stick to|follow)\b",
    re.I,
)
_DECIDED = re.compile(
    r"^(?:[^,]{1,40}, )?(?:we(?:'ll| will) be "
    r"(?:using|switching|moving)|we(?:'re| are) (?:now )?(?:using|switching)|you (?:can|should) "
    r"use|consider using)\b",
    re.I,
)
_OPENER = re.compile(
    r"^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|lastly|finally|also|additionally|moreover|"
    r"one more thing|another thing|and|but|so|now|importantly)\s*[,:]\s+",
    re.I,
)
# a shell command at the head of a fact (markdown, backticks included, is stripped from map
# facts): "Run bd ready to ...", "npm run start", "mix credo gen.config generates ..."
_CLI = (
    r"(?:git|npm|pnpm|npx|yarn|bun|deno|pip|pipx|uv|python3?|pytest|make|cargo|go|docker|"
    r"kubectl|helm|node|mix|iex|elixir|bundle|rake|rails|gradle|mvn|dotnet|ruff|mypy|tox|"
    r"poetry|terraform|bd|gh|cms|bash|sh|curl|psql|redis-cli|brew|apt|apt-get)"
)
_COMMAND_HEAD = re.compile(
    rf"^(?:(?:[Rr]un|[Ee]xecute|[Uu]se|[Tt]ry|[Vv]erify(?: with)?)\s*:?\s+)?{_CLI}\s+[\w.:@/=-]+"
    rf"|^(?:[Rr]un|[Ee]xecute)\s+[a-z][\w.-]*\s+[a-z][\w.:-]*"
)
_FILE_HEAD = re.compile(
    r"^(?:[\w./-]+\.[A-Za-z][A-Za-z0-9]{0,5}|[\w.-]+/[\w./-]+)(?::\d+)?(?:\s*(?::|\u2014|\u2013| - )\s*\S|"
    r"\s+(?:is|are|holds|lists|contains|defines|declares|configures|sets|exports|reads|"
    r"writes|runs|stores|keeps|maps|owns|loads|starts|wires|registers)\b)"
)
_BUG_SEEN = re.compile(
    r"\b(?:that's|that is|this is|here's|found) the (?:bug|issue|problem|culprit)\b|"
    r"\bthe (?:bug|issue|problem) (?:is|was) (?:that|the|a)\b",
    re.I,
)


def kind_of_fact(text: str) -> str:
    """The observation kind of one fact, from evidence in its wording: a user's standing rule is
    a preference, a made choice a decision, a problem with its cause or fix a bugfix, a shell
    command at its head a command, a file named with its description a file summary, ..."""
    text = _OPENER.sub("", text.strip()) or text
    if _OPEN_ITEM.match(text):
        return "other"  # an open task or problem: the store has no kind for it, none fits
    if is_vague(text):
        return "other"  # "I want you to adopt a specific coding style": names nothing
    if is_personal(text):
        return "preference"  # the user's own ("I prefer ...", "call me Sam"): the user tier's
    if is_rule(text) and not _CAUSE.search(text):
        return "decision" if guess_kind(text) == "decision" else "preference"
    if _COMMAND_HEAD.match(text):
        return "command"
    if _COMMITTED.match(text) and is_specific(text):
        return "preference"  # the agent restating a standing rule as its commitment
    if _DECIDED.search(text) and is_specific(text):
        return "decision"  # "we'll be using GitHub", "you can use bcrypt": a choice made
    if _ASKED.search(text) and is_specific(text) and not _CAUSE.search(text):
        return "preference"  # "it's important that you always ...": asked of the listener
    if _BUG_SEEN.search(text):
        return "bugfix"  # a cause found ("that's the bug - my code treated it as ...")
    kind = guess_kind(text)
    if kind == "file_summary" and not _FILE_HEAD.match(text):
        kind = "learning" if is_specific(text) else "other"  # it names a file, not about it
    if kind == "preference" and not is_directive(text) and not _ASKED.search(text):
        return "other"  # "it's always a pleasure": a remark, not a wish
    if kind == "bugfix" and not _CAUSE.search(text) and not re.search(r"\bfix", text, re.I):
        return "learning"
    if kind == "other" and is_specific(text):
        return "learning"  # a fact about the project's code, files or tools
    return kind


def importance_of_fact(text: str, kind: str, mass: int = 1, archived: bool = False) -> int:
    """1-5 from the same evidence: an explicit rule outranks a remark, a rule that names its
    value (a literal, a tool, a version) outranks a vague one; a subtopic the talk kept coming
    back to (mass) adds one; archived facts lose one."""
    base = {"preference": 3, "decision": 3, "bugfix": 4, "command": 3, "learning": 3}.get(kind, 2)
    if kind in STANDING_KINDS:
        base += is_rule(text) or (is_firm(text) and (kind == "decision" or is_directive(text)))
        base += has_literal(text)
    if mass >= 4:
        base += 1
    if archived:
        base -= 1
    return max(1, min(5, base))


def observations_from_map(
    cmap: CorrelationMap,
    *,
    kinds: Sequence[str] | None = None,
    fact_ids: Sequence[str] | None = None,
    prompts: Mapping[int, str] | None = None,
) -> list[NewObservation]:
    """One candidate per fact of a chat map (questions and tasks left out), titled by its topic
    path, the fact verbatim as body, with its provenance (chat, fact id, turn) and, as context,
    the user's prompt of its turn when prompts (by turn) has it: the turn before the answer
    that stated it, which helps find it. kinds and fact_ids narrow the facts promoted."""
    wanted = None if fact_ids is None else set(fact_ids)
    result: list[NewObservation] = []
    for sun_title, planet, archived in cmap.all_planets():
        title = f"{sun_title}: {planet.title}" if sun_title else planet.title
        for sat in planet.satellites:
            if (wanted is not None and sat.id not in wanted) or not is_memory(sat.text):
                continue
            kind = kind_of_fact(sat.text)
            if kinds is not None and kind not in kinds:
                continue
            result.append(
                NewObservation(
                    kind=kind,
                    title=title,
                    body=sat.text.strip(),
                    files=tuple(files_in(sat.text)),
                    importance=importance_of_fact(sat.text, kind, planet.mass, archived),
                    source=fact_source(cmap.session_id, sat.id),
                    turn=sat.turn,
                    context=(prompts or {}).get(sat.turn, ""),
                )
            )
    return result
