"""Searching one project's whole memory: the facts and passages of all its chats and its
observations, with the user tier's items when asked, merged into one ranking (the given chat
first among the relevant, nothing shown twice, nothing superseded, the project winning over the
user tier on one subject) and rendered one line each with id, path or kind, chat and age,
verbatim. Knows nothing of hooks or of typer.
"""

from __future__ import annotations

import math

from cms import paths
from cms.language.kinds import STANDING_KINDS
from cms.observations.facts import PASSAGE, FactMatch, search_facts
from cms.observations.ids import chat_tag, fact_source, item_aliases
from cms.observations.recall import (
    RecalledObservation,
    format_age,
    observation_text,
    recall,
)
from cms.record import Record
from cms.search.lines import (
    distinct_rules,
    each_said_once,
    first_in_force,
    mark_files_moved_on,
    newest_first,
    read_meanings,
    said_last_first,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from cms.observations.access import ProjectMemory
    from cms.observations.vectors import QueryMeaning

CURRENT_CHAT_SHARE = 0.5  # the given chat's hits go first when at least this share of the best
RULE_BOOST = 1.3  # a rule in force, when the query asks how things are to be done
RULES_LISTED = 10  # rules in force on the asked subject listed at most, even past k
SUBJECT_SHARE = 2 / 3  # of the asked subject's words a rule must hold to be listed first
SEMANTIC_POOL_PER_RESULT = 2  # items nearest the query considered per result asked for


class MemoryHit(Record):
    """One search result: a chat fact, a passage or a project observation."""

    id: str
    label: str  # "Sun > Planet" for a fact, the kind for an observation
    text: str
    chat: str | None
    updated_at: float
    relevance: float
    source: str | None = None  # "<session>/<fact id>" of the fact an observation came from
    turn: int | None = None
    is_passage: bool = False  # the chat's own words, not an extracted fact
    kind: str = ""  # the fact's or observation's kind ("" when unknown)
    vector: str = ""  # its key in the semantic index (F<row>, O<id>; "" for none)
    personal: bool = False  # an item of the user tier (U<id>), not of this project
    replaced_by: str = ""  # the id of the newer hit that states its subject (history)
    stored_meaning: bytes | None = None  # its vector by the packaged model (observations.meanings)
    context: str = ""  # a fact's passage, the words of its chat it was made of, when they say more
    files_moved_on: str = (
        ""  # "(file changed since: a.py)" when a file it names changed (filestate)
    )

    @property
    def decided(self) -> bool:
        """A rule in force: what it replaces was decided when it was stored."""
        return self.kind in STANDING_KINDS and self.id[:1] in ("O", "U")

    @property
    def said_in(self) -> tuple[str | None, int | None]:
        """The chat and turn it was said in (None: an observation, said in no one turn)."""
        return (self.chat, self.turn if self.vector[:1] == "F" else None)

    @property
    def said_at(self) -> tuple[float, int]:
        """When it was said: its time, then (times are whole seconds) the order its chat's
        facts and passages were indexed in."""
        return (self.updated_at, int(self.vector[1:]) if self.vector[:1] == "F" else 0)

    def render(self, now: float, current: str | None) -> str:
        if self.personal:
            from cms.observations.usertier import MARK

            where = MARK
        else:
            where = "this chat" if current and self.chat == current else _chat_name(self.chat)
        label = f"history, now {self.replaced_by}; {self.label}" if self.replaced_by else self.label
        line = f"{self.id} [{label}] ({where}, {format_age(now - self.updated_at)}) {self.text}"
        line += f" {self.files_moved_on}" if self.files_moved_on else ""
        return f"{line}\n    said: {self.context}" if self.context else line

    @property
    def aliases(self) -> tuple[str, ...]:
        """The ids this item is known by (see facts.item_aliases)."""
        return item_aliases(self.id, self.source)

    def to_dict(self, now: float) -> dict[str, object]:
        return {
            "id": self.id,
            "type": "observation"
            if self.id[:1] in ("O", "U")
            else ("passage" if self.is_passage else "fact"),
            "tier": "user" if self.personal else "project",
            "label": self.label,
            "text": self.text,
            "chat": self.chat,
            "age_seconds": round(now - self.updated_at),
            "score": round(self.relevance, 4),
            "replaced_by": self.replaced_by or None,  # history: the newer hit of its subject
            "context": self.context or None,  # the passage a fact was made of, when it says more
            "files_moved_on": self.files_moved_on or None,
        }


def _chat_name(chat: str | None) -> str:
    return f"chat {chat_tag(chat)}" if chat else "no chat"


def fact_hit(match: FactMatch) -> MemoryHit:
    fact = match.fact
    passage = fact.kind == PASSAGE
    label = fact.planet if passage else fact.path + (" (archived)" if fact.archived else "")
    source = fact_source(fact.session, fact.fact_id)
    return MemoryHit(
        fact.key, label, fact.text, fact.session, fact.updated_at, match.relevance, source,
        turn=fact.turn, is_passage=passage, kind=fact.kind, vector=f"F{fact.id}",
    )  # fmt: skip


def observation_hit(found: RecalledObservation) -> MemoryHit:
    obs = found.observation
    text = observation_text(obs)
    return MemoryHit(
        f"O{obs.id}", obs.kind, text, obs.session, obs.updated_at, found.relevance, obs.source,
        kind=obs.kind, vector=f"O{obs.id}",
    )  # fmt: skip


def user_hit(found: RecalledObservation) -> MemoryHit:
    """An item of the user tier as a hit: its U id, no vector of this project's index."""
    from cms.observations.usertier import user_item_id

    obs = found.observation
    return MemoryHit(
        user_item_id(obs.id), obs.kind, observation_text(obs), obs.session, obs.updated_at,
        found.relevance, obs.source, kind=obs.kind, personal=True,
    )  # fmt: skip


def with_user_hits(
    hits: list[MemoryHit], memory: ProjectMemory | None, user: ProjectMemory, text: str, k: int
) -> list[MemoryHit]:
    """The project's hits and the user tier's observations relevant to text, less those the
    project overrules: a user item of the subject of a project hit or of a rule in force here is
    not sent (usertier.same_subject). A chat's fact the user tier holds as its own (promoted from
    it) is shown once, as the user's."""
    from cms.observations.recall import in_force
    from cms.observations.usertier import project_wins, subject_text

    found = recall(user.store, text, scope=user.scope, limit=2 * k, touch=False)
    if not found:
        return hits
    sources = {r.observation.source for r in found if r.observation.source}
    hits = [h for h in hits if not h.source or h.source not in sources]
    project = [h.text for h in hits if not h.is_passage]
    if memory is not None:
        project += [subject_text(r.observation) for r in in_force(memory.store, memory.scope)]
    mine = project_wins(found, project, lambda r: subject_text(r.observation))
    return hits + [user_hit(r) for r in mine]


def chat_hits(
    session: str, query: str, k: int, hidden: Collection[str] = frozenset()
) -> list[MemoryHit]:
    """The given chat's own facts, read from its map (current even when the index is not), with
    a relevance on the scale of the index's; fact ids in hidden (superseded since) are left out.
    A map that cannot be read counts as absent (logged): the index still has its facts."""
    from cms.errors import MapError, MapNotFoundError
    from cms.map.store import load_map
    from cms.observations.facts import BM25_HALF, iso_stamp
    from cms.observations.ids import fact_key
    from cms.observations.matching import query_terms, text_relevance
    from cms.search.facts import search_local

    try:
        cmap = load_map(paths.map_path(session))
    except MapNotFoundError:
        return []
    except MapError as exc:  # unreadable: the chat's facts come from the index alone
        from cms.log import log_event

        log_event("warning", "map_unreadable", str(exc), session=session)
        return []
    terms = query_terms(query)
    if not terms:
        return []
    sats = {s.id: s for _, p, _ in cmap.all_planets() for s in p.satellites}
    found = [h for h in search_local(cmap, query, 3 * k + len(hidden)) if h.id not in hidden]
    texts = [f"{h.text} {h.sun} {h.planet}".casefold() for h in found]
    relevances = text_relevance(texts, [-h.score for h in found], terms, BM25_HALF)
    hits = []
    for hit, relevance in zip(found, relevances, strict=True):
        label = hit.path + (" (archived)" if hit.archived else "")
        sat = sats[hit.id]
        key, source = fact_key(session, hit.id), fact_source(session, hit.id)
        stamp = iso_stamp(sat.updated_at)
        hits.append(MemoryHit(key, label, hit.text, session, stamp, relevance, source, sat.turn))
    return hits


def index_holds_map(memory: ProjectMemory, session: str) -> bool:
    """Whether the project's index holds the chat's map as it is on disk (the worker syncs it
    after every update), so its facts can come from the index instead of parsing the map."""
    from cms.map.store import read_map_digest
    from cms.observations.facts import indexed_digest

    digest = read_map_digest(paths.map_path(session))
    return digest is None or digest == indexed_digest(memory.store, session)


def fuse_hits(
    memory: ProjectMemory,
    hits: list[MemoryHit],
    meaning: QueryMeaning,
    weight: float,
    k: int,
    *,
    skip_session: str | None = None,
    passages: bool = True,
) -> list[MemoryHit]:
    """The lexical hits rescored with the semantic index (vectors.fused_score with the semantic
    score of each hit's text, QueryMeaning.scores), plus the live items nearest the query that
    lexical search missed, scored alike (facts of skip_session, superseded items and, unless
    passages, the chats' own words left out)."""
    from cms.observations.facts import fact_by_id
    from cms.observations.overrides import overridden_here
    from cms.observations.recall import RecalledObservation
    from cms.observations.vectors import fused_score, key_number, nearest

    best = max((h.relevance for h in hits), default=0.0)
    present = {h.vector for h in hits} | {h.source for h in hits if h.source}
    added: list[MemoryHit] = []
    for _cos, key in nearest(meaning.cosines, SEMANTIC_POOL_PER_RESULT * k, "", present):
        relevance = 0.0
        hit: MemoryHit | None = None
        if (row := key_number(key, "F")) is not None:
            fact = fact_by_id(memory.store, row)
            if (
                fact is not None
                and fact.superseded_by is None
                and fact.session != skip_session
                and (passages or fact.kind != PASSAGE)
                and memory.scope.is_visible(fact.branch, fact.commit, fact.shared_commit)
            ):
                hit = fact_hit(FactMatch(fact, relevance))
        elif (number := key_number(key, "O")) is not None:
            obs = memory.store.get(number)
            if obs is not None and obs.superseded_by is None and obs.archived_at is None:
                why = memory.scope.visibility(obs.branch, obs.commit, obs.shared_commit)
                if why is not None and not overridden_here(memory.store, memory.scope, [obs.id]):
                    hit = observation_hit(RecalledObservation(obs, relevance, relevance, why))
        if hit is None or (hit.source and hit.source in present):
            continue
        present.add(hit.vector)
        added.append(hit)
    every = hits + added
    semantic = meaning.scores([h.vector for h in every], [(h.text, "") for h in every])
    for n, (hit, sem) in enumerate(zip(every, semantic, strict=True)):
        hit.relevance = fused_score(hit.relevance, best if n < len(hits) else 1.0, sem, weight)
    return every


def search_project(
    memory: ProjectMemory | None,
    query: str,
    *,
    k: int,
    session: str | None = None,
    passages: bool = True,
    other_than: str | None = None,
    meaning: QueryMeaning | None = None,
    semantic_weight: float = 1.0,
    user: ProjectMemory | None = None,
    exclude: Collection[str] = (),
    history: bool = False,
) -> list[MemoryHit]:
    """The k best hits of the project's facts and observations for query (nothing superseded),
    the given chat's first among those at least CURRENT_CHAT_SHARE as relevant as the best (its
    facts before its passages). Facts come from the project's index, the given chat's from its
    map while the index does not hold that map as it is on disk (not yet synced);
    `other_than` leaves a chat's facts out (the caller's own, which its map already shows);
    passages=False leaves the chats' passages out (the prompt hook injects items only).
    meaning (what the semantic index says of the query) fuses it in by score: (relevance /
    best relevance + weight x semantic score) / (1 + weight), the items nearest the query
    joining the lexical ones (fuse_hits). user (the user tier, when it exists) adds
    its relevant items the project does not overrule (with_user_hits), ranked alike. exclude:
    ids (any alias) of items not to return, such as those a chat was already shown. With
    history, an item a newer hit states the subject of (cms.language.newest) is listed right
    after that hit and marked as history."""
    from cms.language.wording import rule_query

    text, asks_rule = rule_query(query)
    if not text.strip():
        text, asks_rule = query, True
    wanted = rule_subject(text) if asks_rule else frozenset()
    modifiers = _qualifying(text, wanted)
    asked = k
    if wanted:  # every rule in force on the subject may be listed: draw enough candidates
        k = max(k, RULES_LISTED)
    if memory is None:
        own = chat_hits(session, text, k) if session else []
        if user is not None:
            own = with_user_hits(own, None, user, text, k)
        return _ranked(own, asked, session, asks_rule, wanted, exclude, modifiers, query, history)
    own = []
    skip = other_than
    if session and not index_holds_map(memory, session):  # read the map itself, always current
        from cms.observations.facts import superseded_in_chat

        own = chat_hits(session, text, k, superseded_in_chat(memory.store, session))
        skip = session
    facts = own + [
        fact_hit(m)
        for m in search_facts(
            memory.store,
            text,
            limit=3 * k,
            passages=passages,
            skip_session=skip,
            scope=memory.scope,
        )
    ]
    shown = {hit.source for hit in facts}
    found = recall(memory.store, text, scope=memory.scope, limit=2 * k, touch=False)
    observations = [observation_hit(r) for r in found]
    hits = facts + [h for h in observations if not h.source or h.source not in shown]
    if user is not None:
        hits = with_user_hits(hits, memory, user, text, k)
    if history:  # only the search command reads which hits are history
        read_meanings(memory, hits)
    if meaning:
        hits = fuse_hits(
            memory, hits, meaning, semantic_weight, k, skip_session=skip, passages=passages
        )
    ranked = _ranked(hits, asked, session, asks_rule, wanted, exclude, modifiers, query, history)
    return mark_files_moved_on(memory, ranked)


def _qualifying(query: str, wanted: frozenset[str]) -> frozenset[str]:
    """The words of wanted that the query uses only to qualify another noun (none asked: none,
    and the subject module is not even imported: the prompt hook's path)."""
    if not wanted:
        return frozenset()
    from cms.language.subject import modifier_words

    return modifier_words(query) & wanted


def _roles_kept(words: frozenset[str], text: str, modifiers: frozenset[str]) -> int:
    """How many of words the text uses as the question does: only to qualify another noun
    (in modifiers) or as the thing itself."""
    from cms.language.subject import modifier_words

    own = modifier_words(text)
    return sum((w in own) == (w in modifiers) for w in words)


def rule_subject(query: str) -> frozenset[str]:
    """What a question about how things are done asks about, as subject.frame_of words
    ("what prefix should I use for method names?" -> <head>, method, name), without the words
    that name rules in general or their reach ("every"); empty when nothing is left (then
    relevance alone ranks)."""
    from cms.language.subject import frame_of, names_no_subject

    return frozenset(w for w in frame_of(query) if not names_no_subject(w))


def _ranked(
    hits: list[MemoryHit],
    k: int,
    session: str | None,
    asks_rule: bool,
    wanted: frozenset[str] = frozenset(),
    exclude: Collection[str] = (),
    modifiers: frozenset[str] = frozenset(),
    query: str = "",
    history: bool = False,
) -> list[MemoryHit]:
    """The k best, then the given chat's own first among the relevant. When the query asks how
    things are done, rules in force rank higher, and those whose subject holds at least
    SUBJECT_SHARE of the words of the question's subject (wanted) come first, the most of them
    first, then those using more of them as the question does (as the thing itself or only to
    qualify another noun, `modifiers`: "what is our convention for functions?" asks of
    functions before function names), restatements folded (lines.distinct_rules), all listed up to
    RULES_LISTED, even past k: such a question is answered by every rule on its subject. Hits
    known by an id in exclude are left out first (the prompt hook's items already shown: the
    rules listed must not crowd out fresh ones); then each thing said once and the newest of a
    subject first (cms.search.lines); with history (the search command), the k printed newest
    first (lines.said_last_first)."""
    if exclude:
        excluded = set(exclude)
        hits = [h for h in hits if excluded.isdisjoint(h.aliases)]
    if asks_rule:  # "what prefix should I use ...": the rules in force first
        for hit in hits:
            if hit.kind in STANDING_KINDS:
                hit.relevance *= RULE_BOOST
    hits.sort(key=lambda h: (-h.relevance, -h.updated_at, h.id))
    hits = newest_first(each_said_once(hits), query, history)
    if wanted:
        from cms.language.subject import frame_of

        needed = math.ceil(SUBJECT_SHARE * len(wanted))
        held = {id(h): wanted & frame_of(h.text) for h in hits}
        on_subject = distinct_rules(
            sorted(
                (h for h in hits if h.kind in STANDING_KINDS and len(held[id(h)]) >= needed),
                key=lambda h: (-len(held[id(h)]), -_roles_kept(held[id(h)], h.text, modifiers)),
            ),  # a stable sort: by relevance among the same share
            held,
        )[:RULES_LISTED]
        listed = {id(h) for h in on_subject}
        rest = [h for h in hits if id(h) not in listed]
        hits = on_subject + first_in_force(rest, max(0, k - len(on_subject)))
        return hits  # the rules in subject order of relevance; the chat's own do not jump them
    hits = first_in_force(hits, k)
    if history:
        hits = said_last_first(hits)
    if session and hits:
        floor = max(h.relevance for h in hits) * CURRENT_CHAT_SHARE
        # the chat's own facts, then its own words, then the rest (each by relevance)
        hits.sort(key=lambda h: 2 if h.chat != session or h.relevance < floor else h.is_passage)
    return hits
