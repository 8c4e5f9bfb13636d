"""The semantic index end to end: vectors computed by the worker, kept current, fused into
recall and `cms search` by score, rebuilt by `cms reindex`; without the extra or the model, one
notice line and lexical search."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cms.config import load_config
from cms.observations.access import open_project_memory
from cms.observations.model import NewObservation
from cms.observations.recall import recall
from cms.observations.scope import BranchScope
from cms.observations.store import ObservationStore
from cms.semantic import load_embedder, query_meaning, update_vectors
from tests.hooks.helpers import hook_env, replay_chat_hooks
from tests.observations.gitrepo import make_repo
from tests.semantic.tinymodel import build_tiny_model

CLERK = "Clerk integration via middleware"


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


@pytest.fixture
def semantic_config(tiny_model: Path, isolated_home: Path) -> Path:
    config = isolated_home / "cms.toml"
    config.write_text(f'[semantic]\nmode = "on"\nmodel = "{tiny_model}"\n', encoding="utf-8")
    return config


def vector_count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])


def test_recall_finds_by_meaning_what_shares_no_word_with_the_query(
    semantic_config: Path, tmp_path: Path
) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    clerk = store.add(NewObservation("decision", "Auth", CLERK))
    store.add(NewObservation("decision", "Database", "We use PostgreSQL 16"))
    store.add(NewObservation("learning", "Weather", "It was sunny"))
    embedder = load_embedder(load_config())
    assert embedder is not None
    assert update_vectors(store, embedder) == 3
    assert update_vectors(store, embedder) == 0  # nothing changed, nothing computed
    scope = BranchScope.everywhere()
    assert recall(store, "oauth implementation", scope=scope, touch=False) == []
    meaning = query_meaning(store, embedder, "oauth implementation")
    hits = recall(store, "oauth implementation", scope=scope, touch=False, meaning=meaning)
    assert hits[0].observation.id == clerk


def test_a_changed_or_superseded_item_gets_its_vector_computed_again_or_dropped(
    semantic_config: Path, tmp_path: Path
) -> None:
    from cms.observations.revisions import update_observation

    store = ObservationStore(tmp_path / "o.db", "p")
    first = store.add(NewObservation("decision", "Auth", CLERK))
    embedder = load_embedder(load_config())
    assert embedder is not None
    update_vectors(store, embedder)
    update_observation(store, first, body="Clerk login through middleware")
    assert update_vectors(store, embedder) == 1
    store.forget(ids=[first])
    update_vectors(store, embedder)
    assert vector_count(tmp_path / "o.db") == 0


def test_the_worker_indexes_a_chat_and_cms_search_fuses_it(
    semantic_config: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "shop")
    env = hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})
    turns = [
        (
            f"We decided on {CLERK} for the web app because it handles sessions.",
            f"Noted: {CLERK} for the web app.",
        )
    ]
    replay_chat_hooks(tmp_path, repo, "chat-sem-1", turns, env)
    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        db = Path(memory.store.path)
    assert vector_count(db) > 0
    done = subprocess.run(
        [sys.executable, "-m", "cms", "search", "oauth implementation", "-k", "3"],
        capture_output=True, text=True, env=env, cwd=repo, check=True, timeout=120,
    )  # fmt: skip
    assert CLERK in done.stdout, done.stdout + done.stderr
    assert done.stderr == ""


def test_reindex_computes_every_vector_again(semantic_config: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    env = hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})
    replay_chat_hooks(tmp_path, repo, "chat-sem-2", [(f"We use {CLERK}.", "Noted.")], env)
    done = subprocess.run(
        [sys.executable, "-m", "cms", "reindex", "--cwd", str(repo)],
        capture_output=True, text=True, env=env, check=True, timeout=120,
    )  # fmt: skip
    assert "semantic index:" in done.stdout and "vectors computed" in done.stdout


def _search_without(block: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`cms search` in a process where importing `block` fails (the extra is not installed)."""
    code = (
        "import sys\n"
        f"sys.modules[{block!r}] = None  # what an interpreter without the package sees\n"
        "from cms.entry import main\n"
        "sys.argv = ['cms', 'search', 'postgresql']\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
        timeout=120, check=False,
    )  # fmt: skip


def test_without_the_extra_one_notice_and_lexical_search(
    semantic_config: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "shop")
    env = hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})
    replay_chat_hooks(
        tmp_path, repo, "chat-sem-3", [("We decided to use PostgreSQL 16.", "Noted.")], env
    )
    done = _search_without("model2vec", env, repo)
    assert done.returncode == 0, done.stderr
    assert "PostgreSQL 16" in done.stdout
    (notice,) = done.stderr.splitlines()
    assert (
        "semantic extra is not installed" in notice and "the packaged model ranks instead" in notice
    )


