"""Where cms keeps its files: everything lives under CMS_HOME (default ~/.cms).

Only computes paths; it creates folders on request and never reads or writes data files.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def cms_home() -> Path:
    """The data folder: $CMS_HOME, else ~/.cms."""
    env = os.environ.get("CMS_HOME")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cms"


def config_path() -> Path:
    """The config file: $CMS_CONFIG, else $CMS_HOME/cms.toml."""
    env = os.environ.get("CMS_CONFIG")
    if env:
        return Path(env).expanduser()
    return cms_home() / "cms.toml"


def safe_name(raw: str) -> str:
    """A folder name for an id from outside (session ids); odd ids are hashed, never trusted."""
    if _SAFE_ID.match(raw) and ".." not in raw:
        return raw
    import hashlib  # rare: only odd ids; keeps hashlib off the hook fast path

    return "x-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def chat_dir(session_id: str) -> Path:
    """The folder of one chat (Claude Code session id): its map and its hook state."""
    return cms_home() / "chats" / safe_name(session_id)


def map_path(session_id: str) -> Path:
    return chat_dir(session_id) / "map.json"


def queue_dir() -> Path:
    return cms_home() / "queue"


def log_path() -> Path:
    return cms_home() / "logs" / "cms.log"


def project_dir(project_id: str) -> Path:
    return cms_home() / "projects" / safe_name(project_id)


def usage_path() -> Path:
    return cms_home() / "usage.sqlite3"


def sandbox_dir() -> Path:
    """The working folder of inner `claude -p` calls (keeps transcripts out of user projects)."""
    return cms_home() / "sandbox"
