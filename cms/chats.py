"""Which chat map a reader means: an explicit file, a session id, else the chat of the current
project updated last (never another project's).

Shared by the CLI and the MCP server so both follow one rule. Looks at paths and file times
under $CMS_HOME/chats and, to tell a chat's project, at the folder its hooks recorded (the
map's own header only for a chat no hook ran in); it never writes.
"""

from __future__ import annotations

import os

from cms import paths
from cms.errors import MapNotFoundError


def chats_root() -> str:
    return os.path.join(paths.cms_home(), "chats")


def chat_maps() -> list[str]:
    """Every chat map under $CMS_HOME/chats, least recently updated first."""
    root = chats_root()
    try:
        names = os.listdir(root)
    except OSError:
        return []
    found: list[tuple[float, str, str]] = []
    for name in names:
        path = os.path.join(root, name, "map.json")
        try:
            found.append((os.stat(path).st_mtime, name, path))
        except OSError:
            continue  # no map, or removed while we looked
    return [path for _mtime, _name, path in sorted(found)]


def project_of_chat(map_path: str) -> str:
    """The project a chat's map belongs to: that of the folder its hooks recorded, else the
    one its map names ("" when neither can be read)."""
    from cms.hooks.inject import STATE_NAME
    from cms.jsonio import loads
    from cms.project import identify_project

    folder = os.path.dirname(map_path)
    try:
        with open(os.path.join(folder, STATE_NAME), encoding="utf-8") as handle:
            cwd = loads(handle.read()).get("cwd")
        if isinstance(cwd, str) and cwd and os.path.isdir(cwd):
            return identify_project(cwd).id
    except (OSError, ValueError, AttributeError):
        pass
    from cms.errors import MapError
    from cms.map.store import load_map

    try:
        return load_map(map_path).project
    except MapError:
        return ""


def latest_map(project: str | None = None) -> str | None:
    """The chat map updated last (of that project when one is given), or None when there is
    none yet."""
    maps = chat_maps()
    if project is None:
        return maps[-1] if maps else None
    return next((m for m in reversed(maps) if project_of_chat(m) == project), None)


def locate_map(session: str | None, map_file: str | None = None, project: str | None = None) -> str:
    """map_file, else the map of session, else the chat map of project (any project when None)
    updated last.

    Raises MapNotFoundError only when neither is given and no such chat has a map yet; a
    session without a map still gets its (not yet existing) path.
    """
    if map_file is not None:
        return map_file
    if session is not None:
        return paths.map_path(session)
    latest = latest_map(project)
    if latest is None:
        whose = f" of project {project}" if project else ""
        raise MapNotFoundError(f"no chat{whose} has a map yet; pass --session or --map")
    return latest
