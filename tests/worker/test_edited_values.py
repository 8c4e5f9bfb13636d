"""After a turn whose edit replaced a value in the code, what earlier chats said of the old value
is no longer in force: not returned by search, not pushed; the user's rule the edit complied
with, the turn's own words and another branch's items stay (cms.observations.edited)."""

from __future__ import annotations

from pathlib import Path

from cms.observations.access import open_project_memory
from cms.observations.capture import capture_with_outcomes
from cms.observations.model import NewObservation
from cms.search.project import search_project
from cms.transcripts.exchange import Exchange, ToolCall
from cms.worker.projectsync import sync_project_memory
from tests.observations.gitrepo import git, make_repo

PORT_EDIT = ToolCall(
    "Edit",
    "config/staging.env",
    replaced=(("DATABASE_URL=postgres://staging-db:5433/app", "postgres://staging-db:6543/app"),),
)


def say(repo: Path, session: str, turn: int, user: str, *tools: ToolCall) -> None:
    exchange = Exchange(user=user, assistant="Done.", tools=tools, turn=turn)
    sync_project_memory(session, str(repo), "claude_code", exchange)


def live_texts(repo: Path) -> set[str]:
    memory = open_project_memory(str(repo), create=False)
    assert memory is not None
    with memory:
        return set(
            memory.store.read(
                lambda c: [
                    text
                    for (text,) in c.execute(
                        "SELECT text FROM facts WHERE superseded_by IS NULL UNION ALL "
                        "SELECT body FROM observations WHERE superseded_by IS NULL "
                        "AND archived_at IS NULL"
                    )
                ]
            )
        )


def remember(repo: Path, session: str, kind: str, body: str) -> None:
    memory = open_project_memory(str(repo), create=True)
    assert memory is not None
    with memory:
        new = NewObservation(kind, body[:30], body)
        capture_with_outcomes(memory.store, [new], session=session, agent="t", cwd=repo)


def test_a_port_the_agent_edited_away_leaves_search_and_what_is_in_force(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    say(repo, "chat-1", 1, "The staging database listens on port 5433.")
    remember(repo, "chat-1", "decision", "We run the staging database on port 5433")
    remember(repo, "chat-1", "preference", "Never use print, always the logging module")
    say(repo, "chat-2", 1, "ops moved staging behind pgbouncer, it is on 6543 now", PORT_EDIT)
    say(
        repo,
        "chat-2",
        2,
        "use the logger here",
        ToolCall("Edit", "app/db.py", replaced=(("print(url)", "logger.info(url)"),)),
    )

    live = live_texts(repo)
    assert "The staging database listens on port 5433." not in live
    assert "We run the staging database on port 5433" not in live
    assert "Never use print, always the logging module" in live  # the edit complied with it
    assert "ops moved staging behind pgbouncer, it is on 6543 now" in live  # the turn's own
    memory = open_project_memory(str(repo), create=False)
    assert memory is not None
    with memory:
        hits = search_project(memory, "staging database port", k=5)
    assert any("6543" in hit.text for hit in hits)
    assert not any("5433" in hit.text for hit in hits)


def test_an_edit_on_a_feature_branch_leaves_mains_statements_in_force(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    say(repo, "chat-1", 1, "The staging database listens on port 5433.")
    git(repo, "checkout", "-q", "-b", "try-pgbouncer")
    say(repo, "chat-2", 1, "try pgbouncer on 6543", PORT_EDIT)
    assert "The staging database listens on port 5433." in live_texts(repo)


def test_an_edit_does_not_outdate_what_its_own_turn_said(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    say(repo, "chat-1", 1, "Staging listens on 5433 until ops move it.", PORT_EDIT)
    assert "Staging listens on 5433 until ops move it." in live_texts(repo)


def test_a_rebuilt_index_marks_again_what_an_edit_outdated(tmp_path: Path) -> None:
    from cms.observations.chatsync import rebuild_fact_index
    from cms.observations.edited import changes_of

    repo = make_repo(tmp_path / "app")
    say(repo, "chat-1", 1, "The staging database listens on port 5433.")
    say(repo, "chat-2", 1, "it is on 6543 now", PORT_EDIT)
    say(repo, "chat-2", 1, "it is on 6543 now", PORT_EDIT)  # the same turn read again
    memory = open_project_memory(str(repo), create=False)
    assert memory is not None
    with memory:
        rebuild_fact_index(memory, [])
        recorded = memory.store.read(
            lambda c: c.execute("SELECT count(*) FROM value_changes").fetchone()[0]
        )
    assert recorded == len(changes_of(PORT_EDIT.replaced))  # once, not once per reading
    assert "The staging database listens on port 5433." not in live_texts(repo)


def hook_lines(repo: Path, prompt: str, session: str = "chat-new") -> str:
    from cms.hooks.projectnotes import relevant_notes

    notes = relevant_notes(str(repo), prompt, 5, min_relevance=0.0, shown=(), session=session)
    return "\n".join(line for _, line in notes)


def test_the_prompt_hook_falls_back_to_the_newest_chats_words_that_answer_it(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    say(repo, "chat-1", 1, "The staging readiness probe runs every ten seconds in staging.")
    say(repo, "chat-2", 1, "The staging readiness probe also checks the queue in staging.")
    lines = hook_lines(repo, "staging readiness probe")
    assert "checks the queue" in lines  # the newest chat whose words answer the prompt
    assert "every ten seconds" not in lines  # an earlier chat's words: history, search has them
    own = hook_lines(repo, "staging readiness probe", session="chat-2")
    assert "checks the queue" not in own and "every ten seconds" in own  # its own are in context


def test_the_prompt_hook_never_falls_back_to_words_a_later_edit_made_untrue(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    say(repo, "chat-1", 1, "The staging readiness probe runs every ten seconds in staging.")
    said = "The staging readiness probe in staging connects to port 5433 with a 30 s timeout."
    say(repo, "chat-2", 1, said)
    say(repo, "chat-3", 1, "pgbouncer fronts the db now", PORT_EDIT)
    assert said in live_texts(repo)  # another number: the write-time guard kept it in force
    lines = hook_lines(repo, "staging readiness probe")
    assert "5433" not in lines
    assert "every ten seconds" in lines


def test_a_statement_said_before_an_edit_replaced_its_value_no_longer_holds(
    tmp_path: Path,
) -> None:
    from cms.observations.edited import replaced_since

    repo = make_repo(tmp_path / "app")
    say(repo, "chat-2", 3, "it is on 6543 now", PORT_EDIT)
    memory = open_project_memory(str(repo), create=False)
    assert memory is not None
    with memory:
        store = memory.store
        old = "Staging listens on 5433."
        assert replaced_since(store, old, 0.0, "chat-1", 9)  # another chat, said before
        assert replaced_since(store, old, 0.0, "chat-2", 2)  # its own chat, an earlier turn
        assert not replaced_since(store, old, 0.0, "chat-2", 3)  # the edit's own turn
        assert not replaced_since(store, old, 4e9, "chat-1", 1)  # said after the edit
        assert not replaced_since(store, "Moved from 5433 to 6543.", 0.0, "chat-1", 1)
