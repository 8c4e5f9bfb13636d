"""What `cms ui --edit` changes: a user's correction of an observation (a new version, the old
kept as history, as `cms edit`) and forgetting one (as `cms forget`). Store writes only; knows
nothing of HTTP or HTML (server.py checks the token, the CSRF token and the origin first).
"""

from __future__ import annotations

import os

from cms.observations.filenotes import write_file_notes
from cms.observations.model import Observation
from cms.observations.revisions import correct_observation
from cms.observations.store import ObservationStore
from cms.ui.catalog import ProjectInfo


def _store(project: ProjectInfo) -> ObservationStore:
    return ObservationStore.for_project(project.id)


def read_item(project: ProjectInfo, number: int) -> Observation | None:
    """The observation to edit, live or not; None when the project has none of that id."""
    if not project.has_store:
        return None
    with _store(project) as store:
        return store.get(number)


def correct_item(project: ProjectInfo, number: int, title: str, body: str) -> int:
    """Store the user's corrected title and body as a new version; return its id."""
    folder = project.folder if project.folder and os.path.isdir(project.folder) else None
    with _store(project) as store:
        outcome = correct_observation(store, number, title=title, body=body, cwd=folder)
        write_file_notes(store)
    return outcome.id


def forget_item(project: ProjectInfo, number: int) -> bool:
    """Delete one observation for good; False when there was none."""
    with _store(project) as store:
        count = store.forget(ids=[number])
        write_file_notes(store)
    return count > 0
