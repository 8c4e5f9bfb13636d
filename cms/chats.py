"""Which chat map a reader means: an explicit file, a session id, else the chat updated last.

Shared by the CLI and the MCP server so both follow one rule. Only looks at paths and file
times under $CMS_HOME/chats; it never reads or writes a map.
"""

from __future__ import annotations

from pathlib import Path

from cms import paths
from cms.errors import MapNotFoundError


def chats_root() -> Path:
    return paths.cms_home() / "chats"


def chat_maps() -> list[Path]:
    """Every chat map under $CMS_HOME/chats, least recently updated first."""
    root = chats_root()
    if not root.is_dir():
        return []
    found: list[tuple[float, str, Path]] = []
    for path in root.glob("*/map.json"):
        try:
            found.append((path.stat().st_mtime, path.parent.name, path))
        except OSError:
            continue  # removed while we looked
    return [path for _mtime, _name, path in sorted(found)]


def latest_map() -> Path | None:
    """The chat map updated last, or None when no chat has a map yet."""
    maps = chat_maps()
    return maps[-1] if maps else None


def locate_map(session: str | None, map_file: Path | None = None) -> Path:
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
