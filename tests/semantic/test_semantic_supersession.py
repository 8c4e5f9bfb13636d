"""The worker's supersession and duplicate checks over semantic neighbours: the index widens
the candidates, the subject rules still decide (same subject, earlier, one branch)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cms.config import load_config
from cms.observations.model import NewObservation
from cms.observations.store import ObservationStore
from cms.observations.vectors import TEXT_VERSION
from cms.semantic import update_vectors
from cms.semantic.model import Embedder
from tests.semantic.tinymodel import build_tiny_model

FLYWAY = "We run the database migration with 'flyway'."
ALEMBIC = "From now on we run the database migration with 'alembic'."


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    folder = build_tiny_model(tmp_path_factory.mktemp("model") / "tiny")
    return Embedder(str(folder))


def superseded_by(store: ObservationStore, table: str, row_id: int) -> int | None:
    with sqlite3.connect(store.path) as conn:
        found = conn.execute(f"SELECT superseded_by FROM {table} WHERE id = ?", (row_id,))
        value = found.fetchone()[0]
    return None if value is None else int(value)


def test_a_new_observation_retires_the_earlier_version_its_vector_lies_near(
    embedder: Embedder, tmp_path: Path
) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    old = store.add(NewObservation("decision", "Migrations", FLYWAY), created_at=100.0)
    update_vectors(store, embedder, supersede=True)
    new = store.add(NewObservation("decision", "Schema tooling", ALEMBIC), created_at=200.0)
    assert update_vectors(store, embedder, supersede=True) == 1
    assert superseded_by(store, "observations", old) == new
    assert superseded_by(store, "observations", new) is None


def test_neighbours_of_another_subject_or_branch_and_a_rebuild_retire_nothing(
    embedder: Embedder, tmp_path: Path
) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    other_branch = store.add(
        NewObservation("decision", "Migrations", FLYWAY), branch="feature", created_at=100.0
    )
    other_subject = store.add(
        NewObservation("decision", "Migrations", "The database schema lives in one sql file."),
        branch="main",
        created_at=110.0,
    )
    rebuilt = store.add(NewObservation("decision", "Migrations", FLYWAY), branch="main")
    update_vectors(store, embedder)  # a rebuild (cms reindex) never retires anything
    store.add(NewObservation("decision", "Migrations", ALEMBIC), branch="main", created_at=1e12)
    update_vectors(store, embedder, supersede=True)
    assert superseded_by(store, "observations", other_branch) is None
    assert superseded_by(store, "observations", other_subject) is None
    assert superseded_by(store, "observations", rebuilt) is not None


def test_a_passage_never_retires_a_fact(embedder: Embedder, tmp_path: Path) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")

    def add(conn: sqlite3.Connection, kind: str, text: str, stamp: float) -> int:
        cursor = conn.execute(
            "INSERT INTO facts (session, fact_id, sun, planet, text, kind, turn, created_at, "
            "updated_at) VALUES ('chat-a', ?, 'Build', 'Migrations', ?, ?, 1, ?, ?)",
            (f"x{stamp}", text, kind, stamp, stamp),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    fact = store.write(lambda c: add(c, "fact", FLYWAY, 100.0))
    update_vectors(store, embedder, supersede=True)
    store.write(lambda c: add(c, "passage", ALEMBIC, 200.0))
    update_vectors(store, embedder, supersede=True)
    assert superseded_by(store, "facts", fact) is None


def test_a_fact_of_a_later_chat_retires_an_earlier_chat_fact_it_changes(
    embedder: Embedder, tmp_path: Path
) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")

    def add_fact(conn: sqlite3.Connection, session: str, text: str, stamp: float) -> int:
        cursor = conn.execute(
            "INSERT INTO facts (session, fact_id, sun, planet, text, kind, turn, created_at, "
            "updated_at) VALUES (?, 'F1', 'Build', 'Migrations', ?, 'fact', 1, ?, ?)",
            (session, text, stamp, stamp),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    old = store.write(lambda c: add_fact(c, "chat-a", FLYWAY, 100.0))
    update_vectors(store, embedder, supersede=True)
    new = store.write(lambda c: add_fact(c, "chat-b", ALEMBIC, 200.0))
    update_vectors(store, embedder, supersede=True)
    assert superseded_by(store, "facts", old) == new


def test_the_worker_checks_neighbours_after_a_job_when_the_semantic_index_is_on(
    tmp_path: Path, isolated_home: Path
) -> None:
    from cms.observations.access import open_project_memory
    from cms.worker.projectsync import update_semantic_index
    from tests.observations.gitrepo import make_repo

    folder = build_tiny_model(tmp_path / "tiny")
    (isolated_home / "cms.toml").write_text(
        f'[semantic]\nmode = "on"\nmodel = "{folder}"\n', encoding="utf-8"
    )
    repo = make_repo(tmp_path / "shop")
    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:
        store = memory.store
        old = store.add(NewObservation("decision", "Migrations", FLYWAY), created_at=100.0)
        store.add(NewObservation("decision", "Schema", ALEMBIC), created_at=150.0)
    assert update_semantic_index(str(repo), load_config()) == 2
    assert superseded_by(store, "observations", old) is None  # a first indexing judges nothing
    again = open_project_memory(repo, create=False)
    assert again is not None
    with again:
        again.store.add(NewObservation("decision", "Tooling", ALEMBIC), created_at=200.0)
    assert update_semantic_index(str(repo), load_config()) == 1
    assert superseded_by(store, "observations", old) is not None


def test_vectors_of_an_older_embedded_text_are_all_computed_again_judging_nothing(
    embedder: Embedder, tmp_path: Path
) -> None:
    store = ObservationStore(tmp_path / "o.db", "p")
    old = store.add(NewObservation("decision", "Migrations", FLYWAY), created_at=100.0)
    new = store.add(NewObservation("decision", "Schema tooling", ALEMBIC), created_at=200.0)
    with sqlite3.connect(store.path) as conn:  # an index of the text before TEXT_VERSION
        conn.executemany(
            "INSERT INTO vectors (item, model, digest, vec) VALUES (?, ?, 'old', ?)",
            [(f"O{i}", embedder.model_id, bytes(embedder.dim * 2)) for i in (old, new)],
        )
    assert update_vectors(store, embedder, supersede=True) == 2
    assert superseded_by(store, "observations", old) is None  # a first indexing: no judging
    with sqlite3.connect(store.path) as conn:
        models = {row[0] for row in conn.execute("SELECT model FROM vectors")}
    assert models == {f"{embedder.model_id}:t{TEXT_VERSION}"}
