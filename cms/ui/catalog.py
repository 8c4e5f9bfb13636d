"""What `cms ui` shows, read from $CMS_HOME: projects, their chats, one chat's map and
injections, a project's observations and rules in force, token usage per day.

Reads only: stores are opened read-only and only when they exist; nothing of HTTP or HTML.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from cms import paths
from cms.chats import chats_root
from cms.errors import CmsError
from cms.hooks.inject import InjectionState, load_state
from cms.hooks.injectionlog import read_injected
from cms.hooks.promptcache import cached_prompt
from cms.map.model import CorrelationMap
from cms.map.store import load_map
from cms.observations.access import ProjectMemory, read_project_memory
from cms.observations.export import iso
from cms.observations.facts import PASSAGE
from cms.observations.ids import chat_tag
from cms.observations.model import Observation
from cms.project import identify_project
from cms.task.model import CurrentTask, read_task_file, task_file

PER_KIND = 50  # newest observations listed per kind on a project page (search finds the rest)


@dataclass(frozen=True)
class ChatInfo:
    """One chat as the chat list shows it."""

    session: str
    project: str  # the project id ("" when no hook or map has named it yet)
    first_prompt: str
    folder: str
    created_at: str  # ISO 8601 ("" when unknown)
    updated_at: str
    facts: int
    subtopics: int
    map_bytes: int
    injections: int
    problem: str = ""  # why the map could not be read ("" when it could)


@dataclass(frozen=True)
class ProjectInfo:
    id: str
    folder: str  # a folder one of its chats ran in ("" when none is known)
    chats: list[ChatInfo] = field(default_factory=list)
    has_store: bool = False

    @property
    def updated_at(self) -> str:
        return max((c.updated_at for c in self.chats), default="")


@dataclass(frozen=True)
class Injection:
    """One logged injection: when, by which hook, its size and the ids of the items it showed."""

    at: float
    event: str
    chars: int
    ids: list[str]
    text: str = ""  # what was injected, while the chat's injection log still holds it


@dataclass(frozen=True)
class ChatView:
    """Everything the chat page shows (injections newest first)."""

    info: ChatInfo
    cmap: CorrelationMap | None
    injections: list[Injection]
    latest_prompt: str
    superseded: dict[str, str]  # fact id of this chat -> the id of what replaced it ("" none)
    task: CurrentTask | None = None  # the chat's current task, when it has one


def _injections(state: InjectionState, texts: dict[tuple[float, str], str]) -> list[Injection]:
    """The logged injections, newest first (load_state keeps only well-formed entries), each
    with its text when the injection log has it."""
    found = []
    for at, event, chars, ids in reversed(state.log):
        assert isinstance(at, int | float) and isinstance(chars, int) and isinstance(ids, list)
        text = texts.get((round(float(at), 3), str(event)), "")
        found.append(Injection(float(at), str(event), chars, [str(i) for i in ids], text))
    return found


def _iso(stamp: float) -> str:
    return (iso(stamp) or "") if stamp else ""


def _map_of(session: str) -> tuple[CorrelationMap | None, int, str]:
    """The chat's map (None when it has none or it is unreadable), its size and the problem."""
    path = paths.map_path(session)
    try:
        size = os.stat(path).st_size
    except OSError:
        return None, 0, ""
    try:
        return load_map(path), size, ""
    except CmsError as exc:
        return None, size, str(exc)


def _chat_info(session: str) -> tuple[ChatInfo, CorrelationMap | None, InjectionState]:
    cmap, size, problem = _map_of(session)
    state = load_state(session)
    project = cmap.project if cmap is not None else ""
    if not project and state.cwd:
        project = identify_project(state.cwd).id
    planets = cmap.planets() if cmap is not None else []
    info = ChatInfo(
        session=session,
        project=project,
        first_prompt=state.first,
        folder=state.cwd,
        created_at=cmap.created_at if cmap is not None else _iso(state.at),
        updated_at=max(cmap.updated_at if cmap is not None else "", _iso(state.at)),
        facts=cmap.fact_count() if cmap is not None else 0,
        subtopics=len(planets),
        map_bytes=size,
        injections=len(state.log),
        problem=problem,
    )
    return info, cmap, state


def list_chats() -> list[ChatInfo]:
    """Every chat under $CMS_HOME/chats, the most recently active first."""
    root = chats_root()
    try:
        names = [entry.name for entry in os.scandir(root) if entry.is_dir()]
    except OSError:
        return []
    chats = [_chat_info(name)[0] for name in names]
    return sorted(chats, key=lambda c: (c.updated_at, c.session), reverse=True)


