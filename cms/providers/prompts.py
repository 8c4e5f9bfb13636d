"""The system prompts of the helper models (update, search, observe, summarise), and their source.

Lookup order: the user's folder (config provider.prompts_dir, then $CMS_HOME/prompts), then the
shipped copy (cms/prompts/ in an installed wheel, the top-level prompts/ of a source checkout),
then a minimal built-in text, so a broken install still runs. Reads files; never calls a model.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from cms import paths
from cms.config import Config

PROMPT_NAMES = ("update", "search", "observe", "summarise")

_FALLBACKS = {
    "update": (
        "You maintain a memory tree of one chat: suns (topics) hold planets (subtopics, with a "
        "mass counter) which hold satellites (facts of at most 200 characters). Read the map and "
        'the latest exchange and answer ONLY with a JSON object {"ops": [...]} using these ops: '
        "add_sun {title, planets?: [{title, sats: [text]}]}, add_planet {sun, title, sats?}, "
        "add_sat {planet, text}, replace_sat {sat, text}, delete_sat {sat}, inc_mass {planet, "
        "by?: 1-3}. Use existing ids only, at most 10 ops, no duplicate facts. Keep decisions, "
        'constraints, fixes, preferences, commands and open questions. Answer {"ops": []} when '
        "nothing is worth keeping."
    ),
    "search": (
        "You pick the stored facts that answer a query. Answer only with the numbers of the "
        "relevant facts, most relevant first, separated by commas, and nothing else."
    ),
    "observe": (
        "Extract durable observations about the project from the session text. Answer ONLY with "
        "a JSON list of objects {kind, title, body, files, importance}; kind is one of decision, "
        "learning, bugfix, command, file_summary, preference, other; importance is 1-5. Answer "
        "[] when nothing is worth keeping."
    ),
    "summarise": (
        "You receive a few old observations of one kind about one subject, each with an id, a "
        "title and a body. Write ONE observation that keeps every distinct fact still worth "
        "knowing (the newest wins where they disagree), using only what they say. Answer ONLY "
        'with a JSON object {"title": "at most 80 characters", "body": "at most 800 '
        'characters"}, or {"skip": "why"} when they do not share a subject.'
    ),
}


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if text.strip() else None


def _user_dirs(config: Config | None) -> list[Path]:
    dirs = []
    if config is not None and config.provider.prompts_dir:
        dirs.append(Path(config.provider.prompts_dir).expanduser())
    dirs.append(Path(paths.cms_home(), "prompts"))
    return dirs


def _checkout_dir() -> Path | None:
    """The top-level prompts/ folder when cms runs from a source checkout (an editable install
    or PYTHONPATH): the one copy the wheel is built from, so editing it changes what runs."""
    root = Path(__file__).resolve().parents[2]
    return root / "prompts" if (root / "pyproject.toml").is_file() else None


def _shipped(name: str) -> tuple[str, str] | None:
    """(source, text) of the copy that ships with cms: the wheel's, else the checkout's."""
    try:
        text = (resources.files("cms") / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    if text.strip():
        return f"package:{name}.md", text
    folder = _checkout_dir()
    if folder is None or (found := _read(folder / f"{name}.md")) is None:
        return None
    return str(folder / f"{name}.md"), found


def prompt_source(name: str, config: Config | None = None) -> str:
    """Where load_prompt takes `name` from: a file path, "package:<name>.md" or "built-in"."""
    if name not in PROMPT_NAMES:
        raise ValueError(f"unknown prompt {name!r}")
    for folder in _user_dirs(config):
        if _read(folder / f"{name}.md") is not None:
            return str(folder / f"{name}.md")
    shipped = _shipped(name)
    return shipped[0] if shipped else "built-in"


def load_prompt(name: str, config: Config | None = None) -> str:
    """The text of prompt `name` (one of PROMPT_NAMES), from the first readable source."""
    if name not in PROMPT_NAMES:
        raise ValueError(f"unknown prompt {name!r}")
    for folder in _user_dirs(config):
        text = _read(folder / f"{name}.md")
        if text is not None:
            return text
    shipped = _shipped(name)
    return shipped[1] if shipped else _FALLBACKS[name]
