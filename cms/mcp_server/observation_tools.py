"""The observation tools of the MCP server: recall, remember, update, supersede, forget, stats.

Tool bodies over the store of the project a folder belongs to, opened and closed by each call;
each docstring is the description the model reads. Imports no mcp (the server wraps these).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cms import chats, paths
from cms.config import Config
from cms.errors import CmsError, StoreError
from cms.map.store import load_map
from cms.mcp_server.args import (
    Body,
    Branch,
    Count,
    Cwd,
    Files,
    Importance,
    KindArg,
    KindsFilter,
    NewBody,
    NewImportance,
    NewKind,
    NewTitle,
    ObservationId,
    Query,
    ReplacedId,
    Title,
)
from cms.mcp_server.map_tools import session_of
from cms.mcp_server.results import ToolRefusedError, ToolResult
from cms.observations.access import ProjectMemory
from cms.observations.capture import capture_with_outcomes
from cms.observations.export import observation_record
from cms.observations.filenotes import write_file_notes
from cms.observations.model import NewObservation
from cms.observations.recall import RecalledObservation, format_observation_line, recall
from cms.observations.revisions import (
    correct_observation,
    supersede_observation,
    update_observation,
)
from cms.project import identify_project
from cms.semantic import meaning_for

MCP_SESSION = "mcp"  # the session recorded on observations made through the server
MCP_AGENT = "mcp"

MemoryOpener = Callable[[Path, bool], ProjectMemory | None]  # (cwd, create) -> store + scope


@dataclass(frozen=True)
class ObservationTools:
    """The observation tools; open_memory opens a project's store, default_cwd is the project
    used when a call names no folder."""

    config: Config
    open_memory: MemoryOpener
    default_cwd: Path

    def _cwd(self, cwd: str | None) -> Path:
        folder = self.default_cwd if cwd is None else Path(cwd).expanduser()
        if not folder.is_dir():
            raise ToolRefusedError(
                f"cwd {str(folder)!r} is not a folder; pass a folder of the project"
            )
        return folder

    def _memory(self, cwd: str | None, *, create: bool) -> ProjectMemory | None:
        return self.open_memory(self._cwd(cwd), create)

    def recall(
        self,
        query: Query,
        kinds: KindsFilter = None,
        files: Files = None,
        branch: Branch = None,
        limit: Count = 5,
        cwd: Cwd = None,
    ) -> ToolResult:
        """Recall project observations (decisions, learnings, bug fixes, commands, file
        summaries, preferences) captured in earlier sessions of this project by any agent. Use
        it before changing code you have not touched in this chat, or when the user refers to
        earlier work. Returns the best matches as `#id [kind · age] title — body`; observations
        of other, unmerged git branches are hidden."""
        folder = self._cwd(cwd)
        memory = self.open_memory(folder, False)
        if memory is None:
            project = identify_project(folder)
            text = (
                f"No observations are stored for project {project.id} ({project.root}) yet; "
                "remember adds one."
            )
            return ToolResult(text, {"project": project.id, "observations": []})
        with memory:
            scope = memory.scope
            if branch is not None:
                scope = scope.with_branch(branch, _branch_head(memory, branch))
            now = time.time()
            found = recall(
                memory.store,
                query,
                scope=scope,
                limit=limit,
                kinds=list(kinds) if kinds else None,
                files=files or None,
                min_relevance=self.config.observations.min_relevance,
                now=now,
                meaning=meaning_for(self.config, memory.store, query, None),
                semantic_weight=self.config.semantic.weight,
            )
            data = {
                "project": memory.project.id,
                "branch": scope.branch,
                "observations": [_recalled_dict(r) for r in found],
            }
            if not found:
                text = f"No observation of project {memory.project.id} matches {query!r}."
                return ToolResult(text, data)
            lines = [f"Observations of project {memory.project.id} for {query!r}, best first:"]
            lines += [
                f"O{r.observation.id} {format_observation_line(r, now, scope.branch)}"
                for r in found
            ]
            return ToolResult("\n".join(lines), data)

    def remember(
        self,
        kind: KindArg,
        title: Title,
        body: Body = "",
        files: Files = None,
        importance: Importance = 3,
        cwd: Cwd = None,
    ) -> ToolResult:
        """Store one project observation so that later sessions (any agent, any chat) can
        recall it: a decision and its reason, something learned about the code, a bug's cause
        and fix, a command that builds or tests, what a file does, or a preference of the user.
        Use it when such a thing was just settled. Secrets are redacted; a repeat of a stored
        observation is not stored twice. Returns the observation's id."""
        _check_text("title", title)
        folder = self._cwd(cwd)
        memory = self.open_memory(folder, True)
        if memory is None:
            raise StoreError(f"cannot create the observation store of {folder}")
        new = NewObservation(kind, title, body, tuple(files or ()), importance)
        with memory:
            outcomes = capture_with_outcomes(
                memory.store, [new], session=MCP_SESSION, agent=MCP_AGENT, cwd=folder
            )
            if not outcomes:
                raise ToolRefusedError("title must not be blank")
            outcome = outcomes[0]
            stored = memory.store.get(outcome.id)
            project = memory.project.id
            write_file_notes(memory.store)
        text = {
            "new": f"Remembered O{outcome.id} in project {project}.",
            "superseded": f"Remembered O{outcome.id} in project {project}; it replaces the older "
            "observation with the same kind and title.",
            "duplicate": f"Already remembered as O{outcome.id} in project {project}; "
            "nothing new was stored.",
        }[outcome.status]
        data = {"project": project, "id": outcome.id, "status": outcome.status}
        if stored is not None:
            data["observation"] = observation_record(stored)
        return ToolResult(text, data)

    def update(
        self,
        id: ObservationId,
        kind: NewKind = None,
        title: NewTitle = None,
        body: NewBody = None,
        files: Files = None,
        importance: NewImportance = None,
        cwd: Cwd = None,
    ) -> ToolResult:
        """Change fields of a stored observation in place (kind, title, body, files,
        importance), for a correction or a detail to add; fields not given stay. Use supersede
        when the thing itself changed (a decision reversed). Returns the observation as
        stored."""
        if all(v is None for v in (kind, title, body, files, importance)):
            raise ToolRefusedError(
                "nothing to update: give at least one of kind, title, body, files, importance"
            )
        if title is not None:
            _check_text("title", title)
        memory = self._memory(cwd, create=False)
        if memory is None:
            raise ToolRefusedError(f"no observation O{id}: this project has no stored observations")
        with memory:
            obs = update_observation(
                memory.store,
                id,
                kind=kind,
                title=title,
                body=body,
                files=files,
                importance=importance,
            )
            project = memory.project.id
            write_file_notes(memory.store)
        line = format_observation_line(obs, time.time(), None)
        return ToolResult(
            f"Updated O{obs.id}: {line}",
            {"project": project, "id": obs.id, "observation": observation_record(obs)},
        )

    def supersede(
        self,
        old_id: ReplacedId,
        kind: KindArg,
        title: Title,
        body: Body = "",
        files: Files = None,
        importance: Importance = 3,
        cwd: Cwd = None,
    ) -> ToolResult:
        """Replace a stored observation with a new one (a decision reversed, a fix redone): the
        new one is stored on the current branch and the old one is no longer recalled. Only
        observations of the current branch can be superseded. Returns the new id."""
        _check_text("title", title)
        folder = self._cwd(cwd)
        memory = self.open_memory(folder, False)
        if memory is None:
            raise ToolRefusedError(
                f"no observation O{old_id}: this project has no stored observations"
            )
        new = NewObservation(kind, title, body, tuple(files or ()), importance)
        with memory:
            outcome = supersede_observation(
                memory.store, old_id, new, cwd=folder, session=MCP_SESSION, agent=MCP_AGENT
            )
            project = memory.project.id
            write_file_notes(memory.store)
        return ToolResult(
            f"O{outcome.id} now replaces O{old_id} in project {project}; recall no longer "
            f"returns O{old_id}.",
            {"project": project, "id": outcome.id, "superseded": old_id, "status": outcome.status},
        )

    def correct(
        self,
        id: ObservationId,
        title: NewTitle = None,
        body: NewBody = None,
        cwd: Cwd = None,
    ) -> ToolResult:
        """The user says a stored observation is wrong: store their corrected title and/or body
        as a new version (same kind and files) that replaces it; the old one stays as history,
        marked "corrected by the user". Returns the new id."""
        if title is None and body is None:
            raise ToolRefusedError("nothing to correct: give the corrected title or body")
        if title is not None:
            _check_text("title", title)
        folder = self._cwd(cwd)
        memory = self.open_memory(folder, False)
        if memory is None:
            raise ToolRefusedError(f"no observation O{id}: this project has no stored observations")
        with memory:
            outcome = correct_observation(memory.store, id, title=title, body=body, cwd=folder)
            project = memory.project.id
            write_file_notes(memory.store)
        return ToolResult(
            f"O{outcome.id} is the corrected version of O{id} in project {project}; O{id} is "
            "kept as history.",
            {"project": project, "id": outcome.id, "corrected": id, "status": outcome.status},
        )

    def forget(self, id: ObservationId, cwd: Cwd = None) -> ToolResult:
        """Delete one project observation by id, for a note that is wrong or no longer wanted.
        Use supersede instead when a newer observation replaces it."""
        memory = self._memory(cwd, create=False)
        if memory is None:
            raise ToolRefusedError("this project has no stored observations; nothing to forget")
        with memory:
            if memory.store.forget(ids=[id]) == 0:
                raise ToolRefusedError(
                    f"no observation O{id} in project {memory.project.id}; call recall to find ids"
                )
            write_file_notes(memory.store)
            return ToolResult(
                f"Forgot observation O{id}.", {"project": memory.project.id, "forgotten": id}
            )

    def stats(self, cwd: Cwd = None) -> ToolResult:
        """Counts of what cms stores: chat maps, the latest chat's facts, and the project's
        observations by kind. Use it to check whether memory exists before relying on it."""
        folder = self._cwd(cwd)
        maps = chats.chat_maps()
        data: dict[str, Any] = {"chat_maps": len(maps), "cms_home": str(paths.cms_home())}
        lines = [f"cms home: {paths.cms_home()}", f"chat maps: {len(maps)}"]
        if maps:
            latest = maps[-1]
            try:
                cmap = load_map(latest)
            except CmsError as exc:
                lines.append(f"latest chat map {latest} is unreadable: {exc}")
            else:
                sid = session_of(latest, cmap)
                data["latest_chat"] = {"session": sid, "facts": cmap.fact_count()}
                lines.append(f"latest chat: {sid} ({cmap.fact_count()} facts)")
        memory = self.open_memory(folder, False)
        if memory is None:
            project = identify_project(folder)
            data["project"] = project.id
            data["observations"] = None
            lines.append(f"project {project.id}: no observations stored yet")
            return ToolResult("\n".join(lines), data)
        with memory:
            counts = memory.store.stats()
        data["project"] = memory.project.id
        data["observations"] = counts
        by_kind = ", ".join(f"{k} {n}" for k, n in sorted(counts["by_kind"].items())) or "none"
        lines.append(
            f"project {memory.project.id}: {counts['live']} live observations ({by_kind}); "
            f"{counts['superseded']} superseded, {counts['archived']} archived"
        )
        return ToolResult("\n".join(lines), data)


def _check_text(name: str, value: str) -> None:
    if not value.strip():
        raise ToolRefusedError(f"{name} must not be blank")


def _branch_head(memory: ProjectMemory, branch: str) -> str | None:
    from cms.observations.scope import read_git_state

    state = read_git_state(memory.project.root)
    return None if state is None else state.branches.get(branch)


def _recalled_dict(found: RecalledObservation) -> dict[str, Any]:
    data = observation_record(found.observation)
    data["score"] = round(found.score, 4)
    data["visibility"] = found.visibility
    return data
