"""The install record: for each file cms install changed, the backup of its original bytes (or
that there was none) and a hash of what it wrote, so an uninstall can give the original back.

Lives in $CMS_HOME/install-record.json (0600); it never decides what our entries are.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from cms.errors import InstallError
from cms.install.settings_file import Change, apply_change

RECORD_NAME = "install-record.json"


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _record_key(path: Path) -> str:
    return os.path.realpath(path)


def load_records(home: Path) -> dict[str, dict[str, Any]]:
    """The install records of a data folder (a missing or unreadable file: none)."""
    try:
        with open(home / RECORD_NAME, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def save_records(home: Path, records: dict[str, dict[str, Any]]) -> None:
    """Write the records (0600 in a 0700 folder); no records: no file."""
    target = home / RECORD_NAME
    if not records:
        target.unlink(missing_ok=True)
        return
    if not home.is_dir():
        home.mkdir(mode=0o700, parents=True)
        home.chmod(0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{RECORD_NAME}.", suffix=".tmp", dir=home)  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(records, handle, indent=2, sort_keys=True)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def record_change(home: Path, change: Change, backup: Path | None) -> None:
    """Remember how to give a file we just changed back: the backup of its original bytes (none:
    there was no file) and the hash of what we wrote. When the file still held what an earlier
    install wrote, the original stays the one from before that first install."""
    if not change.changed:
        return
    records = load_records(home)
    key = _record_key(change.settings.path)
    before = change.settings.text
    old = records.get(key)
    if old is not None and old.get("written") == _digest(before):
        entry = {**old, "written": _digest(change.after)}
    else:
        entry = {
            "original": None if backup is None else str(backup),
            "original_sha256": _digest(before),
            "written": _digest(change.after),
        }
    records[key] = entry
    save_records(home, records)


def forget_record(home: Path, path: Path) -> None:
    records = load_records(home)
    if records.pop(_record_key(path), None) is not None:
        save_records(home, records)


def original_of(home: Path, path: Path, current: str | None) -> tuple[bool, str | None]:
    """(True, the original text, or None when there was no file) when path still holds exactly
    what install wrote and its original can be read back unchanged; else (False, None)."""
    entry = load_records(home).get(_record_key(path))
    if entry is None or current is None or entry.get("written") != _digest(current):
        return False, None
    if entry.get("original_sha256") is None:
        return True, None
    try:
        with open(str(entry.get("original")), encoding="utf-8", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return False, None
    return (True, text) if _digest(text) == entry.get("original_sha256") else (False, None)


def delete_settings_file(path: Path, expected: str) -> None:
    """Delete a file install created, if it still holds `expected` (else nothing is done)."""
    target = Path(os.path.realpath(path))
    try:
        with open(target, encoding="utf-8", newline="") as handle:
            current = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path} again: {exc}") from None
    if current != expected:
        raise InstallError(f"{path} changed while cms was editing it; nothing written, run again")
    target.unlink()


def plan_removal(home: Path, change: Change) -> Change:
    """The removal of our entries, as the original bytes when our entries were the only change
    since install (after: None means delete the file install created)."""
    if not change.changed:
        return change
    exact, original = original_of(home, change.settings.path, change.settings.text)
    if exact:
        return Change(change.settings, original)
    entry = load_records(home).get(_record_key(change.settings.path))
    created = entry is not None and entry.get("original_sha256") is None
    if created and change.after is not None and change.after.strip() in ("", "{}"):
        return Change(change.settings, None)  # a file we created, now empty again: it goes
    return change


def apply_removal(home: Path, change: Change) -> Path | None:
    """Apply a planned removal (a file write or the deletion of a file we created); the backup
    made, if any. The file's install record goes either way."""
    if change.changed:
        if change.after is None:
            assert change.settings.text is not None
            delete_settings_file(change.settings.path, change.settings.text)
            forget_record(home, change.settings.path)
            return None
        backup = apply_change(change)
        forget_record(home, change.settings.path)
        return backup
    return None
