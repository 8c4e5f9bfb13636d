"""What an agent's edits replaced in a file, as (old text, new text) pairs: the input of a Claude
Code Edit or MultiEdit call, the hunks of a Codex apply_patch. Structure only (no reading of
what the values mean: cms.observations.edited); trimming and redaction are cleanup's.
"""

from __future__ import annotations


def edit_pairs(raw: object) -> list[tuple[str, str]]:
    """What an Edit or MultiEdit call replaces: its (old_string, new_string) pairs."""
    if not isinstance(raw, dict):
        return []
    listed = raw.get("edits")
    edits = listed if isinstance(listed, list) else [raw]
    return [
        (edit["old_string"], edit["new_string"])
        for edit in edits
        if isinstance(edit, dict)
        and isinstance(edit.get("old_string"), str)
        and isinstance(edit.get("new_string"), str)
    ]


def patch_pairs(patch: str) -> list[tuple[str, str]]:
    """What an apply_patch call replaces: per hunk of an updated file, its removed lines and
    the lines added in their place."""
    if "*** Begin Patch" not in patch:
        return []
    pairs: list[tuple[str, str]] = []
    old: list[str] = []
    new: list[str] = []
    for line in [*patch.splitlines(), "@@"]:
        if line.startswith("-") and not line.startswith("---"):
            old.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            new.append(line[1:])
        else:
            if old and new:
                pairs.append(("\n".join(old), "\n".join(new)))
            old, new = [], []
    return pairs
