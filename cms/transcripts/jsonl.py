"""Reading JSON-lines transcripts: from the end in blocks, forward in chunks, one record at a time.

Owns file access and the tolerance rules (a malformed, partial, overlong or non-object line is
skipped, never fatal). Only regular files are opened (a FIFO never blocks), every read is linear
and bounded in memory. An unreadable file raises TranscriptError. Knows nothing of either agent;
finding and numbering the latest turn is turns.py's.
"""

from __future__ import annotations

import json
import os
import stat

from cms.errors import TranscriptError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, BinaryIO

    from cms.paths import StrPath

    Record = dict[str, Any]
_BLOCK = 256 * 1024  # one backward read
CHUNK = 1024 * 1024  # one forward read
MAX_LINE = 8 * 1024 * 1024  # a longer line is skipped, never held in memory
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


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


def wrap_error(path: StrPath, error: OSError) -> TranscriptError:
    """The one-line TranscriptError for a failed read of path."""
    reason = error.strerror or type(error).__name__
    return TranscriptError(f"cannot read transcript {path}: {reason}")


def _not_regular(path: StrPath) -> TranscriptError:
    return TranscriptError(f"cannot read transcript {path}: not a regular file")


def open_transcript(path: StrPath) -> BinaryIO:
    """The file opened for reading, only if it is a regular file: a FIFO, device or folder is
    refused before it is opened (and opened non-blocking, so one swapped in meanwhile cannot
    hang the caller either; it is refused by the fstat after the open)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise _not_regular(path)
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise wrap_error(path, error) from error
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_regular(path)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def iter_lines_back(
    handle: BinaryIO, end: int, stop: int = 0, floor: int = 0, *, complete: bool = True
) -> Iterator[tuple[int, bytes | None]]:
    """(start offset, line) for every line ending after byte `stop`, last first, from byte `end`
    (a line end or the file's end) back; `floor` is a known line start at or before `stop`.
    With `complete` false the line that straddles `stop` is left out instead of read whole.
    A line longer than MAX_LINE comes as None and is never held whole. Each byte is read once
    and copied at most twice, so the cost is linear in the bytes walked."""
    pos = end
    pending: list[bytes] = []  # fragments of the line being walked, latest first
    pending_len = 0
    overlong = False
    while pos > floor and (pos > stop or (complete and pending_len and not overlong)):
        step = min(_BLOCK, pos - floor)
        pos -= step
        handle.seek(pos)
        block = handle.read(step)
        if len(block) != step:  # the file shrank under us: read what is there as its end
            raise OSError(0, "transcript shrank while read")
        cut = step
        newline = block.rfind(b"\n", 0, cut)
        while newline >= 0:
            piece_len = cut - newline - 1
            if overlong or pending_len + piece_len > MAX_LINE:
                line: bytes | None = None
            elif pending:
                line = block[newline + 1 : cut] + b"".join(reversed(pending))
            else:
                line = block[newline + 1 : cut]
            yield pos + newline + 1, line
            pending, pending_len, overlong = [], 0, False
            cut = newline
            if pos + cut <= stop:
                return
            newline = block.rfind(b"\n", 0, cut)
        if not overlong and cut:
            pending_len += cut
            if pending_len > MAX_LINE:
                pending, overlong = [], True
            else:
                pending.append(block[:cut])
    if pos == floor and (pending_len or overlong) and (complete or floor >= stop):
        yield floor, None if overlong else b"".join(reversed(pending))


def read_tail(
    path: StrPath,
    is_start: Callable[[bytes], bool],
    end: int | None = None,
    *,
    limit: int | None = None,
) -> tuple[int, list[bytes]]:
    """The lines from the last one for which `is_start` holds to the end of the file (or to byte
    `end`, a line start), in order, with the byte offset where that line starts. Reads backwards
    in blocks; when no line qualifies everything walked comes back, from offset 0 (or, with
    `limit`, from the first whole line within `limit` bytes of the end)."""
    try:
        with open_transcript(path) as handle:
            size = handle.seek(0, 2)
            end = size if end is None else min(end, size)
            stop = 0 if limit is None else max(0, end - limit)
            found: list[bytes] = []
            start = end
            for start, line in iter_lines_back(handle, end, stop):  # noqa: B007 - used after
                if line is None:
                    continue
                found.append(line)
                if line and is_start(line):
                    break
            found.reverse()
            return start, found
    except OSError as error:
        raise wrap_error(path, error) from error


def iter_lines(path: StrPath, end: int | None = None) -> Iterator[bytes]:
    """Every line of the file (or of its first `end` bytes), in order, read in chunks (a line
    longer than MAX_LINE is skipped)."""
    try:
        with open_transcript(path) as handle:
            remaining = end
            pending: list[bytes] = []
            pending_len = 0
            overlong = False
            while remaining is None or remaining > 0:
                size = CHUNK if remaining is None else min(CHUNK, remaining)
                chunk = handle.read(size)
                if not chunk:
                    break
                if remaining is not None:
                    remaining -= len(chunk)
                at = 0
                newline = chunk.find(b"\n")
                while newline >= 0:
                    if not overlong and pending_len + newline - at <= MAX_LINE:
                        yield (
                            b"".join([*pending, chunk[at:newline]])
                            if pending
                            else chunk[at:newline]
                        )
                    pending, pending_len, overlong = [], 0, False
                    at = newline + 1
                    newline = chunk.find(b"\n", at)
                if not overlong and at < len(chunk):
                    pending_len += len(chunk) - at
                    if pending_len > MAX_LINE:
                        pending, overlong = [], True
                    else:
                        pending.append(chunk[at:])
            if pending and not overlong:
                yield b"".join(pending)
    except OSError as error:
        raise wrap_error(path, error) from error


def read_head(path: StrPath, limit: int = 256 * 1024) -> list[bytes]:
    """The complete lines within the first `limit` bytes (plus the first line, however long,
    cut at `limit`): enough to tell a format or read a session header."""
    try:
        with open_transcript(path) as handle:
            data = handle.read(limit)
    except OSError as error:
        raise wrap_error(path, error) from error
    lines = data.split(b"\n")
    if len(lines) > 1 and len(data) == limit:
        lines.pop()  # the last one is cut
    return lines


def check_readable(path: StrPath) -> None:
    """Raise TranscriptError unless `path` is a readable regular file (never blocks on a FIFO)."""
    open_transcript(path).close()
