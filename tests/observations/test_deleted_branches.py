"""Deleted branches never merged, on real git repositories: an abandoned branch is named, one
deleted after a merge (normal, squash, rebase) is not (cms.observations.deletedbranches)."""

from __future__ import annotations

import time
from pathlib import Path

from cms.observations.deletedbranches import (
    COMMITS_GONE,
    NO_COMMITS,
    UNMERGED,
    DeletedBranch,
    deleted_unmerged,
)

from .gitrepo import capture, commit_file, git, make_repo, memory


def deleted(repo: Path) -> list[DeletedBranch]:
    with memory(repo) as mem:
        return deleted_unmerged(mem.store, repo)


def names(repo: Path) -> list[str]:
    return [b.name for b in deleted(repo)]


def branch_with_memory(repo: Path, branch: str, *files: str) -> str:
    """A branch with one commit of its own per file, memory captured on its last commit."""
    git(repo, "checkout", "-q", "-b", branch)
    for name in files:
        commit_file(repo, name, f"{branch} {name}\n", f"{branch}: {name}")
    capture(repo, f"Decision made on {branch}", f"why {branch} was tried")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return head


def test_an_abandoned_branch_is_named_with_its_count_time_and_forget_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    capture(repo, "Main decision", "made on main")
    before = time.time()
    branch_with_memory(repo, "experiment", "x.txt", "y.txt")
    git(repo, "branch", "-q", "-D", "experiment")
    commit_file(repo, "z.txt", "main moves on\n", "unrelated work on main")

    (found,) = deleted(repo)
    assert found.name == "experiment"
    assert found.observations == 1
    assert found.status == UNMERGED
    assert before <= found.last_captured <= time.time()
    assert found.held_by == ()
    assert found.forget_command() == "cms forget --branch experiment"
    assert found.describe().startswith("experiment: 1 observation, last captured just now")

    with memory(repo) as mem:
        mem.store.forget(branch="experiment")
    assert deleted(repo) == []


def test_a_branch_that_still_exists_or_is_merged_normally_is_not_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    branch_with_memory(repo, "feat-open", "open.txt")
    branch_with_memory(repo, "feat-merged", "merged.txt")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feat-merged", "feat-merged")
    git(repo, "branch", "-q", "-d", "feat-merged")
    assert names(repo) == []


def test_a_squash_merged_branch_deleted_after_more_commits_is_not_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat-squash")
    commit_file(repo, "s.txt", "one\n", "step one")
    commit_file(repo, "t.txt", "one\n", "step one, tests")
    capture(repo, "Use pnpm workspaces", "npm hoisting broke shared types")
    commit_file(repo, "s.txt", "two\n", "step two")  # the same lines again: no clean merge
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "feat-squash")
    git(repo, "commit", "-q", "-m", "Add pnpm workspaces (#12)")  # a message of its own
    git(repo, "branch", "-q", "-D", "feat-squash")
    commit_file(repo, "s.txt", "three\n", "main moves on")
    assert names(repo) == []


def test_a_squash_named_by_gits_own_message_is_not_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat-msg")
    commit_file(repo, "a.txt", "tried\n", "try a")
    capture(repo, "Tried a", "a was tried first")
    git(repo, "rm", "-q", "a.txt")
    git(repo, "commit", "-q", "-m", "drop a again")
    commit_file(repo, "b.txt", "kept\n", "keep b")  # the squash touches b only
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "feat-msg")
    git(repo, "commit", "-q", "--no-edit")  # "Squashed commit of the following: commit ..."
    git(repo, "branch", "-q", "-D", "feat-msg")
    assert names(repo) == []


def test_a_rebase_merged_branch_is_not_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    last = branch_with_memory(repo, "feat-rebase", "r.txt", "s.txt")
    commit_file(repo, "main.txt", "m\n", "main moves on")
    git(repo, "cherry-pick", f"main..{last}")  # what "rebase and merge" leaves: each patch
    git(repo, "branch", "-q", "-D", "feat-rebase")
    assert names(repo) == []


