"""Recall ranking, safe queries, supersession, filters, briefing and the one-line rendering."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cms.observations.matching import match_expression
from cms.observations.model import NewObservation, Observation
from cms.observations.recall import (
    briefing,
    format_age,
    format_observation_line,
    recall,
)
from cms.observations.scope import BranchScope
from cms.observations.store import ObservationStore
from cms.observations.upkeep import archive_stale

DAY = 86400.0
NOW = 1_800_000_000.0
EVERYWHERE = BranchScope.everywhere()
ON_MAIN = BranchScope(
    in_git=True,
    branch="main",
    default_branches=frozenset({"main", "master"}),
    existing_branches=frozenset({"main", "feat"}),
)


@pytest.fixture
def store(tmp_path: Path) -> ObservationStore:
    return ObservationStore(tmp_path / "o.db", "p")


def add(store: ObservationStore, title: str, body: str = "", **kw: object) -> int:
    kind = str(kw.pop("kind", "decision"))
    importance = int(kw.pop("importance", 3))  # type: ignore[call-overload]
    files = tuple(kw.pop("files", ()))  # type: ignore[arg-type]
    created = float(kw.pop("created_at", NOW - DAY))  # type: ignore[arg-type]
    context = str(kw.pop("context", ""))
    return store.add(
        NewObservation(kind, title, body, files, importance, context=context),
        created_at=created,
        **kw,  # type: ignore[arg-type]
    )


def ids(hits: list) -> list[int]:  # type: ignore[type-arg]
    return [h.observation.id for h in hits]


def test_query_text_becomes_quoted_or_terms_without_stopwords() -> None:
    assert match_expression("Why are we using pnpm workspaces?") == '"pnpm" OR "workspaces"'
    expr = match_expression('foo" OR bar* NEAR(x y) -baz: qux^2 col:val (paren) {brace}')
    assert expr is not None
    assert all(part.startswith('"') and part.endswith('"') for part in expr.split(" OR "))
    assert match_expression("what is the it of a") is None
    assert match_expression("ok thanks!!! ...") is None


def test_prompts_full_of_fts_syntax_never_raise(store: ObservationStore) -> None:
    add(store, "Token refresh loop", "expiry compared in ms instead of seconds")
    for prompt in (
        '"unbalanced',
        "a AND OR NOT",
        "NEAR(",
        "col:x",
        "*",
        "^start",
        "-x",
        "(((",
        "'",
    ):
        recall(store, prompt + " token", scope=EVERYWHERE, now=NOW)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=300))
def test_any_text_can_be_recalled_without_error(store: ObservationStore, text: str) -> None:
    if not store.list_observations(limit=1):
        add(store, "Token refresh loop", "expiry compared in ms instead of seconds")
    hits = recall(store, text, scope=EVERYWHERE, now=NOW, touch=False)
    assert all(0.0 <= h.score <= 1.0 for h in hits)


def test_the_best_match_comes_first_and_unrelated_ones_stay_out(store: ObservationStore) -> None:
    refresh = add(
        store, "JWT refresh loop", "token expiry compared in ms, not seconds", kind="bugfix"
    )
    pnpm = add(store, "Use pnpm workspaces", "npm hoisting broke shared types")
    add(store, "Deploy with docker compose", "the staging stack runs compose v2", kind="command")
    hits = recall(
        store, "why does the token refresh loop?", scope=EVERYWHERE, now=NOW, min_relevance=0.15
    )
    assert ids(hits) == [refresh]
    hits = recall(store, "pnpm hoisting", scope=EVERYWHERE, now=NOW, min_relevance=0.15)
    assert ids(hits) == [pnpm]
    assert (
        recall(store, "kubernetes helm charts", scope=EVERYWHERE, now=NOW, min_relevance=0.15) == []
    )


def test_the_words_around_an_observation_find_it_but_count_less_than_its_own(
    store: ObservationStore,
) -> None:
    answer = add(store, "Caroline", "Researching agencies this week", context="Caroline: adoption?")
    own = add(store, "Melanie", "We talked about adoption agencies at dinner")
    add(store, "Melanie", "The weather was nice")
    hits = recall(store, "adoption", scope=BranchScope.everywhere(), touch=False)
    assert ids(hits)[:2] == [own, answer]  # found through its context, below its own words
    assert hits[1].relevance < hits[0].relevance
    shown = store.get(answer)
    assert shown is not None and shown.context == "Caroline: adoption?"


def test_with_equal_text_importance_then_recency_decide(store: ObservationStore) -> None:
    low = add(store, "Cache invalidation rule one", "redis keys expire", importance=1)
    high = add(store, "Cache invalidation rule two", "redis keys expire", importance=5)
    hits = recall(store, "redis cache invalidation", scope=EVERYWHERE, now=NOW)
    assert ids(hits) == [high, low]
    old = add(store, "Queue retry policy one", "worker retries thrice", created_at=NOW - 400 * DAY)
    new = add(store, "Queue retry policy two", "worker retries thrice", created_at=NOW - 2 * DAY)
    assert ids(recall(store, "worker queue retry", scope=EVERYWHERE, now=NOW)) == [new, old]


def test_min_relevance_drops_weak_matches(store: ObservationStore) -> None:
    add(store, "Logging format", "one line per record with pid and level", kind="learning")
    query = "record the pid of the database migration runner process"
    assert recall(store, query, scope=EVERYWHERE, now=NOW, min_relevance=0.0)
    assert recall(store, query, scope=EVERYWHERE, now=NOW, min_relevance=0.9) == []


def test_only_the_newest_of_a_kind_and_title_is_sent_within_one_branch(
    store: ObservationStore,
) -> None:
    add(store, "Package manager", "we use npm", branch="main", created_at=NOW - 10 * DAY)
    newer = add(store, "Package manager", "we use pnpm now", branch="main", created_at=NOW - DAY)
    hits = recall(store, "which package manager do we use", scope=ON_MAIN, now=NOW)
    assert ids(hits) == [newer]


def test_a_branch_cannot_supersede_another_branchs_observation(store: ObservationStore) -> None:
    on_main = add(store, "Package manager", "we use npm", branch="main", created_at=NOW - 10 * DAY)
    on_old = add(
        store, "Package manager", "yarn on a gone branch", branch="gone", created_at=NOW - DAY
    )
    hits = recall(store, "which package manager", scope=ON_MAIN, now=NOW)
    assert sorted(ids(hits)) == sorted([on_main, on_old])
    hidden = add(store, "Package manager", "bun on an unmerged branch", branch="feat")
    assert hidden not in ids(recall(store, "which package manager", scope=ON_MAIN, now=NOW))


def test_superseded_and_archived_observations_are_not_recalled(store: ObservationStore) -> None:
    old = add(store, "Auth library", "passport")
    new = add(store, "Auth library choice", "lucia auth")
    store.write(
        lambda c: c.execute("UPDATE observations SET superseded_by = ? WHERE id = ?", (new, old))
    )
    archived = add(store, "Auth cookie flags", "httpOnly and secure", importance=1, created_at=1.0)
    archive_stale(store, now=NOW, stale_after_days=30, max_importance=1)
    hits = recall(store, "auth library cookie", scope=EVERYWHERE, now=NOW)
    assert ids(hits) == [new]
    assert archived not in ids(hits)


def test_kind_and_file_filters(store: ObservationStore) -> None:
    fix = add(
        store, "Parser crash on empty line", "guard added", kind="bugfix", files=["src/parse.py"]
    )
    cmd = add(store, "Run the parser tests", "pytest tests/parse -q", kind="command")
    assert ids(recall(store, "parser", scope=EVERYWHERE, now=NOW, kinds=["command"])) == [cmd]
    assert ids(recall(store, "parser", scope=EVERYWHERE, now=NOW, files=["parse.py"])) == [fix]
    assert ids(recall(store, "", scope=EVERYWHERE, now=NOW, files=["src/parse.py"])) == [fix]


def test_recall_marks_only_what_it_returned_as_recalled(store: ObservationStore) -> None:
    hit = add(store, "Flaky fixture", "tmp_path reuse made the fixture flaky", kind="bugfix")
    miss = add(store, "Release checklist", "tag, changelog, upload")
    recall(store, "flaky fixture", scope=EVERYWHERE, now=NOW)
    assert store.get(hit).last_recalled_at == NOW  # type: ignore[union-attr]
    assert store.get(miss).last_recalled_at is None  # type: ignore[union-attr]
    recall(store, "release checklist", scope=EVERYWHERE, now=NOW + 5, touch=False)
    assert store.get(miss).last_recalled_at is None  # type: ignore[union-attr]


def test_a_date_in_the_query_favours_what_was_captured_then(store: ObservationStore) -> None:
    june = time.mktime((2023, 6, 3, 12, 0, 0, 0, 0, -1))
    march = time.mktime((2023, 3, 3, 12, 0, 0, 0, 0, -1))
    in_march = add(store, "Meeting notes on caching", "agreed on redis caching", created_at=march)
    in_june = add(store, "Meeting notes on cache", "agreed on the redis cache", created_at=june)
    hits = recall(
        store, "what did we agree about redis caching on 3 June, 2023?", scope=EVERYWHERE, now=NOW
    )
    assert ids(hits) == [in_june, in_march]
    hits = recall(store, "redis caching agreement in March 2023", scope=EVERYWHERE, now=NOW)
    assert ids(hits)[0] == in_march


def test_briefing_puts_important_recent_visible_ones_first(store: ObservationStore) -> None:
    key = add(
        store,
        "Never push to main",
        "always open a pull request",
        kind="preference",
        importance=5,
        branch="main",
    )
    recent = add(
        store,
        "Parser rewrite started",
        "half done",
        importance=3,
        branch="main",
        created_at=NOW - 3600,
    )
    add(
        store, "Trivia", "the logo is blue", importance=1, branch="main", created_at=NOW - 300 * DAY
    )
    add(store, "Hidden experiment", "only on feat", importance=5, branch="feat")
    hits = briefing(store, ON_MAIN, 2, now=NOW)
    assert ids(hits) == [key, recent]
    assert store.get(key).last_recalled_at == NOW  # type: ignore[union-attr]


def observation(**kw: object) -> Observation:
    base: dict[str, object] = dict(
        id=1,
        project="p",
        kind="decision",
        title="Use pnpm",
        body="",
        files=(),
        importance=3,
        branch="main",
        commit=None,
        shared_commit=False,
        session=None,
        agent=None,
        created_at=NOW - 3 * DAY,
        updated_at=NOW - 3 * DAY,
        last_recalled_at=None,
        superseded_by=None,
        archived_at=None,
    )
    base.update(kw)
    return Observation(**base)  # type: ignore[arg-type]


def test_observation_line_shows_kind_age_and_a_foreign_branch_only() -> None:
    obs = observation(body="npm hoisting broke shared types", branch="feat-x")
    assert format_observation_line(obs, NOW, "feat-x") == (
        "[decision \u00b7 3 days ago] Use pnpm \u2014 npm hoisting broke shared types"
    )
    assert format_observation_line(obs, NOW, "main").endswith(" (branch: feat-x)")
    assert (
        format_observation_line(observation(), NOW, "main")
        == "[decision \u00b7 3 days ago] Use pnpm"
    )


def test_observation_line_never_cuts_a_word_and_shows_a_whole_first_sentence() -> None:
    obs = observation(body="The first sentence is whole. Then " + "word " * 200 + "\nsecond line")
    whole = format_observation_line(obs, NOW, "main")
    assert "\n" not in whole and whole.endswith("word second line")
    short = format_observation_line(obs, NOW, "main", limit=120)
    assert short.endswith(" \u2014 The first sentence is whole. [\u2026]")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (5, "just now"),
        (60, "1 minute ago"),
        (7200, "2 hours ago"),
        (DAY + 5, "yesterday"),
        (3 * DAY, "3 days ago"),
        (13 * DAY, "13 days ago"),
        (15 * DAY, "2 weeks ago"),
        (90 * DAY, "3 months ago"),
        (800 * DAY, "2 years ago"),
        (-50, "just now"),
    ],
)
def test_ages_read_like_speech(seconds: float, text: str) -> None:
    assert format_age(seconds) == text


def test_each_recall_counts_a_use_and_a_used_item_ranks_a_little_higher(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    first = store.add(NewObservation("learning", "Note A", "the cache key holds the tenant"))
    second = store.add(NewObservation("learning", "Note B", "the cache key holds the tenant"))
    scope = BranchScope.everywhere()
    hits = recall(store, "cache key tenant", scope=scope, limit=5, touch=False)
    assert {h.observation.id for h in hits} == {first, second}
    assert hits[0].score == pytest.approx(hits[1].score)  # equal until one is used (age aside)
    for _ in range(5):
        store.mark_recalled([second], time.time())
    (used,) = [o for o in store.list_observations() if o.id == second]
    assert used.use_count == 5 and used.last_recalled_at is not None
    ranked = recall(store, "cache key tenant", scope=scope, limit=5, touch=False)
    assert ranked[0].observation.id == second
    assert ranked[0].score <= ranked[1].score * 1.05 + 1e-9  # a prior: at most 5% more
    recall(store, "cache key tenant", scope=scope, limit=1)  # touch: the one returned counts
    counts = {o.id: o.use_count for o in store.list_observations()}
    assert counts == {first: 0, second: 6}
