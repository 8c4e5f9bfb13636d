"""The project-wide tools of the MCP server: `search` (as `cms search`: facts of every chat of
the project, its observations and your own preferences, in force first, history marked) and
`get` (items whole by id, with the versions they replaced).

Tool bodies over the store of the project the server's folder (or `cwd`) belongs to, never
another project's; each docstring is the description the model reads. Imports no mcp.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cms.config import Config
from cms.errors import CmsError
from cms.markup import neutralise_tags
from cms.mcp_server.args import Count, Cwd, ItemIds, Query, Session
from cms.mcp_server.observation_tools import MemoryOpener
from cms.mcp_server.results import ToolRefusedError, ToolResult
from cms.observations.access import ProjectMemory, open_user_memory
from cms.observations.items import item_records, render_item, user_item_records
from cms.observations.usertier import user_number
from cms.search.command import select_hits


@dataclass
class MemoryTools:
    """search and get over the project of a folder; open_memory opens its store."""

    config: Config
    open_memory: MemoryOpener
    default_cwd: Path

    def _memory(self, cwd: str | None) -> ProjectMemory | None:
        folder = self.default_cwd if cwd is None else Path(cwd).expanduser()
        if not folder.is_dir():
            raise ToolRefusedError(
                f"cwd {str(folder)!r} is not a folder; pass a folder of the project"
            )
        return self.open_memory(folder, False)

    def search(
        self, query: Query, k: Count = 5, session: Session = None, cwd: Cwd = None
    ) -> ToolResult:
        """Search this project's whole memory as the `cms search` command does: the facts of
        every chat of the project, its observations (decisions, fixes, commands, ...) and the
        user's own preferences, each verbatim with its id; what is in force comes first and an
        older version is marked as history. Use it for anything decided or learned earlier in
        this project, in this chat or another; `get` prints an id whole."""
        memory = self._memory(cwd)
        user = open_user_memory()
        try:
            hits, selector = select_hits(self.config, memory, query, k, session, user)
        finally:
            for opened in (memory, user):
                if opened is not None:
                    opened.close()
        now = time.time()
        lines = [neutralise_tags(hit.render(now, session)) for hit in hits]
        project = None if memory is None else memory.project.id
        data: dict[str, Any] = {
            "project": project,
            "query": query,
            "selector": selector,
            "results": [hit.to_dict(now) for hit in hits],
        }
        text = "\n".join(lines) or f"nothing stored in this project matches {query!r}"
        return ToolResult(text, data)

    def get(self, ids: ItemIds, cwd: Cwd = None) -> ToolResult:
        """Print stored items whole by the ids the memory showed (O12, 1a2b3c4d/F7, U3): the
        item, its state (in force, superseded by ..., archived) and the versions it replaced.
        Only this project's items (and the user's own U ids)."""
        memory = user = None
        items: list[dict[str, Any]] = []
        try:
            for item in ids:
                if user_number(item) is not None:
                    user = user or open_user_memory()
                    if user is None:
                        raise ToolRefusedError(f"no item {item}: the user tier is empty")
                    items += user_item_records(user.store, [item])
                    continue
                memory = memory or self._memory(cwd)
                if memory is None:
                    raise ToolRefusedError(f"no item {item}: this project has no memory yet")
                items += item_records(memory.store, [item])
        except ToolRefusedError:
            raise
        except CmsError as exc:
            raise ToolRefusedError(str(exc)) from exc
        finally:
            for opened in (memory, user):
                if opened is not None:
                    opened.close()
        text = "\n\n".join(neutralise_tags(render_item(item)) for item in items)
        return ToolResult(text, {"items": items})
