"""Opening the observation store and the branch scope of the project a folder belongs to, and
of the user tier (the user's own store, shared by every project).

Owns the one place that joins project identity, the store file and the ancestry cache file.
Used by the hooks, the worker, the CLI and the MCP server; it imports only the standard library
and the light cms modules, so the prompt hook can use it. The store and scope modules (and
SQLite) are imported only once a store is known to exist: a project that never captured
anything costs the prompt hook a stat, not ~6 ms of imports.
"""

from __future__ import annotations

import os

from cms import paths
from cms.project import Project, identify_project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

    from cms.observations.scope import BranchScope
    from cms.observations.store import ObservationStore
    from cms.paths import StrPath

GIT_CACHE_NAME = "git-cache.json"
TEAM_BRANCHES_NAME = "team-branches.json"  # other clones' branches, written by a team sync
USER_PROJECT = "user"  # the project column of the user tier's rows, and its Project id
_KEPT: dict[str, ObservationStore] = {}  # path -> store kept open by kept_stores()


class kept_stores:
    """Inside the block, the stores this thread opens are the ones kept open from an earlier
    block, and closing a ProjectMemory leaves its store open: a long-running process answering
    hooks (`cms mcp`) opens each store once. One block at a time (the caller's lock): a store
    is never used from two threads at once."""

    _threads: ClassVar[set[int]] = set()  # threads inside a block (idents: no threading import)

    def __enter__(self) -> None:
        from _thread import get_ident

        self._threads.add(get_ident())

    def __exit__(self, *exc: object) -> None:
        from _thread import get_ident

        self._threads.discard(get_ident())

    @classmethod
    def active(cls) -> bool:
        if not cls._threads:
            return False
        from _thread import get_ident

        return get_ident() in cls._threads


def _open_store(path: str, project: str) -> ObservationStore:
    from cms.observations.store import ObservationStore

    if not kept_stores.active():
        return ObservationStore(path, project)
    store = _KEPT.get(path)
    if store is None:
        store = _KEPT[path] = ObservationStore(path, project)
    return store


class ProjectMemory:
    """A project's open store and its branch scope; close it (or use `with`) when done."""

    __slots__ = ("project", "scope", "store")

    def __init__(self, project: Project, store: ObservationStore, scope: BranchScope) -> None:
        self.project = project
        self.store = store
        self.scope = scope

    def close(self) -> None:
        if not kept_stores.active() or _KEPT.get(self.store.path) is not self.store:
            self.store.close()

    def __enter__(self) -> ProjectMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def project_scope(project: Project) -> BranchScope:
    """The branch scope of a project's work tree, with its ancestry cache file."""
    from cms.observations.scope import branches_elsewhere, current_scope

    folder = paths.project_dir(project.id)
    common, own = project.git_common_dir, project.git_dir
    folders = (project.root, own, common) if common and own else None
    elsewhere = branches_elsewhere(os.path.join(folder, TEAM_BRANCHES_NAME))
    return current_scope(
        project.root,
        cache_path=os.path.join(folder, GIT_CACHE_NAME),
        folders=folders,
        elsewhere=elsewhere,
    )


def open_project_memory(cwd: StrPath, *, create: bool = True) -> ProjectMemory | None:
    """Store and scope of the project holding cwd; None when create is False and it has no store
    yet (the prompt hook must not create files for projects that never captured anything)."""
    project = identify_project(cwd)
    path = paths.observations_db(project.id)
    if not create and not os.path.exists(path):
        return None
    return ProjectMemory(
        project=project, store=_open_store(path, project.id), scope=project_scope(project)
    )


def read_project_memory(project_id: str, folder: str = "") -> ProjectMemory | None:
    """A project's store opened read-only, with the branch scope of folder when that folder still
    belongs to the project (else every branch is visible); nothing is written, not even the
    ancestry cache. None when the project has no store."""
    path = paths.observations_db(project_id)
    if not os.path.isfile(path):
        return None
    from cms.observations.scope import BranchScope, read_git_state, scope_from_state
    from cms.observations.store import ObservationStore

    store = ObservationStore(path, project_id, read_only=True)
    if folder and os.path.isdir(folder) and identify_project(folder).id == project_id:
        project = identify_project(folder)
        scope = scope_from_state(read_git_state(folder), cache_path=None)
    else:
        project = Project(project_id, paths.project_dir(project_id), None)
        scope = BranchScope.everywhere()
    return ProjectMemory(project=project, store=store, scope=scope)


def open_user_memory(*, create: bool = False, read_only: bool = False) -> ProjectMemory | None:
    """The user tier (personal preferences, every project) as a ProjectMemory whose scope sees
    everything (its items have no branch); None when create is False and it was never written:
    one stat, nothing opened or imported (the prompt hook asks on every prompt)."""
    path = paths.user_observations_db()
    if not create and not os.path.exists(path):
        return None
    from cms.observations.scope import BranchScope
    from cms.observations.store import ObservationStore

    if read_only and not create:
        store = ObservationStore(path, USER_PROJECT, read_only=True)
    else:
        store = _open_store(path, USER_PROJECT)
    project = Project(USER_PROJECT, paths.user_dir(), None)
    return ProjectMemory(project=project, store=store, scope=BranchScope.everywhere())
