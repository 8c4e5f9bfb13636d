"""Branch visibility of recalled observations on real git repositories (DESIGN.md section 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.observations.store import store_path
from cms.project import identify_project

from .gitrepo import capture, commit_file, git, make_repo, memory, recalled_titles

TITLE = "Use pnpm workspaces for shared types"
QUERY = "why pnpm workspaces?"


def test_feature_branch_capture_is_visible_on_its_branch_and_hidden_on_main_until_merged(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat-x")
    commit_file(repo, "x.txt", "x", "feature work")
    capture(repo, TITLE, "npm hoisting broke shared type packages")

    assert recalled_titles(repo, QUERY) == [TITLE]
    git(repo, "checkout", "-q", "main")
    assert recalled_titles(repo, QUERY) == []

    git(repo, "merge", "-q", "--no-ff", "-m", "merge feat-x", "feat-x")
    assert recalled_titles(repo, QUERY) == [TITLE]
    with memory(repo) as mem:
        obs = mem.store.list_observations()[0]
        assert mem.scope.visibility(obs.branch, obs.commit, obs.shared_commit) == "merged"


def test_squash_merged_branch_is_hidden_until_it_is_deleted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat-squash")
    commit_file(repo, "s.txt", "one", "step one")
    capture(repo, TITLE, "decided while squashing")
    commit_file(repo, "s.txt", "two", "step two")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "feat-squash")
    git(repo, "commit", "-q", "-m", "squashed feature")

    assert recalled_titles(repo, QUERY) == []  # squash: no ancestry, branch still there
    git(repo, "branch", "-q", "-D", "feat-squash")
    assert recalled_titles(repo, QUERY) == [TITLE]


def test_deleted_branch_observations_are_visible_on_every_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "experiment")
    commit_file(repo, "e.txt", "e", "experiment")
    capture(repo, TITLE, "tried on an experiment")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "other-feature")
    assert recalled_titles(repo, QUERY) == []

    git(repo, "branch", "-q", "-D", "experiment")
    assert recalled_titles(repo, QUERY) == [TITLE]
    git(repo, "checkout", "-q", "main")
    assert recalled_titles(repo, QUERY) == [TITLE]


def test_default_branch_observations_are_visible_on_unmerged_feature_branches(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "branch", "feat-late")
    commit_file(repo, "m.txt", "m", "main moves on")
    capture(repo, TITLE, "decided on main after the branch was made")
    git(repo, "checkout", "-q", "feat-late")
    assert recalled_titles(repo, QUERY) == [TITLE]


def test_capture_before_the_branch_has_its_own_commit_stays_hidden_until_deleted(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "fresh")
    capture(repo, TITLE, "captured at main's commit")
    with memory(repo) as mem:
        assert mem.store.list_observations()[0].shared_commit is True
    git(repo, "checkout", "-q", "main")
    assert recalled_titles(repo, QUERY) == []  # its commit is main's own: proves no merge
    git(repo, "branch", "-q", "-D", "fresh")
    assert recalled_titles(repo, QUERY) == [TITLE]


@pytest.mark.parametrize("merge", [["--no-ff", "-m", "merge fresh"], ["--ff-only"]])
def test_capture_before_the_branch_had_a_commit_shows_on_main_once_the_branch_is_merged(
    tmp_path: Path, merge: list[str]
) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "fresh")
    capture(repo, TITLE, "captured before the branch had a commit of its own")
    commit_file(repo, "f.txt", "f", "the branch's own work")
    git(repo, "checkout", "-q", "main")
    assert recalled_titles(repo, QUERY) == []  # not merged yet

    git(repo, "merge", "-q", *merge, "fresh")
    assert recalled_titles(repo, QUERY) == [TITLE]
    with memory(repo) as mem:
        obs = mem.store.list_observations()[0]
        assert obs.shared_commit is True
        assert mem.scope.visibility(obs.branch, obs.commit, obs.shared_commit) == "merged"


def test_capture_before_the_branch_had_a_commit_stays_hidden_on_another_unmerged_branch(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "branch", "other")
    git(repo, "checkout", "-q", "-b", "fresh")
    capture(repo, TITLE, "captured before the branch had a commit of its own")
    commit_file(repo, "f.txt", "f", "the branch's own work")
    git(repo, "checkout", "-q", "other")
    commit_file(repo, "o.txt", "o", "other work")
    assert recalled_titles(repo, QUERY) == []


def test_branch_whose_upstream_is_gone_is_visible(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    repo = make_repo(tmp_path / "app")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    git(repo, "checkout", "-q", "-b", "pr-branch")
    commit_file(repo, "p.txt", "p", "pull request work")
    git(repo, "push", "-q", "-u", "origin", "pr-branch")
    capture(repo, TITLE, "decided in a pull request")
    git(repo, "checkout", "-q", "main")
    assert recalled_titles(repo, QUERY) == []

    git(repo, "push", "-q", "origin", "--delete", "pr-branch")  # merged and deleted upstream
    assert recalled_titles(repo, QUERY) == [TITLE]
    with memory(repo) as mem:
        obs = mem.store.list_observations()[0]
        assert mem.scope.visibility(obs.branch, obs.commit) == "upstream-gone"


def test_remote_head_names_the_default_branch(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin", branch="trunk")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "config", "user.email", "test@example.com")
    git(clone, "config", "user.name", "Test")
    git(clone, "checkout", "-q", "-b", "topic")
    commit_file(clone, "t.txt", "t", "topic work")
    git(clone, "checkout", "-q", "trunk")
    commit_file(clone, "u.txt", "u", "trunk moves on")
    capture(clone, TITLE, "decided on trunk")
    git(clone, "checkout", "-q", "topic")
    with memory(clone) as mem:
        assert "trunk" in mem.scope.default_branches
    assert recalled_titles(clone, QUERY) == [TITLE]


def test_outside_git_everything_is_visible_and_recorded_without_branch(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    capture(folder, TITLE, "no repository here")
    with memory(folder) as mem:
        obs = mem.store.list_observations()[0]
        assert (obs.branch, obs.commit) == (None, None)
        assert mem.scope.in_git is False
    assert recalled_titles(folder, QUERY) == [TITLE]


def test_two_worktrees_of_one_repository_share_one_store(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    worktree = tmp_path / "app-wt"
    git(repo, "worktree", "add", "-q", "-b", "wt-branch", str(worktree))
    assert identify_project(worktree).id == identify_project(repo).id
    assert store_path(identify_project(worktree).id) == store_path(identify_project(repo).id)

    capture(repo, TITLE, "decided on main")
    assert recalled_titles(worktree, QUERY) == [TITLE]
    commit_file(worktree, "w.txt", "w", "worktree work")
    capture(worktree, "Worktree pnpm workspaces note", "captured in the worktree")
    with memory(repo) as mem:
        assert mem.scope.branch == "main"
        assert len(mem.store.list_observations()) == 2
    assert recalled_titles(repo, QUERY) == [TITLE]  # wt-branch exists and is not merged
    assert set(recalled_titles(worktree, QUERY)) == {TITLE, "Worktree pnpm workspaces note"}


def test_two_repositories_with_the_same_folder_name_never_share_a_store(tmp_path: Path) -> None:
    first = make_repo(tmp_path / "a" / "project")
    second = make_repo(tmp_path / "b" / "project")
    assert identify_project(first).id != identify_project(second).id
    assert identify_project(first).id.startswith("project-")
    capture(first, TITLE, "only in the first repository")
    assert recalled_titles(first, QUERY) == [TITLE]
    assert recalled_titles(second, QUERY) == []


def test_forget_branch_drops_an_abandoned_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "abandoned")
    commit_file(repo, "a.txt", "a", "abandoned work")
    capture(repo, TITLE, "abandoned idea")
    capture(repo, "Another pnpm workspaces idea", "also abandoned")
    git(repo, "checkout", "-q", "main")
    with memory(repo) as mem:
        assert mem.store.forget(branch="abandoned") == 2
        assert mem.store.list_observations() == []
    git(repo, "branch", "-q", "-D", "abandoned")
    assert recalled_titles(repo, QUERY) == []
