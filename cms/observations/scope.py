"""Git branch visibility of observations (DESIGN.md section 5), cheap enough for every prompt.

Owns reading the current branch, HEAD, local and remote refs and upstreams straight from the
.git files (no process), and deciding from them which captured branch/commit pairs are
visible; "is commit X an ancestor of HEAD" is ancestry.py's. Knows nothing of the store's rows,
ranking, hooks or the CLI.
"""

from __future__ import annotations

import os

from cms.project import git_folders, resolved_folder
from cms.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.observations.ancestry import AncestryCache
    from cms.paths import StrPath

DEFAULT_NAMES = ("main", "master")


class GitState(Record, frozen=True):
    """What the .git files say about one work tree (built per prompt; folders as str)."""

    root: str
    git_dir: str
    common_dir: str
    branch: str | None  # None when HEAD is detached
    head: str | None  # None before the first commit
    branches: dict[str, str]  # local branch -> commit
    default_branches: frozenset[str]
    gone_branches: frozenset[str]  # upstream configured but its ref is gone

    def __repr__(self) -> str:
        return f"GitState(root={self.root!r}, branch={self.branch!r}, head={self.head!r})"


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _read_refs(common_dir: str) -> dict[str, str]:
    """Every ref name -> commit from packed-refs and loose files under refs/ (loose wins)."""
    refs: dict[str, str] = {}
    packed = _read_text(os.path.join(common_dir, "packed-refs")) or ""
    for line in packed.splitlines():
        if line and line[0] not in "#^":
            sha, _, name = line.partition(" ")
            if name:
                refs[name.strip()] = sha
    for sub in ("refs/heads", "refs/remotes"):
        for folder, _dirs, files in os.walk(os.path.join(common_dir, sub)):
            rel_folder = os.path.relpath(folder, common_dir).replace(os.sep, "/")
            for name in files:
                text = _read_text(os.path.join(folder, name))
                if text and not text.startswith("ref:"):
                    refs[f"{rel_folder}/{name}"] = text.strip()
    return refs


def _refs_from_git(root: str) -> dict[str, str]:
    """Refs listed by git itself (repositories using the reftable format)."""
    out = _git(root, "for-each-ref", "--format=%(objectname) %(refname)")
    refs: dict[str, str] = {}
    for line in (out or "").splitlines():
        sha, _, name = line.partition(" ")
        refs[name] = sha
    return refs


def _remote_heads(common_dir: str) -> set[str]:
    """Branch names that a remote's HEAD points to (refs/remotes/<remote>/HEAD)."""
    names: set[str] = set()
    remotes = os.path.join(common_dir, "refs", "remotes")
    try:
        entries = os.listdir(remotes)
    except OSError:
        return names
    for remote in entries:
        text = _read_text(os.path.join(remotes, remote, "HEAD")) or ""
        prefix = f"ref: refs/remotes/{remote}/"
        if text.startswith(prefix):
            names.add(text[len(prefix) :].strip())
    return names


def _upstreams(common_dir: str) -> dict[str, tuple[str, str]]:
    """branch -> (remote, merge ref) from [branch "x"] sections of the repository config."""
    result: dict[str, tuple[str, str]] = {}
    section: str | None = None
    values: dict[str, dict[str, str]] = {}
    for raw in (_read_text(os.path.join(common_dir, "config")) or "").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            head = line.strip("[]").strip()
            kind, _, sub = head.partition(" ")
            section = sub.strip().strip('"') if kind.lower() == "branch" and sub else None
            continue
        if section is not None and "=" in line:
            key, _, value = line.partition("=")
            values.setdefault(section, {})[key.strip().lower()] = value.strip().strip('"')
    for branch, items in values.items():
        if "remote" in items and "merge" in items:
            result[branch] = (items["remote"], items["merge"])
    return result


def read_git_state(cwd: StrPath, folders: tuple[str, str, str] | None = None) -> GitState | None:
    """The git state of the work tree holding cwd, or None outside a repository; folders, when
    the caller already found them (project.git_folders), spares looking them up again."""
    found = folders or git_folders(resolved_folder(cwd))
    if found is None:
        return None
    root, git_dir, common_dir = found
    head_text = (_read_text(os.path.join(git_dir, "HEAD")) or "").strip()
    if os.path.isdir(os.path.join(common_dir, "reftable")):
        refs = _refs_from_git(root)
    else:
        refs = _read_refs(common_dir)
    branch: str | None = None
    head: str | None = None
    if head_text.startswith("ref:"):
        ref = head_text[4:].strip()
        branch = ref.removeprefix("refs/heads/")
        head = refs.get(ref)
    elif head_text:
        head = head_text
    branches = {
        name[len("refs/heads/") :]: sha
        for name, sha in refs.items()
        if name.startswith("refs/heads/")
    }
    gone = set()
    for name, (remote, merge) in _upstreams(common_dir).items():
        if remote == ".":
            tracking = merge
        else:
            tracking = f"refs/remotes/{remote}/{merge.removeprefix('refs/heads/')}"
        if name in branches and tracking not in refs:
            gone.add(name)
    defaults = frozenset(DEFAULT_NAMES) | _remote_heads(common_dir)
    return GitState(
        root=root,
        git_dir=git_dir,
        common_dir=common_dir,
        branch=branch,
        head=head,
        branches=branches,
        default_branches=defaults,
        gone_branches=frozenset(gone),
    )


