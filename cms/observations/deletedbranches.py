"""Deleted branches never merged: branches named by a project's observations that exist neither
in the repository nor on a remote and whose work never reached the default branch. Their
memory is visible on every branch (DESIGN.md section 5), so `cms doctor` and `cms stats` name
them with the `cms forget --branch` line that drops them.

Owns the rule that tells a branch deleted after a merge (normal, rebase or squash) from an
abandoned one (see deleted_unmerged); runs git, so it is for commands, never for a hook. Knows
nothing of the CLI.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time

from cms.observations.ancestry import GIT_TIMEOUT
from cms.observations.recall import format_age
from cms.observations.scope import GitState, read_git_state
from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from cms.observations.store import ObservationStore
    from cms.paths import StrPath

SQUASH_SLACK = 600.0  # seconds a squash commit's time may precede the last capture (clocks)
LOG_LIMIT = 2000  # default-branch commits read for a squash commit, at most

UNMERGED = "unmerged"  # its work up to its last capture is not on the default branch
NO_COMMITS = "no-commits"  # memory captured before it had a commit of its own: nothing to check
COMMITS_GONE = "commits-gone"  # its commits are no longer in the repository (pruned)


class DeletedBranch(Record, frozen=True):
    """A deleted branch whose memory shows everywhere though it was never merged."""

    name: str
    observations: int  # live ones: visible on every branch
    last_captured: float  # Unix seconds of its newest capture
    status: str  # UNMERGED, NO_COMMITS or COMMITS_GONE
    held_by: tuple[str, ...] = ()  # existing branches holding its newest capture commit

    def forget_command(self, cwd: StrPath | None = None) -> str:
        """The exact command line that drops its observations."""
        line = f"cms forget --branch {shlex.quote(self.name)}"
        return line + (f" --cwd {shlex.quote(os.fspath(cwd))}" if cwd is not None else "")

    def describe(self, now: float | None = None) -> str:
        """`feat-x: 3 observations, last captured 2 days ago` and what is known of its commits."""
        age = format_age((time.time() if now is None else now) - self.last_captured)
        count = f"{self.observations} observation{'s' if self.observations != 1 else ''}"
        text = f"{self.name}: {count}, last captured {age}"
        if self.status == NO_COMMITS:
            text += " (captured before it had a commit of its own: merge not checkable)"
        elif self.status == COMMITS_GONE:
            text += " (its commits are gone from the repository: merge not checkable)"
        if self.held_by:
            text += f"; its commits are still on {', '.join(self.held_by)}"
        return text

    def to_dict(self, cwd: StrPath | None = None, now: float | None = None) -> dict[str, object]:
        return {
            "branch": self.name,
            "observations": self.observations,
            "last_captured": self.last_captured,
            "status": self.status,
            "held_by": list(self.held_by),
            "line": self.describe(now),
            "forget": self.forget_command(cwd),
        }


def _git(root: str, *args: str, stdin: str | None = None) -> tuple[int, str]:
    """(exit code, stdout) of one git command; (-1, "") when git cannot run."""
    try:
        done = subprocess.run(
            ["git", "-C", root, *args],
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return -1, ""
    return done.returncode, done.stdout


def _branch_rows(store: ObservationStore) -> dict[str, tuple[int, float]]:
    """branch -> (live observations, newest capture time), for every named branch."""
    rows = store.read(
        lambda c: c.execute(
            "SELECT branch, SUM(archived_at IS NULL AND superseded_by IS NULL), MAX(created_at) "
            "FROM observations WHERE branch IS NOT NULL GROUP BY branch"
        ).fetchall()
    )
    return {str(b): (int(n or 0), float(t or 0.0)) for b, n, t in rows}


def _own_commits(store: ObservationStore, branch: str) -> list[str]:
    """The branch's own capture commits (not shared with another branch), newest capture first."""
    rows = store.read(
        lambda c: c.execute(
            'SELECT "commit", MIN(shared_commit), MAX(created_at) FROM observations '
            'WHERE branch = ? AND "commit" IS NOT NULL GROUP BY "commit" ORDER BY 3 DESC',
            (branch,),
        ).fetchall()
    )
    return [str(sha) for sha, shared, _t in rows if not shared]


def _remote_branches(root: str) -> dict[str, list[str]]:
    """Branch name -> its commits on the remotes that have it (refs/remotes/<remote>/<name>)."""
    _code, remotes = _git(root, "remote")
    _code, refs = _git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/")
    found: dict[str, list[str]] = {}
    for line in refs.splitlines():
        ref, _, sha = line.partition(" ")
        for remote in remotes.split():
            prefix = f"refs/remotes/{remote}/"
            if ref.startswith(prefix) and ref != prefix + "HEAD":
                found.setdefault(ref[len(prefix) :], []).append(sha)
    return found


