"""Which chat map a reader means: an explicit file, a session id, else the chat updated last.

Shared by the CLI and the MCP server so both follow one rule. Only looks at paths and file
times under $CMS_HOME/chats; it never reads or writes a map.
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


def latest_map() -> str | None:
    """The chat map updated last, or None when no chat has a map yet."""
    maps = chat_maps()
    return maps[-1] if maps else None


def locate_map(session: str | None, map_file: str | None = None) -> str:
    """map_file, else the map of session, else the chat map updated last.

    Raises MapNotFoundError only when neither is given and no chat has a map yet; a session
    without a map still gets its (not yet existing) path.
    """
    if map_file is not None:
        return map_file
    if session is not None:
        return paths.map_path(session)
    latest = latest_map()
    if latest is None:
        raise MapNotFoundError(f"no chat map under {chats_root()}; pass --session or --map")
    return latest