def _git(root: str, *args: str) -> str | None:
    """stdout of one git command, or None when git fails or is missing."""
    import subprocess  # not on the prompt hook's path unless git must answer

    from cms.observations.ancestry import GIT_TIMEOUT

    try:
        done = subprocess.run(
            ["git", "-C", root, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def commit_is_shared(state: GitState) -> bool:
    """True when HEAD is already on another local branch (the branch has no commit of its own),
    so the capture commit being merged somewhere proves nothing. Runs git (capture path only)."""
    if state.head is None or state.branch is None:
        return False
    out = _git(
        state.root,
        "for-each-ref",
        "--contains",
        state.head,
        "--format=%(refname)",
        "refs/heads/",
    )
    if out is None:
        return False
    own = f"refs/heads/{state.branch}"
    return any(line.strip() and line.strip() != own for line in out.splitlines())


class LazyAncestry:
    """The scope's AncestryCache, made on the first question (ancestry.py is imported only
    then: most recalls see only observations of the current and default branches)."""

    __slots__ = ("_args", "_cache")

    def __init__(self, root: str, common_dir: str, path: StrPath | None) -> None:
        self._args = (root, common_dir, path)
        self._cache: AncestryCache | None = None

    def _made(self) -> AncestryCache:
        if self._cache is None:
            from cms.observations.ancestry import AncestryCache

            self._cache = AncestryCache(*self._args)
        return self._cache

    def is_ancestor(self, commit: str, head: str) -> bool:
        return self._made().is_ancestor(commit, head)

    @property
    def git_calls(self) -> int:
        """Git runs the cache needed so far (0 before the first question)."""
        return 0 if self._cache is None else self._cache.git_calls


class BranchScope(Record):
    """Where recall happens: decides which captured branch/commit pairs are visible there."""

    in_git: bool
    branch: str | None = None
    head: str | None = None
    default_branches: frozenset[str] = frozenset()
    existing_branches: frozenset[str] = frozenset()
    gone_branches: frozenset[str] = frozenset()
    ancestry: LazyAncestry | None = None
    branch_tips: dict[str, str] = field(default_factory=dict)  # existing branch -> tip commit

    def with_branch(self, branch: str, head: str | None) -> BranchScope:
        """The same repository seen from another branch."""
        return self.replace(branch=branch, head=head)

    def __repr__(self) -> str:
        return f"BranchScope(in_git={self.in_git!r}, branch={self.branch!r}, head={self.head!r})"

    @classmethod
    def everywhere(cls) -> BranchScope:
        """The scope outside any git repository: everything is visible."""
        return cls(in_git=False)

    def visibility(
        self, branch: str | None, commit: str | None, shared_commit: bool = False
    ) -> str | None:
        """Why an observation is visible here ("current", "default", "deleted", "upstream-gone",
        "merged", "no-git"), or None when it is hidden. Merged: its capture commit is an ancestor
        of HEAD (unless that commit was shared with another branch, which proves nothing), or
        its branch's tip is, once the branch has moved past the capture commit (memory captured
        before the branch had a commit of its own shows once that branch is merged)."""
        if not self.in_git or branch is None:
            return "no-git"
        if branch == self.branch:
            return "current"
        if branch in self.default_branches:
            return "default"
        if branch not in self.existing_branches:
            return "deleted"
        if branch in self.gone_branches:
            return "upstream-gone"
        if not self.head or self.ancestry is None:
            return None
        if commit and not shared_commit and self.ancestry.is_ancestor(commit, self.head):
            return "merged"
        tip = self.branch_tips.get(branch)
        if tip and tip != commit and self.ancestry.is_ancestor(tip, self.head):
            return "merged"
        return None

    def is_visible(
        self, branch: str | None, commit: str | None, shared_commit: bool = False
    ) -> bool:
        return self.visibility(branch, commit, shared_commit) is not None


def scope_from_state(
    state: GitState | None,
    cache_path: StrPath | None = None,
    elsewhere: dict[str, str] | None = None,
) -> BranchScope:
    """The scope of a git state; `elsewhere`, the branches (-> tip) that exist in other clones
    of the repository (team sync): such a branch is not deleted, whatever this clone has."""
    if state is None:
        return BranchScope.everywhere()
    tips = {**(elsewhere or {}), **state.branches}
    return BranchScope(
        in_git=True,
        branch=state.branch,
        head=state.head,
        default_branches=state.default_branches,
        existing_branches=frozenset(tips),
        gone_branches=state.gone_branches,
        ancestry=LazyAncestry(state.root, state.common_dir, cache_path),
        branch_tips=tips,
    )


def branches_elsewhere(path: StrPath) -> dict[str, str]:
    """The branches (-> tip commit) of other clones, from the file a team sync writes beside the
    store ({} when it has none: one failed open)."""
    from cms import jsonio

    try:
        with open(path, encoding="utf-8") as handle:
            data = jsonio.loads(handle.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def current_scope(
    cwd: StrPath,
    cache_path: StrPath | None = None,
    folders: tuple[str, str, str] | None = None,
    elsewhere: dict[str, str] | None = None,
) -> BranchScope:
    """The branch scope of a working folder; cache_path keeps ancestry answers between runs;
    folders as for read_git_state; elsewhere as for scope_from_state."""
    return scope_from_state(read_git_state(cwd, folders), cache_path, elsewhere)
