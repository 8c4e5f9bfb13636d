"""Two versions of one subject on two branches (DESIGN.md section 5): a feature branch's later
version is in force on that branch (and where it is merged), the default branch's one
everywhere else; on real git repositories."""

from __future__ import annotations

from pathlib import Path

from cms.observations.capture import capture_observations
from cms.observations.chatsync import SyncResult, retire_items
from cms.observations.filenotes import file_notes
from cms.observations.memoryfile import chosen_observations
from cms.observations.model import NewObservation
from cms.observations.recall import briefing, in_force, recall
from cms.observations.revisions import supersede_observation
from cms.observations.upkeep import apply_folds, fold_plan

from .gitrepo import capture, commit_file, git, make_repo, memory

TITLE = "Database"
OLD = "The production database runs PostgreSQL 15"
NEW = "The production database runs PostgreSQL 16"
QUERY = "which PostgreSQL version does the production database run"


def recalled(cwd: Path, query: str = QUERY) -> list[str]:
    with memory(cwd) as mem:
        hits = recall(mem.store, query, scope=mem.scope, limit=10, touch=False)
    return [h.observation.body for h in hits]


def rules(cwd: Path) -> list[str]:
    with memory(cwd) as mem:
        return [r.observation.body for r in in_force(mem.store, mem.scope)]


def two_versions(tmp_path: Path, kind: str = "decision") -> Path:
    """main decides PostgreSQL 15; the branch feat-pg16 (one commit of its own) later 16."""
    repo = make_repo(tmp_path / "app")
    capture(repo, TITLE, OLD, kind=kind)
    git(repo, "checkout", "-q", "-b", "feat-pg16")
    commit_file(repo, "db.txt", "16\n", "upgrade the database")
    capture(repo, TITLE, NEW, kind=kind)
    return repo


def test_the_feature_branch_gets_only_its_newer_version_and_main_keeps_its_own(
    tmp_path: Path,
) -> None:
    repo = two_versions(tmp_path)
    assert recalled(repo) == [NEW]
    assert rules(repo) == [NEW]

    git(repo, "checkout", "-q", "main")
    assert recalled(repo) == [OLD]
    assert rules(repo) == [OLD]
    with memory(repo) as mem:  # both stay live: neither is superseded for every branch
        assert {o.body for o in mem.store.list_observations()} == {OLD, NEW}


def test_after_the_merge_the_newer_version_wins_on_main_too(tmp_path: Path) -> None:
    repo = two_versions(tmp_path)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feat-pg16", "feat-pg16")
    assert recalled(repo) == [NEW]
    assert rules(repo) == [NEW]


def test_another_unmerged_branch_keeps_mains_version(tmp_path: Path) -> None:
    repo = two_versions(tmp_path)
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "feat-other")
    commit_file(repo, "other.txt", "o\n", "other work")
    assert recalled(repo) == [OLD]
    assert rules(repo) == [OLD]


