"""Meaning is part of the ranking by default: without the semantic extra, recall and MCP fuse in
what the packaged model says of the query, from the meaning each item was given when it was
written, and `cms search` does when words alone find fewer hits than asked for; tools' passages
join only by their words; mode "off" turns it off."""

from __future__ import annotations

from pathlib import Path

from cms.config import load_config
from cms.language.meaning import load_model, pack
from cms.observations.access import open_project_memory
from cms.observations.factsync import TOOL_SPEAKER, index_passages
from cms.observations.meanings import give_meanings, newest_meanings
from cms.observations.store import ObservationStore
from cms.search.command import select_hits
from cms.search.project import search_project
from cms.semantic import meaning_for
from tests.hooks.helpers import hook_env, replay_chat_hooks
from tests.observations.gitrepo import make_repo

CHOICE = "We picked PostgreSQL 16 because we need JSONB and row-level locks."
QUESTION = "which database did we choose and why"


def test_search_finds_by_meaning_a_choice_that_shares_no_word_with_the_question(
    tmp_path: Path, isolated_home: Path
) -> None:
    repo = make_repo(tmp_path / "shop")
    env = hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})
    turns = [(CHOICE, "Noted."), ("The login page renders twice on refresh.", "Fixed the effect.")]
    replay_chat_hooks(tmp_path, repo, "chat-pk-0001", turns, env)
    memory = open_project_memory(str(repo), create=False)
    assert memory is not None
    try:
        lexical = search_project(memory, QUESTION, k=5)
        assert not any("JSONB" in hit.text for hit in lexical)  # no word of the question
        meaning = meaning_for(load_config(), memory.store, QUESTION, None)
        assert meaning  # the packaged model, no extra installed, no download
        hits = search_project(memory, QUESTION, k=5, meaning=meaning)
        assert "JSONB" in hits[0].text
        printed, _ = select_hits(load_config(), memory, QUESTION, 5, None)
        assert "JSONB" in printed[0].text  # `cms search`: words alone found fewer than 5
    finally:
        memory.close()


def test_mode_off_leaves_search_lexical(tmp_path: Path, isolated_home: Path) -> None:
    (isolated_home / "cms.toml").write_text('[semantic]\nmode = "off"\n', encoding="utf-8")
    store = ObservationStore(tmp_path / "o.db", "p")
    assert meaning_for(load_config(), store, QUESTION, None) is None


def test_tools_passages_are_left_to_their_words(tmp_path: Path, isolated_home: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    said = [("user", CHOICE), (TOOL_SPEAKER, "psql -c 'select version()'")]
    store.write(lambda c: index_passages(c, "chat-1", 1, said, now=1000.0))
    model = load_model()
    while give_meanings(store, lambda texts: [pack(model.encode(t)) for t in texts]):
        pass
    keys, blobs = newest_meanings(store, 100)
    assert len(keys) == len(blobs) == 1  # the user's words, not the tool's
    texts = store.read(lambda c: [r[0] for r in c.execute("SELECT text FROM facts")])
    assert len(texts) == 2