def _default_tips(state: GitState, remote: dict[str, list[str]]) -> list[str]:
    """The commits of the default branch here and on every remote (local ref first)."""
    defaults = sorted(state.default_branches)
    tips = [state.branches[d] for d in defaults if d in state.branches]
    tips += [sha for d in defaults for sha in remote.get(d, ())]
    if not tips and state.head:
        tips.append(state.head)  # no default branch known: the work tree's own
    return list(dict.fromkeys(tips))


def _existing(root: str, commits: Sequence[str]) -> list[str]:
    """The commits still in the repository, in the order given."""
    if not commits:
        return []
    _code, out = _git(
        root, "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin="\n".join(commits)
    )
    present = {line.split()[0] for line in out.splitlines() if line.endswith(" commit")}
    return [c for c in commits if c in present]


def _squashed_into(root: str, commit: str, tip: str, since: float) -> bool:
    """Whether tip holds the branch's work up to commit by a squash or rebase: every commit
    between the fork and commit has a patch-equivalent on tip (`git cherry`), or one commit on
    tip since the fork, made after the branch's last capture (since), changed every file the
    branch had changed by then."""
    code, cherry = _git(root, "cherry", tip, commit)
    marks = [line[:1] for line in cherry.splitlines() if line.strip()]
    if code == 0 and marks and all(mark == "-" for mark in marks):
        return True
    code, fork = _git(root, "merge-base", tip, commit)
    if code != 0 or not fork.strip():
        return False
    fork = fork.strip()
    _code, changed = _git(root, "diff", "--no-renames", "--name-only", fork, commit)
    files = set(changed.splitlines())
    if not files:
        return False
    _code, log = _git(
        root, "log", "--no-merges", "--no-renames", f"-n{LOG_LIMIT}", "--format=%x00%ct",
        "--name-only", f"{fork}..{tip}",
    )  # fmt: skip
    for entry in log.split("\0")[1:]:
        stamp, _, names = entry.partition("\n")
        if float(stamp or 0) >= since - SQUASH_SLACK and files <= set(names.split("\n")):
            return True
    return False


def _named_in_messages(
    root: str, tips: Sequence[str], commits: Sequence[str], since: float
) -> bool:
    """Whether a default-branch commit made after since names one of the capture commits by its
    full id, as git's own squash message does ("Squashed commit of the following: commit ...")."""
    if not commits:
        return False
    _code, log = _git(root, "log", f"-n{LOG_LIMIT}", f"--since=@{int(since)}", "--format=%B", *tips)
    return any(sha in log for sha in commits)


def _holders(root: str, commit: str) -> tuple[str, ...]:
    _code, out = _git(
        root, "for-each-ref", "--contains", commit, "--format=%(refname:short)",
        "refs/heads/", "refs/remotes/",
    )  # fmt: skip
    return tuple(line for line in out.splitlines() if line and not line.endswith("/HEAD"))


def deleted_unmerged(store: ObservationStore, cwd: StrPath) -> list[DeletedBranch]:
    """The deleted branches whose memory is visible everywhere though they were never merged,
    newest capture first; [] outside a git repository.

    The rule: a branch named by live observations that is neither a local branch, nor a default
    branch, nor a branch of any remote, is merged when the newest of its own capture commits
    (not shared with another branch) is still in the repository and
      - is an ancestor of the default branch (here or on a remote): a merge or fast-forward;
      - or every commit up to it has a patch-equivalent there (`git cherry`): a rebase merge,
        cherry-picks;
      - or one commit of the default branch, made after the branch's last capture, changed
        every file the branch had changed by that commit: a squash merge (the squash holds the
        whole branch, so it touches at least those files);
    or when a default-branch commit message names one of its capture commits (git's own squash
    message). Anything else is named: abandoned, or merged in a way git cannot show (its
    commits pruned, memory captured before it had a commit of its own).
    """
    state = read_git_state(cwd)
    if state is None:
        return []
    root = state.root
    rows = _branch_rows(store)
    gone = [
        name
        for name, (live, _t) in rows.items()
        if live and name not in state.branches and name not in state.default_branches
    ]
    if not gone:
        return []
    remote = _remote_branches(root)
    gone = [name for name in gone if name not in remote]
    tips = _default_tips(state, remote)
    found: list[DeletedBranch] = []
    for name in gone:
        live, last = rows[name]
        own = _own_commits(store, name)
        present = _existing(root, own)
        if own and _named_in_messages(root, tips, own, last - SQUASH_SLACK):
            continue
        if present:
            newest = present[0]
            if any(_git(root, "merge-base", "--is-ancestor", newest, tip)[0] == 0 for tip in tips):
                continue
            if any(_squashed_into(root, newest, tip, last) for tip in tips):
                continue
            status, holders = UNMERGED, _holders(root, newest)
        else:
            status, holders = (COMMITS_GONE if own else NO_COMMITS), ()
        found.append(DeletedBranch(name, live, last, status, holders))
    found.sort(key=lambda b: (-b.last_captured, b.name))
    return found
