"""Reading git state from the .git files, and the ancestry cache that keeps git off the prompt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cms.observations.scope import BranchScope, current_scope, read_git_state

from .gitrepo import commit_file, git, make_repo


def test_git_state_matches_what_git_itself_reports(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "branch", "feature/nested-name")
    git(repo, "checkout", "-q", "-b", "work")
    head = commit_file(repo, "w.txt", "w", "work")
    sub = repo / "sub"
    sub.mkdir()
    state = read_git_state(sub)
    assert state is not None
    assert state.branch == "work"
    assert state.head == head == git(repo, "rev-parse", "HEAD")
    assert set(state.branches) == {"main", "work", "feature/nested-name"}
    assert state.branches["main"] == git(repo, "rev-parse", "main")


def test_packed_refs_are_read_like_loose_ones(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "branch", "packed-one")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "packed-one").exists()
    state = read_git_state(repo)
    assert state is not None
    assert state.head == git(repo, "rev-parse", "HEAD")
    assert {"main", "packed-one"} <= set(state.branches)


def test_detached_head_has_no_branch_but_a_commit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach")
    state = read_git_state(repo)
    assert state is not None
    assert (state.branch, state.head) == (None, head)


def test_repository_before_its_first_commit_has_a_branch_and_no_head(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    scope = current_scope(repo)
    assert (scope.in_git, scope.branch, scope.head) == (True, "main", None)
    assert scope.visibility("other", "0" * 40) == "deleted"


def test_ancestry_answers_are_cached_so_the_next_prompt_runs_no_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat")
    feat_commit = commit_file(repo, "f.txt", "f", "feature")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "feat")
    cache = tmp_path / "git-cache.json"

    first = current_scope(repo, cache)
    assert first.visibility("feat", feat_commit) == "merged"
    assert first.ancestry is not None and first.ancestry.git_calls == 1
    assert json.loads(cache.read_text(encoding="utf-8"))["ancestry"]

    second = current_scope(repo, cache)
    assert second.visibility("feat", feat_commit) == "merged"
    assert second.ancestry is not None and second.ancestry.git_calls == 0


def test_the_ancestry_cache_is_made_only_when_a_question_needs_it(tmp_path: Path) -> None:
    """Current and default branches need no ancestry: the prompt hook then never imports it."""
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat")
    feat_commit = commit_file(repo, "f.txt", "f", "feature")
    scope = current_scope(repo, tmp_path / "git-cache.json")
    assert scope.visibility("feat", feat_commit) == "current"
    assert scope.visibility("main", None) == "default"
    assert scope.ancestry is not None and scope.ancestry.git_calls == 0
    probe = (
        "import sys; from cms.observations.scope import current_scope; "
        f"s = current_scope({str(repo)!r}); s.visibility('main', None); "
        "print('cms.observations.ancestry' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True)
    assert done.stdout.strip() == b"False"


def test_a_new_commit_inherits_its_parents_cached_answer_without_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat")
    feat_commit = commit_file(repo, "f.txt", "f", "feature")
    git(repo, "checkout", "-q", "-b", "side", "main")
    side_commit = commit_file(repo, "s.txt", "s", "side")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "feat")
    cache = tmp_path / "git-cache.json"
    warm = current_scope(repo, cache)
    assert warm.visibility("feat", feat_commit) == "merged"
    assert warm.visibility("side", side_commit) is None

    commit_file(repo, "later.txt", "later", "a commit after the merge")
    commit_file(repo, "later2.txt", "later", "and another")
    after = current_scope(repo, cache)
    assert after.visibility("feat", feat_commit) == "merged"
    assert after.visibility("side", side_commit) is None
    assert after.ancestry is not None and after.ancestry.git_calls == 0


def test_a_corrupt_cache_file_is_ignored_and_rewritten(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat")
    feat_commit = commit_file(repo, "f.txt", "f", "feature")
    git(repo, "checkout", "-q", "main")
    cache = tmp_path / "git-cache.json"
    cache.write_text("{not json", encoding="utf-8")
    scope = current_scope(repo, cache)
    assert scope.visibility("feat", feat_commit) is None
    assert json.loads(cache.read_text(encoding="utf-8"))["version"] == 1


def test_scope_outside_git_shows_everything() -> None:
    scope = BranchScope.everywhere()
    assert scope.visibility("any-branch", "abc") == "no-git"
    assert scope.is_visible(None, None)
