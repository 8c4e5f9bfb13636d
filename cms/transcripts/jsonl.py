"""Reading JSON-lines transcripts: from the end in blocks, forward in chunks, one record at a time.

Owns file access and the tolerance rules (a malformed, partial or non-object line is skipped,
never fatal). An unreadable file raises TranscriptError. Knows nothing of either agent's records.
"""

from __future__ import annotations

import json
import os

from cms.errors import TranscriptError

TYPE_CHECKING = False  # typing and pathlib cost the Stop hook milliseconds; mypy reads these
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, BinaryIO

    from cms.paths import StrPath

    Record = dict[str, Any]
_FIRST_BLOCK = 64 * 1024
_MAX_BLOCK = 4 * 1024 * 1024
_CHUNK = 1024 * 1024


def parse_line(line: bytes) -> Record | None:
    """The JSON object on one line, or None for a blank, malformed or non-object line."""
    line = line.strip()
    if not line.startswith(b"{"):
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _fail(path: StrPath, error: OSError) -> TranscriptError:
    reason = error.strerror or type(error).__name__
    return TranscriptError(f"cannot read transcript {path}: {reason}")


def read_tail(
    path: StrPath, is_start: Callable[[bytes], bool], end: int | None = None
) -> tuple[int, list[bytes]]:
    """The lines from the last one for which `is_start` holds to the end of the file (or to byte
    `end`, a line start), in order, with the byte offset where that line starts. Reads backwards
    in growing blocks; when no line qualifies everything comes back with offset 0."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, 2)
            end = size if end is None else min(end, size)
            pos, block, carry = end, _FIRST_BLOCK, b""
            cursor = end  # end offset of the next line to hand out, walking backwards
            found: list[bytes] = []
            while pos > 0:
                step = min(block, pos)
                pos -= step
                handle.seek(pos)
                parts = (handle.read(step) + carry).split(b"\n")
                carry = parts[0]  # may continue further back
                for line in reversed(parts[1:]):
                    start = cursor - len(line)
                    cursor = start - 1
                    found.append(line)
                    if line and is_start(line):
                        found.reverse()
                        return start, found
                block = min(block * 2, _MAX_BLOCK)
            found.append(carry)  # the first line of the file, start or not
            found.reverse()
            return 0, found
    except OSError as error:
        raise _fail(path, error) from error


def iter_lines(path: StrPath, end: int | None = None) -> Iterator[bytes]:
    """Every line of the file (or of its first `end` bytes), in order, read in chunks."""
    try:
        with open(path, "rb") as handle:
            remaining = end
            carry = b""
            while remaining is None or remaining > 0:
                size = _CHUNK if remaining is None else min(_CHUNK, remaining)
                chunk = handle.read(size)
                if not chunk:
                    break
                if remaining is not None:
                    remaining -= len(chunk)
                parts = (carry + chunk).split(b"\n")
                carry = parts.pop()
                yield from parts
            if carry:
                yield carry
    except OSError as error:
        raise _fail(path, error) from error


class LineCount:
    """A count carried between calls of count_lines on a file that grows at its end: `count`
    lines satisfying the predicate named `tag` lie before byte `offset` of the file `file_id`
    (device, inode); `probe` holds the bytes just before `offset`, so a rewritten file is noticed
    and counted afresh. count_lines reads and updates it; storing it is the caller's business."""

    __slots__ = ("count", "file_id", "offset", "probe", "tag")
    PROBE_BYTES = 64

    def __init__(
        self,
        tag: str = "",
        file_id: tuple[int, int] = (0, 0),
        offset: int = 0,
        count: int = 0,
        probe: bytes = b"",
    ) -> None:
        self.tag = tag
        self.file_id = file_id
        self.offset = offset
        self.count = count
        self.probe = probe

    def use_for(self, tag: str) -> LineCount:
        """This count, emptied first when it was kept for another predicate."""
        if tag != self.tag:
            self.tag, self.file_id, self.offset, self.count, self.probe = tag, (0, 0), 0, 0, b""
        return self

    def to_json(self) -> dict[str, object]:
        return {
            "tag": self.tag,
            "file_id": list(self.file_id),
            "offset": self.offset,
            "count": self.count,
            "probe": self.probe.hex(),
        }

    @classmethod
    def from_json(cls, data: object) -> LineCount:
        """The count stored by to_json; an empty one for anything else."""
        if not isinstance(data, dict):
            return cls()
        tag, file_id, offset, count, probe = (
            data.get(k) for k in ("tag", "file_id", "offset", "count", "probe")
        )
        try:
            dev, ino = (int(v) for v in file_id)  # type: ignore[union-attr]
            raw = bytes.fromhex(probe)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return cls()
        if not isinstance(tag, str) or not isinstance(offset, int) or not isinstance(count, int):
            return cls()
        return cls(tag, (dev, ino), offset, count, raw)

    def _start(self, handle: BinaryIO, file_id: tuple[int, int], end: int) -> tuple[int, int]:
        """(byte to count from, lines counted before it) for a count up to `end`."""
        if file_id != self.file_id or not 0 < self.offset <= end or self.count < 0:
            return 0, 0
        handle.seek(max(0, self.offset - self.PROBE_BYTES))
        if handle.read(self.offset - handle.tell()) != self.probe:
            return 0, 0
        return self.offset, self.count

    def _remember(self, handle: BinaryIO, file_id: tuple[int, int], end: int, count: int) -> None:
        handle.seek(max(0, end - self.PROBE_BYTES))
        self.probe = handle.read(end - handle.tell())
        self.file_id, self.offset, self.count = file_id, end, count