def list_projects() -> list[ProjectInfo]:
    """Every project with a store or a chat, the most recently active first."""
    chats = list_chats()
    ids = {c.project for c in chats if c.project}
    try:
        stores = os.scandir(os.path.join(paths.cms_home(), "projects"))
        ids |= {
            e.name for e in stores if os.path.isfile(os.path.join(e.path, paths.OBSERVATIONS_DB))
        }
    except OSError:
        pass
    projects = []
    for project_id in ids:
        own = [c for c in chats if c.project == project_id]
        folder = next((c.folder for c in own if c.folder), "")
        store = paths.observations_db(project_id)
        projects.append(ProjectInfo(project_id, folder, own, os.path.isfile(store)))
    return sorted(projects, key=lambda p: (p.updated_at, p.id), reverse=True)


def find_project(project_id: str) -> ProjectInfo | None:
    return next((p for p in list_projects() if p.id == project_id), None)


def open_memory(project: ProjectInfo) -> ProjectMemory | None:
    """The project's store, read-only (see access.read_project_memory); None without one."""
    return read_project_memory(project.id, project.folder) if project.has_store else None


def chat_view(session: str) -> ChatView | None:
    """The chat's page data; None when no such chat folder exists."""
    if not os.path.isdir(paths.chat_dir(session)):
        return None
    info, cmap, state = _chat_info(session)
    injections = _injections(state, read_injected(session))
    task = read_task_file(task_file(paths.chat_dir(session)))
    superseded = _superseded_facts(info)
    return ChatView(info, cmap, injections, cached_prompt(session), superseded, task)


def _superseded_facts(info: ChatInfo) -> dict[str, str]:
    from cms.observations.facts import superseded_in_chat

    if not info.project:
        return {}
    has_store = os.path.isfile(paths.observations_db(info.project))
    memory = open_memory(ProjectInfo(info.project, info.folder, [], has_store))
    if memory is None:
        return {}
    with memory:
        return superseded_in_chat(memory.store, info.session)


@dataclass(frozen=True)
class RuleInForce:
    observation: Observation
    replaced: list[Observation]


@dataclass(frozen=True)
class ProjectMemoryView:
    """The project page's memory: the newest live observations of each kind (and how many
    there are), the rules in force with what they replaced, and how many items are history."""

    by_kind: dict[str, list[Observation]]
    live: dict[str, int]  # live observations per kind
    in_force: list[RuleInForce]
    superseded: int
    archived: int
    facts: int


def memory_view(memory: ProjectMemory, per_kind: int = PER_KIND) -> ProjectMemoryView:
    from cms.observations.items import replaced_observations
    from cms.observations.model import COLUMNS, row_to_observation
    from cms.observations.recall import in_force

    stats = memory.store.stats()  # live by kind, superseded and archived counts
    live: dict[str, int] = stats["by_kind"]

    def read(conn: Any) -> tuple[dict[str, list[Observation]], int]:
        newest = {
            kind: [
                row_to_observation(r)
                for r in conn.execute(
                    f"SELECT {COLUMNS} FROM observations WHERE archived_at IS NULL "
                    "AND superseded_by IS NULL AND kind = ? "
                    "ORDER BY updated_at DESC, id DESC LIMIT ?",
                    (kind, per_kind),
                )
            ]
            for kind in sorted(live)
        }
        facts = conn.execute(
            "SELECT COUNT(*) FROM facts WHERE superseded_by IS NULL AND kind != ?", (PASSAGE,)
        ).fetchone()
        return newest, int(facts[0])

    newest, facts = memory.store.read(read)
    rules = [
        RuleInForce(found.observation, replaced_observations(memory.store, found.observation))
        for found in in_force(memory.store, memory.scope)
    ]
    return ProjectMemoryView(
        newest, live, rules, int(stats["superseded"]), int(stats["archived"]), facts
    )


def context_by_day(days: int = 30) -> list[dict[str, Any]]:
    """What memory cost in context per UTC day, newest first: the characters the hooks injected,
    in how many injections, per chat (by its short id) and in all."""
    import time

    since = time.time() - days * 86400
    by_day: dict[str, dict[str, Any]] = {}
    for chat in list_chats():
        for at, _event, chars, _ids in load_state(chat.session).log:
            if not isinstance(at, int | float) or not isinstance(chars, int) or at < since:
                continue
            day = by_day.setdefault(
                _iso(float(at))[:10], {"chars": 0, "injections": 0, "chats": {}}
            )
            day["chars"] += chars
            day["injections"] += 1
            tag = chat_tag(chat.session)
            day["chats"][tag] = day["chats"].get(tag, 0) + chars
    return [{"day": day, **by_day[day]} for day in sorted(by_day, reverse=True)]


def usage_by_day(days: int = 30) -> list[dict[str, Any]]:
    """Token usage per day, oldest first (what `cms stats` shows)."""
    from cms.providers.usage import summarize_usage

    return list(reversed(summarize_usage(days=days)["by_day"]))