def test_versions_with_different_titles_are_one_subject_by_their_statement(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    capture(repo, "Orders database", "The orders database runs PostgreSQL 15 in production")
    git(repo, "checkout", "-q", "-b", "feat-pg16")
    commit_file(repo, "db.txt", "16\n", "upgrade")
    capture(repo, "Upgrade plan", "The orders database runs PostgreSQL 16 in production")
    query = "orders database PostgreSQL production"
    assert recalled(repo, query) == ["The orders database runs PostgreSQL 16 in production"]
    git(repo, "checkout", "-q", "main")
    assert recalled(repo, query) == ["The orders database runs PostgreSQL 15 in production"]


def test_the_newer_version_takes_the_place_of_the_older_when_only_the_older_matches(
    tmp_path: Path,
) -> None:
    repo = two_versions(tmp_path)
    with memory(repo) as mem:  # the session briefing reads by importance: the older ranks first
        old = next(o for o in mem.store.list_observations() if o.body == OLD)
        mem.store.write(lambda c: c.execute("UPDATE observations SET importance = 5 WHERE id = ?", (old.id,)))  # fmt: skip
        top = briefing(mem.store, mem.scope, 1, touch=False)
    assert [r.observation.body for r in top] == [NEW]


def test_a_later_version_on_the_same_branch_inherits_the_change(tmp_path: Path) -> None:
    repo = two_versions(tmp_path)
    capture(repo, TITLE, "The production database runs PostgreSQL 17")
    assert recalled(repo) == ["The production database runs PostgreSQL 17"]
    git(repo, "checkout", "-q", "main")
    assert recalled(repo) == [OLD]


def test_a_new_text_of_the_same_chat_fact_passes_the_change_on(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    capture(repo, TITLE, OLD)
    git(repo, "checkout", "-q", "-b", "feat-pg16")
    commit_file(repo, "db.txt", "16\n", "upgrade")
    fact = "chat-1/F1"
    for body in (NEW, "Deploy with the cluster image pg16-prod from the registry"):
        with memory(repo) as mem:
            new = NewObservation("decision", "Stack: Database", body, source=fact)
            capture_observations(mem.store, [new], session="chat-1", agent="t", cwd=repo)
    assert OLD not in recalled(repo)  # the fact's later text carries the change
    git(repo, "checkout", "-q", "main")
    assert recalled(repo) == [OLD]


def test_a_hand_revision_passes_the_change_on(tmp_path: Path) -> None:
    repo = two_versions(tmp_path)
    with memory(repo) as mem:
        new_id = next(o.id for o in mem.store.list_observations() if o.body == NEW)
        supersede_observation(
            mem.store,
            new_id,
            NewObservation("decision", "Database engine", "We run PostgreSQL 16.2 now"),
            cwd=repo,
            session=None,
            agent="test",
        )
    assert recalled(repo, "PostgreSQL database") == ["We run PostgreSQL 16.2 now"]
    git(repo, "checkout", "-q", "main")
    assert recalled(repo, "PostgreSQL database") == [OLD]


def test_a_gc_fold_passes_the_change_on(tmp_path: Path) -> None:
    repo = two_versions(tmp_path)
    later = "The production database runs PostgreSQL 16.1"
    with memory(repo) as mem:  # stored as given (an import would), left for gc to fold
        commit = git(repo, "rev-parse", "HEAD")
        mem.store.add(
            NewObservation("decision", "Engine", later), branch="feat-pg16", commit=commit
        )
        folds = fold_plan(mem.store)
        assert [f.newer.body for f in folds] == [later]
        apply_folds(mem.store, folds)
    assert recalled(repo) == [later]
    git(repo, "checkout", "-q", "main")
    assert recalled(repo) == [OLD]


def test_forgetting_the_branch_brings_mains_version_back_everywhere(tmp_path: Path) -> None:
    repo = two_versions(tmp_path)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "feat-pg16")
    with memory(repo) as mem:
        assert mem.store.forget(branch="feat-pg16") == 1
        count = mem.store.read(lambda c: c.execute("SELECT COUNT(*) FROM overrides").fetchone())
    assert count == (0,)
    assert recalled(repo) == [OLD]


def test_main_restating_its_version_on_a_branch_changes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    capture(repo, TITLE, OLD)
    git(repo, "checkout", "-q", "-b", "feat-docs")
    with memory(repo) as mem:
        ids = capture_observations(
            mem.store, [NewObservation("decision", TITLE, OLD)], session="s", agent="t", cwd=repo
        )
    assert ids == []  # a restatement: folded into main's, nothing overridden
    git(repo, "checkout", "-q", "main")
    assert recalled(repo) == [OLD]


def test_an_update_model_retiring_mains_item_on_a_branch_overrides_it_there_only(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    capture(repo, "Cache", "Memcached holds the session cache")
    git(repo, "checkout", "-q", "-b", "feat-redis")
    commit_file(repo, "cache.txt", "redis\n", "redis")
    new_id = capture(repo, "Session store", "Redis holds the sessions from now on")
    with memory(repo) as mem:
        old_id = next(o.id for o in mem.store.list_observations() if o.body.startswith("Mem"))
        assert retire_items(mem, [f"O{old_id}"], SyncResult([], [new_id])) == 1
        assert mem.store.get(old_id).superseded_by is None  # type: ignore[union-attr]
    assert recalled(repo, "session cache Memcached Redis") == [
        "Redis holds the sessions from now on"
    ]
    git(repo, "checkout", "-q", "main")
    assert recalled(repo, "session cache Memcached Redis") == ["Memcached holds the session cache"]


def test_the_export_view_and_the_file_notes_know_the_change(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    capture(repo, "Config file", "Settings live in settings.toml, read at start", kind="learning")
    git(repo, "checkout", "-q", "-b", "feat-yaml")
    commit_file(repo, "settings.yaml", "a: 1\n", "yaml")
    capture(
        repo, "Config file", "Settings live in settings.yaml now, read at start", kind="learning"
    )
    with memory(repo) as mem:
        bodies = [o.body for o in chosen_observations(mem.store, mem.scope, 6000)]
        notes = file_notes(mem.store)
        old_id = next(o.id for o in mem.store.list_observations() if "toml" in o.body)
    assert bodies == ["Settings live in settings.yaml now, read at start"]
    items = notes["items"]
    assert isinstance(items, dict)
    assert items[f"O{old_id}"][3] == ["feat-yaml"]  # the PreToolUse hook skips it there
    git(repo, "checkout", "-q", "main")
    with memory(repo) as mem:
        bodies = [o.body for o in chosen_observations(mem.store, mem.scope, 6000)]
    assert bodies == ["Settings live in settings.toml, read at start"]
