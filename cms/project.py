"""Project identity: which project a working folder belongs to.

A git repository is identified by its common git dir (so every worktree of one repository is one
project); a folder outside git by its resolved path. The id is a readable name plus a hash of
that path, so two repositories with the same folder name never collide. Reads files only; it
never runs git (this is on the hook fast path).
"""

from __future__ import annotations

import re
from pathlib import Path


class Project:
    """A project: its id, the work tree (or folder) the cwd is in, and its common git dir.

    A plain slotted value class: building a dataclass costs milliseconds on the prompt path.
    """

    __slots__ = ("git_common_dir", "id", "root")

    def __init__(self, id: str, root: Path, git_common_dir: Path | None) -> None:
        self.id = id
        self.root = root
        self.git_common_dir = git_common_dir

    def _values(self) -> tuple[object, ...]:
        return (self.id, self.root, self.git_common_dir)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Project) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return (
            f"Project(id={self.id!r}, root={self.root!r}, git_common_dir={self.git_common_dir!r})"
        )


def _read_gitdir_file(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = Path(text[len("gitdir:") :].strip())
    return gitdir if gitdir.is_absolute() else (dot_git.parent / gitdir)


def _common_dir(gitdir: Path) -> Path:
    try:
        rel = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return gitdir.resolve()
    common = Path(rel)
    return (common if common.is_absolute() else gitdir / common).resolve()


def find_git_dirs(cwd: Path) -> tuple[Path, Path, Path] | None:
    """(work tree root, git dir, common git dir) for cwd, or None outside a repository."""
    for folder in (cwd, *cwd.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder, dot_git.resolve(), _common_dir(dot_git)
        if dot_git.is_file():
            gitdir = _read_gitdir_file(dot_git)
            if gitdir is not None and gitdir.is_dir():
                return folder, gitdir.resolve(), _common_dir(gitdir)
    return None


def _sha256_hex(data: bytes) -> str:
    """SHA-256 without importing hashlib, whose OpenSSL start costs ~5 ms on every hook."""
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]  # 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            from hashlib import sha256
    return str(sha256(data).hexdigest())


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:40] or "project"


def identify_project(cwd: str | Path) -> Project:
    """The project of a working folder (git common dir, else the resolved path)."""
    folder = Path(cwd).expanduser()
    try:
        folder = folder.resolve()
    except OSError:
        folder = folder.absolute()
    found = find_git_dirs(folder)
    if found is None:
        key, root, common = str(folder), folder, None
        name = folder.name
    else:
        root, _gitdir, common = found
        key = str(common)
        name = common.parent.name if common.name == ".git" else common.name.removesuffix(".git")
    digest = _sha256_hex(key.encode("utf-8"))[:12]
    return Project(id=f"{_slug(name)}-{digest}", root=root, git_common_dir=common)
