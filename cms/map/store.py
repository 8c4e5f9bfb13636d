"""Map files on disk: lock-free reads, atomic writes under an exclusive per-map lock.

A write goes to a private temporary file in the same folder, is fsynced and renamed over the map,
so a reader sees the old or the new map, never a mix, and a killed writer leaves the old one. A file
that cannot be read is reported and kept as it is; it is never overwritten.
"""

from __future__ import annotations

import os
import zlib

from cms.errors import CorruptMapError, MapError, MapNotFoundError
from cms.jsonio import dump_json, parse_json
from cms.map.model import CorrelationMap, map_from_dict, new_map
from cms.privatefile import write_atomically as replace_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from cms.paths import StrPath

    T = TypeVar("T")


def load_map(path: StrPath) -> CorrelationMap:
    """Read a map (no lock); raise MapNotFoundError, CorruptMapError or MapVersionError."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError as exc:
        raise MapNotFoundError(f"no map at {path}") from exc
    except OSError as exc:
        raise MapError(f"cannot read map {path}: {exc.strerror}") from exc
    return parse_map(raw, path)


def parse_map(raw: bytes, path: StrPath) -> CorrelationMap:
    """A map from the bytes of its file; raise CorruptMapError or MapVersionError."""
    try:
        data = parse_json(raw)
    except ValueError as exc:  # not UTF-8, not JSON
        raise CorruptMapError(f"map {path} is not valid JSON ({exc}); file kept as is") from exc
    try:
        return map_from_dict(data)
    except CorruptMapError as exc:
        raise CorruptMapError(f"map {path} is damaged: {exc}; file kept as is") from exc


def map_digest(raw: bytes) -> str:
    """A short fingerprint of a map file's bytes. The fact index records the one of the map it
    was synced from, so a reader learns without parsing whether the index still holds the map."""
    return f"{len(raw)}:{zlib.crc32(raw):08x}"


def read_map_digest(path: str) -> str | None:
    """The fingerprint of the map file at path, or None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return map_digest(handle.read())
    except OSError:
        return None


def dump_map(cmap: CorrelationMap) -> bytes:
    """The exact bytes of a map file (stable: the same map always gives the same bytes)."""
    return dump_json(cmap.to_dict()) + b"\n"


def write_atomically(path: StrPath, data: bytes) -> None:
    """Replace path with data: a private temp file in the same folder (0600, in a 0700 folder),
    fsync, rename, fsync the folder. A symlink at path is replaced, never written through."""
    replace_file(os.fspath(path), data, durable=True)


def save_map(path: StrPath, cmap: CorrelationMap) -> None:
    """Write a map atomically. Callers that read-modify-write hold the lock (see edit_map)."""
    write_atomically(path, dump_map(cmap))


def edit_map(
    path: StrPath,
    change: Callable[[CorrelationMap], tuple[T, bool]],
    *,
    session_id: str,
    project: str,
    lock_timeout: float = 30.0,
) -> T:
    """Load (or start) a map under its lock, run change(map) -> (result, changed), save if changed.

    A damaged or future-version file raises before change runs, so it is never overwritten.
    """
    from cms.locking import exclusive_lock  # portalocker: writers only, never the fast path

    with exclusive_lock(path, timeout=lock_timeout):
        try:
            cmap = load_map(path)
        except MapNotFoundError:
            cmap = new_map(session_id, project)
        result, changed = change(cmap)
        if changed:
            save_map(path, cmap)
        return result