def test_without_the_model_one_notice_and_lexical_search(
    tmp_path: Path, isolated_home: Path
) -> None:
    (isolated_home / "cms.toml").write_text('[semantic]\nmode = "on"\n', encoding="utf-8")
    repo = make_repo(tmp_path / "shop")
    env = hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})
    replay_chat_hooks(
        tmp_path, repo, "chat-sem-4", [("We decided to use PostgreSQL 16.", "Noted.")], env
    )
    done = subprocess.run(
        [sys.executable, "-m", "cms", "search", "postgresql"],
        capture_output=True, text=True, env=env, cwd=repo, check=True, timeout=120,
    )  # fmt: skip
    assert "PostgreSQL 16" in done.stdout
    (notice,) = done.stderr.splitlines()
    assert "no semantic model at" in notice and "cms semantic download" in notice


def test_auto_mode_says_nothing_to_a_user_who_never_set_semantic_search_up(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cms.semantic

    monkeypatch.setattr(cms.semantic, "extra_installed", lambda: False)
    notes: list[str] = []
    assert load_embedder(load_config(), notes.append) is None
    assert notes == []  # auto: silent (`cms doctor` says why)
    (isolated_home / "cms.toml").write_text('[semantic]\nmode = "on"\n', encoding="utf-8")
    assert load_embedder(load_config(), notes.append) is None
    assert len(notes) == 1 and "semantic extra is not installed" in notes[0]
    (isolated_home / "cms.toml").write_text('[semantic]\nmode = "off"\n', encoding="utf-8")
    assert load_embedder(load_config(), notes.append) is None and len(notes) == 1


def test_a_query_word_is_covered_by_a_word_of_like_meaning_and_half_as_much_around_it(
    semantic_config: Path,
) -> None:
    embedder = load_embedder(load_config())
    assert embedder is not None
    own, around, unrelated, empty = embedder.coverage(
        ["oauth"], [(["clerk"], []), ([], ["clerk"]), (["sunny"], []), ([], [])], 0.5
    )
    assert own > 0.8
    assert around == pytest.approx(own / 2, rel=1e-3)
    assert unrelated < 0.2 and empty == 0.0


def test_an_observation_is_embedded_after_its_context_cut_to_its_own_length(
    tmp_path: Path,
) -> None:
    from cms.observations.vectors import live_texts, observation_key

    store = ObservationStore(tmp_path / "o.db", "p")
    context = "the user asked which login provider the web app should use " * 3
    clerk = store.add(NewObservation("decision", "Auth", CLERK, context=context))
    bare = store.add(NewObservation("decision", "Database", "We use PostgreSQL 16"))
    texts = store.read(live_texts)
    own = f"Auth: {CLERK}"
    assert texts[observation_key(clerk)] == "the user asked which login\n" + own  # 5 words
    assert texts[observation_key(bare)] == "Database: We use PostgreSQL 16"


def test_of_two_lexical_matches_recall_ranks_first_the_one_whose_other_words_mean_the_query(
    semantic_config: Path, tmp_path: Path
) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    sunny = store.add(NewObservation("learning", "Setup notes", "setup of the sunny widget"))
    login = store.add(NewObservation("learning", "Setup steps", "setup of the clerk middleware"))
    embedder = load_embedder(load_config())
    assert embedder is not None
    update_vectors(store, embedder)
    scope = BranchScope.everywhere()
    lexical = recall(store, "oauth setup", scope=scope, touch=False, now=0.0)
    assert {h.observation.id for h in lexical} == {sunny, login}
    assert lexical[0].score == pytest.approx(lexical[1].score)  # "setup" alone: a tie
    meaning = query_meaning(store, embedder, "oauth setup")
    fused = recall(store, "oauth setup", scope=scope, touch=False, now=0.0, meaning=meaning)
    assert [h.observation.id for h in fused] == [login, sunny]
    assert fused[0].score > fused[1].score


def test_the_mcp_recall_tool_finds_by_meaning_through_the_semantic_index(
    semantic_config: Path, tmp_path: Path
) -> None:
    import anyio

    from tests.mcp_server.helpers import make_git_project, memory_client

    project = make_git_project(tmp_path / "proj")
    config = load_config()

    async def recall_by_tool(query: str) -> list[str]:
        async with memory_client(project, config) as client:
            result = await client.call_tool("recall", {"query": query})
        return [o["title"] for o in result.structured_content["observations"]]

    async def remember() -> None:
        async with memory_client(project, config) as client:
            for title in (CLERK, "We use PostgreSQL 16"):
                await client.call_tool("remember", {"kind": "decision", "title": title})

    anyio.run(remember)
    memory = open_project_memory(project, create=False)
    embedder = load_embedder(config)
    assert memory is not None and embedder is not None
    with memory:
        assert update_vectors(memory.store, embedder) == 2  # what the worker does after a job
    assert anyio.run(recall_by_tool, "oauth implementation")[0] == CLERK