def test_a_branch_left_on_a_remote_is_not_named_until_the_remote_drops_it(
    tmp_path: Path,
) -> None:
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    repo = make_repo(tmp_path / "app")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    branch_with_memory(repo, "feat-pushed", "p.txt")
    git(repo, "push", "-q", "origin", "feat-pushed")
    git(repo, "branch", "-q", "-D", "feat-pushed")
    assert names(repo) == []
    git(repo, "push", "-q", "origin", "--delete", "feat-pushed")
    assert names(repo) == ["feat-pushed"]


def test_a_branch_squash_merged_on_the_remote_is_not_named_before_main_is_pulled(
    tmp_path: Path,
) -> None:
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    repo = make_repo(tmp_path / "app")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    branch_with_memory(repo, "feat-pr", "pr.txt", "pr_test.txt")
    git(repo, "push", "-q", "-u", "origin", "feat-pr")
    forge = tmp_path / "forge"  # what the forge's "squash and merge" does, elsewhere
    git(tmp_path, "clone", "-q", str(remote), str(forge))
    git(forge, "config", "user.email", "forge@example.com")
    git(forge, "config", "user.name", "Forge")
    git(forge, "merge", "-q", "--squash", "origin/feat-pr")
    git(forge, "commit", "-q", "-m", "Add the PR feature (#7)")
    git(forge, "push", "-q", "origin", "main", ":feat-pr")
    git(repo, "fetch", "-q", "--prune", "origin")
    git(repo, "branch", "-q", "-D", "feat-pr")  # local main is not pulled yet
    assert names(repo) == []


def test_a_renamed_branch_is_named_with_the_branch_holding_its_commits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    branch_with_memory(repo, "old-name", "o.txt")
    git(repo, "branch", "-q", "-m", "old-name", "new-name")
    (found,) = deleted(repo)
    assert (found.name, found.held_by) == ("old-name", ("new-name",))
    assert found.describe().endswith("; its commits are still on new-name")


def test_memory_from_before_a_first_commit_and_pruned_commits_are_named_as_uncheckable(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "no-commit-yet")
    capture(repo, "Plan", "a plan made before any commit")
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-q", "-D", "no-commit-yet")
    branch_with_memory(repo, "pruned", "p.txt")
    git(repo, "branch", "-q", "-D", "pruned")
    git(repo, "reflog", "expire", "--expire-unreachable=now", "--all")
    git(repo, "gc", "-q", "--prune=now")

    found = {b.name: b.status for b in deleted(repo)}
    assert found == {"no-commit-yet": NO_COMMITS, "pruned": COMMITS_GONE}
    text = {b.name: b.describe() for b in deleted(repo)}
    assert "merge not checkable" in text["pruned"] and "gone" in text["pruned"]


def test_a_branch_whose_memory_is_all_superseded_or_archived_is_not_named(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    branch_with_memory(repo, "old-idea", "i.txt")
    git(repo, "branch", "-q", "-D", "old-idea")
    with memory(repo) as mem:
        (obs,) = mem.store.list_observations(branch="old-idea")
        mem.store.write(
            lambda c: c.execute("UPDATE observations SET archived_at = 1 WHERE id = ?", (obs.id,))
        )
    assert names(repo) == []


def test_names_that_need_quoting_get_a_quoted_forget_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    branch_with_memory(repo, "it's-$HOME", "q.txt")
    git(repo, "branch", "-q", "-D", "it's-$HOME")
    (found,) = deleted(repo)
    assert found.forget_command() == "cms forget --branch 'it'\"'\"'s-$HOME'"
    assert found.forget_command(tmp_path / "my app") == (
        f"cms forget --branch 'it'\"'\"'s-$HOME' --cwd '{tmp_path / 'my app'}'"
    )


def test_outside_git_nothing_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    capture(folder, "No git here", "a folder without a repository")
    assert deleted(folder) == []
