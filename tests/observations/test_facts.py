"""The project's fact index: sync, supersession across chats, ids, forget and reindex."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms import paths
from cms.language.wording import is_question
from cms.map.model import CorrelationMap, new_map
from cms.map.ops import apply_ops
from cms.map.store import save_map
from cms.observations.access import open_project_memory
from cms.observations.chatsync import rebuild_fact_index, sync_chat_memory
from cms.observations.facts import IndexedFact, find_facts
from cms.observations.factsync import fact_retires
from cms.observations.ids import chat_tag, fact_key
from cms.search.project import MemoryHit, search_project


def chat(session: str, *facts: str) -> CorrelationMap:
    cmap = new_map(session, "p")
    sats = list(facts)
    apply_ops(
        cmap,
        [{"op": "add_sun", "title": "Conventions", "planets": [{"title": "Names", "sats": sats}]}],
    )
    save_map(paths.map_path(session), cmap)
    return cmap


def searched(repo: Path, query: str, session: str | None = None) -> list[str]:
    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:
        return [h.text for h in search_project(memory, query, k=10, session=session)]


def sync(repo: Path, cmap: CorrelationMap) -> None:
    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:
        sync_chat_memory(memory, cmap, cwd=repo)


RULE_E = "From now on, start function argument names with 'e_'."
RULE_J = "From now on, start function argument names with 'j_' instead."


def test_a_resumed_chat_does_not_see_its_own_rule_that_a_later_chat_changed(tmp_path: Path) -> None:
    a, b = chat("chat-a", RULE_E), chat("chat-b", RULE_J)
    sync(tmp_path, a)
    sync(tmp_path, b)
    texts = searched(tmp_path, "function argument names", session="chat-a")
    assert RULE_J in texts and RULE_E not in texts


def test_forgetting_a_chat_drops_its_facts_and_revives_what_they_superseded(tmp_path: Path) -> None:
    a, b = chat("chat-a", RULE_E), chat("chat-b", RULE_J)
    sync(tmp_path, a)
    sync(tmp_path, b)
    memory = open_project_memory(tmp_path, create=False)
    assert memory is not None
    with memory:
        memory.store.forget(session="chat-b")
    texts = searched(tmp_path, "function argument names")
    assert RULE_J not in texts and RULE_E in texts


def test_time_ordered_chat_ids_get_distinct_fact_ids(tmp_path: Path) -> None:
    first, second = "01a2281f-bb3b-7c00-9e11-aaaaaaaaaaaa", "01a2281f-bfbc-7c00-9e11-bbbbbbbbbbbb"
    assert fact_key(first, "F3") != fact_key(second, "F3")
    sync(tmp_path, chat(first, "Deploys go through the staging cluster first."))
    sync(tmp_path, chat(second, "Releases are tagged from the main branch only."))
    memory = open_project_memory(tmp_path, create=False)
    assert memory is not None
    with memory:
        found = find_facts(memory.store, fact_key(second, "F3"))
        by_full_id = find_facts(memory.store, f"{second}/F3")
    assert [f.session for f in found] == [second] == [f.session for f in by_full_id]
    assert chat_tag(first) != chat_tag(second)


def test_reindex_keeps_what_an_update_model_retired(tmp_path: Path) -> None:
    a = chat("chat-a", "The billing export runs nightly at 02:00 UTC.")
    sync(tmp_path, a)
    memory = open_project_memory(tmp_path, create=False)
    assert memory is not None
    with memory:
        memory.store.write(
            lambda c: c.execute("UPDATE facts SET superseded_by = 0 WHERE fact_id = 'F3'")
        )
        rebuild_fact_index(memory, [a])
    assert "The billing export runs nightly at 02:00 UTC." not in searched(
        tmp_path, "billing export"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Quick question - what prefix do we use for argument names",
        "Do we still use PostgreSQL 16 for orders?)",
        "should we start function argument names with 'x_' instead",
    ],
)
def test_questions_are_told_without_their_question_mark(text: str) -> None:
    assert is_question(text)


def test_statements_are_not_questions() -> None:
    assert not is_question("How the parser works is documented in docs/parser.md.")
    assert not is_question("Do not use print statements.")


def test_the_prompts_own_chat_never_takes_the_slots_of_other_chats_facts(tmp_path: Path) -> None:
    from cms.hooks.projectnotes import relevant_notes

    things = ("docker images", "wheels", "sourcemaps", "fixtures", "manifests", "changelogs")
    own = [f"The staging deploy pipeline uploads {thing} to the bucket." for thing in things]
    other = [f"The staging deploy pipeline retries {thing} twice on timeouts." for thing in things]
    sync(tmp_path, chat("chat-a", *own))
    sync(tmp_path, chat("chat-b", *other))
    notes = relevant_notes(
        str(tmp_path), "staging deploy pipeline", 3, min_relevance=0.0, shown=(), session="chat-a"
    )
    assert len(notes) == 3
    assert all("retries" in text for _ids, text in notes)


def test_a_chats_own_facts_come_from_the_index_until_its_map_changes_unsynced(
    tmp_path: Path,
) -> None:
    from cms.search.project import index_holds_map

    cmap = chat("chat-a", "The staging deploy pipeline uploads wheels to the bucket.")
    sync(tmp_path, cmap)
    memory = open_project_memory(tmp_path, create=False)
    assert memory is not None
    with memory:
        assert index_holds_map(memory, "chat-a")
        planet = cmap.suns[0].planets[0].id
        apply_ops(cmap, [{"op": "add_sat", "planet": planet, "text": "Staging deploys at noon."}])
        save_map(paths.map_path("chat-a"), cmap)  # a map the worker has not synced yet
        assert not index_holds_map(memory, "chat-a")
    assert "Staging deploys at noon." in searched(tmp_path, "staging deploys", session="chat-a")
    sync(tmp_path, cmap)
    memory = open_project_memory(tmp_path, create=False)
    assert memory is not None
    with memory:
        assert index_holds_map(memory, "chat-a")
        rebuild_fact_index(memory, [cmap])
        assert index_holds_map(memory, "chat-a")
    assert "Staging deploys at noon." in searched(tmp_path, "staging deploys", session="chat-a")


def test_the_asking_chats_facts_come_before_its_own_words(tmp_path: Path) -> None:
    from cms.observations.chatsync import index_exchange

    fact = "Releases are tagged vMAJOR.MINOR.PATCH on main and pushed with git push --tags"
    cmap = chat("chat-a", fact)
    memory = open_project_memory(tmp_path, create=True)
    assert memory is not None
    with memory:
        sync_chat_memory(memory, cmap, cwd=tmp_path)
        index_exchange(memory, "chat-a", 2, [("user", "Remind me of the tag format.")])
        hits = search_project(memory, "release tag format", k=5, session="chat-a")
    assert [h.text for h in hits][:2] == [fact, "Remind me of the tag format."]


def test_a_passage_that_a_better_hit_already_shows_is_left_out(tmp_path: Path) -> None:
    from cms.observations.chatsync import index_exchange

    todo = "Set up the Next.js project [{}]; Build the TodoList component [{}]; Add tests [{}]"
    memory = open_project_memory(tmp_path, create=True)
    assert memory is not None
    with memory:
        for turn, status in enumerate(("pending", "in_progress", "completed"), start=1):
            index_exchange(memory, "chat-a", turn, [("tool", todo.format(*[status] * 3))])
        index_exchange(
            memory,
            "chat-a",
            4,
            [("assistant", "The TodoList component keeps todos in localStorage across reloads.")],
        )
        hits = [h.text for h in search_project(memory, "TodoList component project", k=5)]
    assert len([h for h in hits if h.startswith("Set up the Next.js project")]) == 1
    assert "The TodoList component keeps todos in localStorage across reloads." in hits


def fact_and_its_passage(tmp_path: Path, fact: str, said: tuple[str, str], query: str) -> list[str]:
    """What a search finds in a chat that stated fact in the passage said (speaker, text)."""
    return [h.text for h in fact_and_its_passage_hits(tmp_path, fact, said, query)]


def fact_and_its_passage_hits(
    tmp_path: Path, fact: str, said: tuple[str, str], query: str
) -> list[MemoryHit]:
    from cms.observations.chatsync import index_exchange

    cmap = chat("chat-a", fact)
    memory = open_project_memory(tmp_path, create=True)
    assert memory is not None
    with memory:
        sync_chat_memory(memory, cmap, cwd=tmp_path)
        index_exchange(memory, "chat-a", 1, [said])
        return search_project(memory, query, k=5)


def test_a_fact_keeps_its_line_with_the_passage_it_was_made_of_as_its_context(
    tmp_path: Path,
) -> None:
    fact = "The repository has no code, configuration files or documentation yet."
    said = f"The directory appears to be empty. {fact} I wrote a basic CLAUDE.md for it."
    query = "what did we find in the repository code"
    hits = fact_and_its_passage_hits(tmp_path, fact, ("assistant", said), query)
    assert hits[0].text == fact and hits[0].context == said
    assert said not in [h.text for h in hits]  # said once, under the fact
    assert hits[0].render(0.0, None).splitlines()[1] == f"    said: {said}"


def test_a_rule_keeps_its_place_beside_the_passage_it_was_made_of(tmp_path: Path) -> None:
    said = f"Sure, noted. {RULE_E} I will use it below."
    texts = fact_and_its_passage(tmp_path, RULE_E, ("user", said), "function argument names")
    assert RULE_E in texts


def test_the_rule_promoted_from_a_superseded_fact_is_superseded_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even when the observations' own lookup of related rules misses the older one (a large
    store: it draws a bounded number of candidates), the fact index's supersession carries
    over to the rule promoted from the fact."""
    from cms.observations import capture

    monkeypatch.setattr(capture, "_related_rows", lambda conn, new, place: [])
    rules = [
        "From now on, I'd like you to start function argument names with 'j_'.",
        "From now on, I want you to start function argument names with 'e_' as a prefix.",
    ]
    for n, rule in enumerate(rules):
        sync(tmp_path, chat(f"chat-{n}", rule))
    memory = open_project_memory(tmp_path, create=False)
    assert memory is not None
    with memory:
        in_force = [o.body or o.title for o in memory.store.list_observations()]
    assert [r for r in rules if r in in_force] == [rules[-1]]


def _fact(row: int, kind: str, text: str) -> IndexedFact:
    return IndexedFact(
        id=row, session="s", fact_id=f"F{row}", sun="DB", planet="Port", text=text, kind=kind,
        turn=row, created_at=1000.0 + row, updated_at=1000.0 + row, archived=False,
        superseded_by=None, branch="main",
    )  # fmt: skip


def test_the_agents_narration_never_retires_the_users_decision_among_facts() -> None:
    decision = _fact(1, "decision", "We switched to port 6543 (pgbouncer).")
    narration = _fact(2, "learning", "I switched app/db.py to port 6543 (pgbouncer).")
    assert not fact_retires(narration, decision)


def test_a_decision_with_another_number_for_one_thing_retires_the_older_fact() -> None:
    older = _fact(1, "learning", "We use PostgreSQL 16 on port 5433.")
    newer = _fact(2, "decision", "Change of plan: we switched to port 6543 (pgbouncer).")
    replica = _fact(3, "decision", "The db1 replica listens on port 6001.")
    assert fact_retires(newer, older)
    assert not fact_retires(replica, newer)  # another numbered thing: another subject