def count_lines(
    path: StrPath,
    end: int,
    predicate: Callable[[bytes], bool],
    needle: bytes = b"",
    *,
    memo: LineCount | None = None,
) -> int:
    """How many lines in the first `end` bytes satisfy `predicate`. With a `needle` that every
    such line contains, only the lines holding it are looked at (no per-line split of the rest:
    counting the turns of a 50 MB transcript stays cheap). With a `memo` from an earlier call on
    the same file, only the bytes after its offset are read; the memo is then updated."""
    try:
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            file_id = (stat.st_dev, stat.st_ino)
            begin, before = memo._start(handle, file_id, end) if memo is not None else (0, 0)
            handle.seek(begin)
            count = before + _count_from(handle, end - begin, predicate, needle)
            if memo is not None:
                memo._remember(handle, file_id, end, count)
    except OSError as error:
        raise _fail(path, error) from error
    return count


def _count_from(
    handle: BinaryIO, size: int, predicate: Callable[[bytes], bool], needle: bytes
) -> int:
    """count_lines over the next `size` bytes of an open file (positioned at a line start)."""
    count = 0
    remaining, carry = size, b""
    while remaining > 0:
        chunk = handle.read(min(_CHUNK, remaining))
        if not chunk:
            break
        remaining -= len(chunk)
        data = carry + chunk
        cut = data.rfind(b"\n") + 1 if remaining > 0 else len(data)
        data, carry = data[:cut], data[cut:]
        if not needle:
            count += sum(1 for line in data.split(b"\n") if line and predicate(line))
            continue
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            stop = data.find(b"\n", at)
            stop = len(data) if stop < 0 else stop
            if predicate(data[start:stop]):
                count += 1
            at = data.find(needle, stop)
    if carry and (not needle or needle in carry) and predicate(carry):
        count += 1
    return count


def read_head(path: StrPath, limit: int = 256 * 1024) -> list[bytes]:
    """The complete lines within the first `limit` bytes (plus the first line, however long,
    cut at `limit`): enough to tell a format or read a session header."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit)
    except OSError as error:
        raise _fail(path, error) from error
    lines = data.split(b"\n")
    if len(lines) > 1 and len(data) == limit:
        lines.pop()  # the last one is cut
    return lines


def check_readable(path: StrPath) -> None:
    """Raise TranscriptError unless `path` is a readable regular file."""
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        raise _fail(path, error) from error
    if not os.path.isfile(path):
        raise TranscriptError(f"cannot read transcript {path}: not a regular file")
