"""Commands on the project's whole memory: `cms get ID...` (an item whole, with its history),
`cms edit ID` (correct an item: a new version, the old kept as history) and `cms reindex`
(rebuild the project's fact index from its chat maps).

Finds the project from --cwd (default: the current folder) or from the chat given by
--session; prints text or JSON; errors are CmsError and reach the boundary in cms.cli.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cms.console import config_checked, print_json
from cms.errors import MapError
from cms.observations.access import ProjectMemory, open_project_memory
from cms.observations.items import UnknownItemError, item_records, render_item

CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", help="A folder of the project (default: the current one).")
]
SessionOpt = Annotated[
    str | None, typer.Option("--session", help="A chat of the project (its folder is used).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _open(cwd: Path | None, session: str | None, *, create: bool = False) -> ProjectMemory:
    from cms.hooks.inject import chat_folder

    folder = cwd or chat_folder(session) or Path.cwd()
    memory = open_project_memory(folder, create=create)
    if memory is None:
        raise UnknownItemError(f"the project of {folder} has no memory yet")
    return memory


@config_checked
def get(
    ids: Annotated[list[str], typer.Argument(help="Ids as injected: O12, 1a2b3c4d/F7, U3.")],
    session: SessionOpt = None,
    cwd: CwdOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print stored items whole, with their state and the versions they replaced (U ids: your
    own preferences, the user tier, from any folder)."""
    items = _records(ids, cwd, session)
    if as_json:
        print_json({"items": items})
        return
    for n, item in enumerate(items):
        if n:
            print()
        print(render_item(item))


def _records(ids: list[str], cwd: Path | None, session: str | None) -> list[dict[str, Any]]:
    """The items in the order asked, each store opened once (the project's only when a project
    id is asked for, the user tier's only for a U id)."""
    from cms.observations.access import open_user_memory
    from cms.observations.items import user_item_records
    from cms.observations.usertier import user_number

    items: list[dict[str, Any]] = []
    memory = user = None
    try:
        for item in ids:
            if user_number(item) is None:
                memory = memory or _open(cwd, session)
                items += item_records(memory.store, [item])
                continue
            user = user or open_user_memory()
            if user is None:
                raise UnknownItemError(f"no item {item}: the user tier is empty")
            items += user_item_records(user.store, [item])
    finally:
        for opened in (memory, user):
            if opened is not None:
                opened.close()
    return items


@config_checked
def edit(
    item: Annotated[str, typer.Argument(help="The id to correct: O12 (or U3, yours).")],
    text: Annotated[
        str | None, typer.Option("--text", help="The corrected text (its body), no editor.")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="The corrected title.")] = None,
    cwd: CwdOpt = None,
    session: SessionOpt = None,
) -> None:
    """Correct a stored item: the corrected version is stored as a new version that replaces it,
    the old one kept as history ("corrected by the user"). Without --text or --title, opens
    $VISUAL or $EDITOR on the item (title on the first line, then its text)."""
    from cms.observations.access import open_user_memory
    from cms.observations.items import observation_number
    from cms.observations.revisions import correct_observation
    from cms.observations.usertier import user_number

    mine = user_number(item)
    number = mine if mine is not None else observation_number(item)
    if number is None:
        raise UnknownItemError(f"{item} is not an observation id (O12) or one of yours (U3)")
    prefix = "U" if mine is not None else "O"
    memory = open_user_memory() if mine is not None else _open(cwd, session)
    if memory is None:
        raise UnknownItemError(f"no item {item}: the user tier is empty")
    with memory:
        old = memory.store.get(number)
        if old is None:
            raise UnknownItemError(f"no item {prefix}{number} in this memory")
        if text is None and title is None:
            title, text = _edit_in_editor(old.title, old.body)
        outcome = correct_observation(
            memory.store,
            number,
            title=title,
            body=text,
            cwd=None if mine is not None else memory.project.root,
        )
        if mine is None:
            from cms.observations.filenotes import write_file_notes

            write_file_notes(memory.store)
    print(
        f"corrected {prefix}{number}: now {prefix}{outcome.id} ({prefix}{number} kept as history)"
    )


_EDIT_HELP = (
    "# Correct the item: the first line is its title, the lines after it its text.\n"
    "# Lines starting with # are left out; save and quit to store, empty the file to cancel.\n"
)


def _edit_in_editor(title: str, body: str) -> tuple[str, str]:
    """The title and text the user saved in their editor; a CmsError when they emptied it or
    the editor failed."""
    import os
    import shlex
    import subprocess
    import tempfile

    from cms.errors import CmsError

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory(prefix="cms-edit-") as folder:
        path = os.path.join(folder, "item.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f"{title}\n\n{body}\n\n{_EDIT_HELP}")
        try:
            done = subprocess.run([*shlex.split(editor), path], check=False)
        except OSError as exc:
            raise CmsError(f"could not start the editor {editor!r}: {exc}; use --text") from exc
        if done.returncode != 0:
            raise CmsError(f"the editor {editor!r} exited with {done.returncode}; nothing stored")
        with open(path, encoding="utf-8") as handle:
            lines = [line.rstrip() for line in handle if not line.startswith("#")]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise CmsError("the file was emptied: nothing stored")
    return lines[0].strip(), "\n".join(lines[1:]).strip()


@config_checked
def reindex(cwd: CwdOpt = None) -> None:
    """Rebuild this project's indexes: facts from every chat map of the project, the
    observations' text index, and the semantic vectors when that index is installed."""
    from cms.chats import chat_maps
    from cms.map.store import load_map
    from cms.observations.chatsync import rebuild_fact_index
    from cms.observations.filenotes import write_file_notes

    started = time.monotonic()
    with _open(cwd, None, create=True) as memory:
        maps = []
        for path in chat_maps():
            try:
                cmap = load_map(path)
            except MapError as exc:
                print(f"cms: warning: skipped {path}: {exc}")
                continue
            if cmap.project == memory.project.id:
                maps.append(cmap)
        count = rebuild_fact_index(memory, maps)
        vectors = _rebuild_vectors(memory)
        write_file_notes(memory.store)
    took = time.monotonic() - started
    print(f"indexed {count} facts from {len(maps)} chats of {memory.project.id} in {took:.1f}s")
    if vectors is not None:
        print(f"semantic index: {vectors} vectors computed")


def _rebuild_vectors(memory: ProjectMemory) -> int | None:
    """Every vector computed again when the semantic index is usable (None when it is not)."""
    from cms.console import load_command_config
    from cms.observations.vectors import clear_vectors
    from cms.semantic import load_embedder, print_notice, update_vectors

    embedder = load_embedder(load_command_config(), print_notice)
    if embedder is None:
        return None
    memory.store.write(clear_vectors)
    return update_vectors(memory.store, embedder)


def register(app: typer.Typer) -> None:
    app.command()(get)
    app.command()(edit)
    app.command()(reindex)
