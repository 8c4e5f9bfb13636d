"""Where cms keeps its files: everything lives under CMS_HOME (default ~/.cms).

Only computes paths, as str (the one path style inside cms: pathlib stays off the hook path;
adapters that want a Path wrap these); it never reads or writes data files.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike

    StrPath = str | PathLike[str]  # what functions that take a file accept

_SAFE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def clean_path(raw: str) -> str:
    """`raw` with ~ expanded, spelled as str(Path(raw)) would spell it (no "." parts, no doubled
    or trailing separators; ".." is kept, as pathlib keeps it)."""
    path = os.path.expanduser(raw)
    if os.name == "nt":  # pragma: no cover - pathlib's Windows rules are richer; normpath is near
        return os.path.normpath(path)
    if not path:
        return "."
    lead = "/" if path.startswith("/") else ""
    if path.startswith("//") and not path.startswith("///"):
        lead = "//"
    parts = [part for part in path.split("/") if part and part != "."]
    return lead + "/".join(parts) if parts else (lead or ".")


def cms_home() -> str:
    """The data folder: $CMS_HOME, else ~/.cms."""
    env = os.environ.get("CMS_HOME")
    if env:
        return clean_path(env)
    return os.path.join(clean_path("~"), ".cms")


def config_path() -> str:
    """The config file: $CMS_CONFIG, else $CMS_HOME/cms.toml."""
    env = os.environ.get("CMS_CONFIG")
    if env:
        return clean_path(env)
    return os.path.join(cms_home(), "cms.toml")


def safe_name(raw: str) -> str:
    """A folder name for an id from outside (session ids); odd ids are hashed, never trusted."""
    if (
        0 < len(raw) <= 100
        and raw[0] not in "._-"
        and ".." not in raw
        and _SAFE_CHARS.issuperset(raw)
    ):
        return raw
    import hashlib  # rare: only odd ids; keeps hashlib off the hook fast path

    return "x-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def chat_dir(session_id: str) -> str:
    """The folder of one chat (Claude Code session id): its map and its hook state."""
    return os.path.join(cms_home(), "chats", safe_name(session_id))


def map_path(session_id: str) -> str:
    return os.path.join(chat_dir(session_id), "map.json")


def queue_dir() -> str:
    return os.path.join(cms_home(), "queue")


def log_path() -> str:
    return log_path_in(cms_home())


def log_path_in(home: str) -> str:
    """The log file of a given data folder (an installed hook may pin another CMS_HOME)."""
    return os.path.join(home, "logs", "cms.log")


def project_dir(project_id: str) -> str:
    return os.path.join(cms_home(), "projects", safe_name(project_id))


OBSERVATIONS_DB = "observations.db"


def observations_db(project_id: str) -> str:
    """The observation store of a project: <CMS_HOME>/projects/<id>/observations.db."""
    return os.path.join(project_dir(project_id), OBSERVATIONS_DB)


def user_dir() -> str:
    """The user tier: personal preferences that follow the user into every project."""
    return os.path.join(cms_home(), "user")


def user_observations_db() -> str:
    """The user tier's observation store: <CMS_HOME>/user/observations.db (made on first write)."""
    return os.path.join(user_dir(), OBSERVATIONS_DB)


def usage_path() -> str:
    """The token usage database."""
    return os.path.join(cms_home(), "usage.sqlite3")


def sandbox_dir() -> str:
    """The working folder of inner `claude -p` calls (keeps transcripts out of user projects)."""
    return os.path.join(cms_home(), "sandbox")
