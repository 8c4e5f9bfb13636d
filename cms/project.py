"""Project identity: which project a working folder belongs to.

A git repository is identified by its common git dir (so every worktree of one repository is one
project); a folder outside git by its resolved path. The id is a readable name plus a hash of
that path, so two repositories with the same folder name never collide. Reads files only; it
never runs git (this is on the hook fast path).
"""

from __future__ import annotations

import os
import sys

from cms.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.paths import StrPath


class Project(Record, frozen=True):
    """A project: its id, the work tree (or folder) the cwd is in, its common git dir and the
    work tree's own git dir (a linked worktree has its own; None outside git)."""

    id: str
    root: str
    git_common_dir: str | None
    git_dir: str | None = None


def _read_gitdir_file(dot_git: str) -> str | None:
    try:
        with open(dot_git, encoding="utf-8") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = text[len("gitdir:") :].strip() or "."
    return os.path.join(os.path.dirname(dot_git), gitdir)  # an absolute gitdir wins the join


def _common_dir(gitdir: str) -> str:
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
            rel = handle.read().strip()
    except OSError:
        return os.path.realpath(gitdir)
    return os.path.realpath(os.path.join(gitdir, rel or "."))


def git_folders(cwd: str) -> tuple[str, str, str] | None:
    """(work tree root, git dir, common git dir) for the folder cwd (absolute and resolved), or
    None outside a repository."""
    folder = cwd
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return folder, os.path.realpath(dot_git), _common_dir(dot_git)
        if os.path.isfile(dot_git):
            gitdir = _read_gitdir_file(dot_git)
            if gitdir is not None and os.path.isdir(gitdir):
                return folder, os.path.realpath(gitdir), _common_dir(gitdir)
        parent = os.path.dirname(folder)
        if parent == folder or not parent:
            return None
        folder = parent


def resolved_folder(cwd: StrPath) -> str:
    """cwd with ~ expanded, made absolute and with symlinks resolved (as Path.resolve does)."""
    from cms.paths import clean_path

    folder = clean_path(os.fspath(cwd))
    try:
        return os.path.realpath(folder)
    except (OSError, ValueError):
        return os.path.abspath(folder)


def _sha256_hex(data: bytes) -> str:
    """SHA-256 without importing hashlib, whose OpenSSL start costs ~5 ms on every hook."""
    try:  # asked by version: a failed import searches every folder of sys.path
        if sys.version_info >= (3, 12):
            from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]
        else:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:
        from hashlib import sha256
    return str(sha256(data).hexdigest())


_SLUG_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _slug(name: str) -> str:
    """The name with each run of other characters than letters, digits, . _ - made one "-"
    (a loop: a folder name is short, and a pattern costs a hook more to compile than to run)."""
    parts: list[str] = []
    replaced = False
    for char in name:
        if char in _SLUG_CHARS:
            parts.append(char)
        elif not replaced:
            parts.append("-")
        replaced = char not in _SLUG_CHARS
    return "".join(parts).strip("-")[:40] or "project"


def identify_project(cwd: StrPath) -> Project:
    """The project of a working folder (git common dir, else the resolved path)."""
    folder = resolved_folder(cwd)
    found = git_folders(folder)
    gitdir = None
    if found is None:
        key, root, common = folder, folder, None
        name = os.path.basename(folder)
    else:
        root, gitdir, common = found
        key = common
        base = os.path.basename(common)
        if base == ".git":
            name = os.path.basename(os.path.dirname(common))
        else:
            name = base.removesuffix(".git")
    digest = _sha256_hex(key.encode("utf-8"))[:12]
    return Project(id=f"{_slug(name)}-{digest}", root=root, git_common_dir=common, git_dir=gitdir)
