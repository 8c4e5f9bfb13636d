"""The deleted, never-merged branches of a project as `cms doctor` and `cms stats` show them:
each one's name, visible observations, last capture and the `cms forget --branch` line.

Formats what cms.observations.deletedbranches finds; never changes the store or the repository.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from cms.errors import CmsError
from cms.observations.deletedbranches import DeletedBranch, deleted_unmerged
from cms.observations.store import ObservationStore

HEADING = "deleted branches never merged (their memory shows on every branch):"


def find_deleted(store: ObservationStore, folder: Path) -> list[DeletedBranch]:
    """The project's deleted unmerged branches; [] when they cannot be read (the commands
    still report everything else)."""
    try:
        return deleted_unmerged(store, folder)
    except (CmsError, OSError):
        return []


def branch_records(found: list[DeletedBranch], cwd: Path | None) -> list[dict[str, Any]]:
    """The JSON form, with the forget line (given --cwd when the command was)."""
    return [b.to_dict(cwd) for b in found]


def branch_lines(found: list[DeletedBranch], cwd: Path | None, indent: str = "  ") -> list[str]:
    """The heading, then per branch its description and, below it, the line that drops it."""
    if not found:
        return []
    now = time.time()
    lines = [HEADING]
    for branch in found:
        lines.append(f"{indent}{branch.describe(now)}")
        lines.append(f"{indent}  {branch.forget_command(cwd)}")
    return lines


WARNING = "deleted branch never merged, its memory shows on every branch: "


def branch_warning(branch: DeletedBranch, cwd: Path | None) -> str:
    """One doctor warning: the branch, what is known of it, and the line that drops it."""
    return f"{WARNING}{branch.describe()}; to drop it: {branch.forget_command(cwd)}"
