"""The latest turn of a growing transcript, found and numbered in bounded work.

Owns find_turn, TurnLines, number_turn, count_lines and the count kept between calls (LineCount).
Must not open files its own way or parse records (jsonl.py does); knows nothing of either agent.
"""

from __future__ import annotations

import os

from cms.record import Record, field
from cms.transcripts.jsonl import CHUNK, MAX_LINE, iter_lines_back, open_transcript, wrap_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import BinaryIO

    from cms.paths import StrPath

TAIL_WINDOW = 256 * 1024  # the end of a turn read in full
HEAD_WINDOW = 64 * 1024  # the start of a turn longer than the window (its prompt and first calls)
COLD_SCAN = 4 * 1024 * 1024  # how far back the latest prompt is looked for without a kept count


class TurnLines(Record):
    """Where the latest turn of a transcript lies and its lines, as find_turn read them.

    `start` is the offset of its first line (the prompt), -1 when no prompt is known: then `lost`
    says whether one may lie unread further back. `head` holds the lines from `start` (or from
    the window's first line); `tail` the last lines when the turn is longer than the window, with
    `skipped` bytes between the two left unread. `end` is a line start at or before the end of
    the file: everything before it has been looked at for prompts."""

    start: int = -1
    prompt_end: int = -1  # offset just past the prompt line
    lost: bool = False
    warm: bool = False  # a kept memo bounded the walk
    from_memo: bool = False  # `start` is the memo's latest prompt (no new one since)
    file_id: tuple[int, int] = (0, 0)
    head: list[bytes] = field(default_factory=list)
    tail: list[bytes] = field(default_factory=list)
    skipped: int = 0
    end: int = 0
    end_probe: bytes = b""

    @property
    def lines(self) -> list[bytes]:
        return self.head + self.tail


def _forward_lines(
    handle: BinaryIO, begin: int, budget: int, end: int
) -> Iterator[tuple[int, bytes]]:
    """(start, line) for the whole lines from `begin` (a line start) within `budget` bytes and
    before `end`; the first line is given whole up to MAX_LINE however long it is."""
    handle.seek(begin)
    data = handle.read(max(0, min(budget, end - begin)))
    at = 0
    first = data.find(b"\n")
    if first < 0 and begin + len(data) < end:  # a first line longer than the budget
        rest = handle.read(max(0, min(MAX_LINE - len(data), end - begin - len(data))))
        cut = rest.find(b"\n")
        if cut < 0:
            return
        yield begin, data + rest[:cut]
        return
    while at < len(data):
        newline = data.find(b"\n", at)
        if newline < 0:
            if begin + len(data) >= end:
                yield begin + at, data[at:]
            return
        yield begin + at, data[at:newline]
        at = newline + 1


def find_turn(
    path: StrPath,
    is_start: Callable[[bytes], bool],
    memo: LineCount | None = None,
    *,
    window: int = TAIL_WINDOW,
    head: int = HEAD_WINDOW,
    cold_scan: int = COLD_SCAN,
    end: int | None = None,
) -> TurnLines:
    """The latest turn (from the last line for which `is_start` holds) read in bounded work.

    Walks back from the end for the prompt: as far as the part already looked at by the call
    that kept `memo` (the prompt before it is `memo.latest`), else `cold_scan` bytes. A turn
    longer than `window` is read as its first `head` bytes and its last `window` bytes. When the
    walk stops short with a kept memo, the first prompt after the memo's offset is taken (a turn
    starts right after the previous Stop). Without a memo and no prompt within reach the turn
    comes back `lost`. The memo is read here, never changed: see count_prompt and LineCount.seen.
    With `end`, the file is read as if it ended there (the size a Stop hook saw: the worker reads
    that turn even when the next one has begun since).
    """
    turn = TurnLines()
    try:
        with open_transcript(path) as handle:
            size = handle.seek(0, 2)
            size = size if end is None else max(0, min(size, end))
            turn.file_id = file_id = _file_id(handle)
            seen, latest, count = memo._seen(handle, file_id, size) if memo else (0, -1, 0)
            turn.warm = warm = seen > 0
            stop = max(0, size - (window if warm else cold_scan))
            kept: list[bytes] = []
            kept_from = size
            turn.end = size
            walk = iter_lines_back(  # a line that straddles `stop` before `seen` was looked at
                handle, size, stop, seen if seen <= stop else 0, complete=not warm or seen < stop
            )
            for start, line in walk:
                if start >= size - window or not kept:
                    if not kept and start + len(line or b"") == size and size and line:
                        turn.end = start  # the last line has no newline yet: may be half written
                    kept.append(line or b"")
                    kept_from = start
                if line and is_start(line):
                    turn.start, turn.prompt_end = start, min(size, start + len(line) + 1)
                    turn.from_memo = warm and start == latest and count >= 0
                    break
            kept.reverse()
            if turn.start < 0 and warm and seen >= stop:  # the walk covered all that is new
                turn.start, turn.from_memo = latest, latest >= 0
                turn.lost = latest < 0 and count < 0  # an earlier call lost it too
            elif turn.start < 0 and warm:  # a new turn longer than the window: its prompt
                for start, line in _forward_lines(handle, seen, head, kept_from):
                    if line and is_start(line):  # is the first one after the kept offset
                        turn.start = start
                        break
                turn.lost = turn.start < 0
            elif turn.start < 0 and stop > 0:
                turn.lost = True
            if turn.start >= 0 and turn.start < kept_from:  # the turn is longer than the window
                first = True
                for start, line in _forward_lines(handle, turn.start, head, kept_from):
                    if first:
                        turn.prompt_end = min(size, start + len(line) + 1)
                        first = False
                    turn.head.append(line)
                    turn.skipped = kept_from - start - len(line) - 1
                turn.tail = kept
            else:
                turn.head = kept
            if turn.start >= 0 and not turn.head:
                turn.start = -1  # the prompt line is too long to read: no prompt after all
            handle.seek(max(0, turn.end - LineCount.PROBE_BYTES))
            turn.end_probe = handle.read(turn.end - handle.tell())
    except OSError as error:
        raise wrap_error(path, error) from error
    return turn


def _file_id(handle: BinaryIO) -> tuple[int, int]:
    info = os.fstat(handle.fileno())
    return info.st_dev, info.st_ino


class LineCount(Record):
    """A count carried between calls on a file that grows at its end: `count` lines satisfying
    the predicate named `tag` lie before byte `offset` of the file `file_id` (device, inode);
    `probe` holds the bytes just before `offset`, so a rewritten file is noticed and counted
    afresh. `latest` is the start of the last of those lines (-1 when none or unknown) once
    find_turn's caller has moved the count to the end of what it looked at (see `seen`).
    count_lines reads and updates it; storing it is the caller's business."""

    PROBE_BYTES = 64

    tag: str = ""
    file_id: tuple[int, int] = (0, 0)
    offset: int = 0
    count: int = 0
    probe: bytes = b""
    latest: int = -1

    def use_for(self, tag: str) -> LineCount:
        """This count, emptied first when it was kept for another predicate."""
        if tag != self.tag:
            self.tag, self.file_id, self.offset, self.count, self.probe = tag, (0, 0), 0, 0, b""
            self.latest = -1
        return self

    def seen(self, turn: TurnLines, count: int) -> None:
        """Move the count to the end of what find_turn looked at: the lines after the turn's
        prompt hold no other start line, so `count` (counted through that prompt; -1 when
        unknown) stays true there."""
        if turn.end <= 0 or (turn.start >= 0 and turn.end < turn.prompt_end):
            self.file_id, self.offset, self.count, self.probe = (0, 0), 0, 0, b""
            self.latest = -1  # nothing safe to keep
            return
        self.file_id, self.offset, self.count = turn.file_id, turn.end, count
        self.probe, self.latest = turn.end_probe, turn.start

    def to_json(self) -> dict[str, object]:
        return {
            "tag": self.tag,
            "file_id": list(self.file_id),
            "offset": self.offset,
            "count": self.count,
            "probe": self.probe.hex(),
            "latest": self.latest,
        }

    @classmethod
    def from_json(cls, data: object) -> LineCount:
        """The count stored by to_json; an empty one for anything else."""
        if not isinstance(data, dict):
            return cls()
        tag, file_id, offset, count, probe = (
            data.get(k) for k in ("tag", "file_id", "offset", "count", "probe")
        )
        latest = data.get("latest", -1)
        try:
            dev, ino = (int(v) for v in file_id)  # type: ignore[union-attr]
            raw = bytes.fromhex(probe)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return cls()
        if not isinstance(tag, str) or not isinstance(offset, int) or not isinstance(count, int):
            return cls()
        if not isinstance(latest, int) or latest >= offset:
            latest = -1
        return cls(tag, (dev, ino), offset, count, raw, latest)

    def _valid(self, handle: BinaryIO, file_id: tuple[int, int], end: int) -> bool:
        if file_id != self.file_id or not 0 < self.offset <= end:
            return False
        handle.seek(max(0, self.offset - self.PROBE_BYTES))
        return handle.read(self.offset - handle.tell()) == self.probe

    def _start(self, handle: BinaryIO, file_id: tuple[int, int], end: int) -> tuple[int, int]:
        """(byte to count from, lines counted before it) for a count up to `end`."""
        if self.count < 0 or not self._valid(handle, file_id, end):
            return 0, 0
        return self.offset, self.count

    def _seen(self, handle: BinaryIO, file_id: tuple[int, int], size: int) -> tuple[int, int, int]:
        """(offset looked at up to, the latest start line before it, the count) for find_turn."""
        if not self._valid(handle, file_id, size):
            return 0, -1, 0
        return self.offset, self.latest, self.count

    def _remember(self, handle: BinaryIO, file_id: tuple[int, int], end: int, count: int) -> None:
        handle.seek(max(0, end - self.PROBE_BYTES))
        self.probe = handle.read(end - handle.tell())
        self.file_id, self.offset, self.count = file_id, end, count
        self.latest = -1


def number_turn(
    path: StrPath,
    turn: TurnLines,
    predicate: Callable[[bytes], bool],
    needle: bytes = b"",
    *,
    tag: str = "",
    memo: LineCount | None = None,
) -> int:
    """The 1-based number of the turn found by find_turn among the lines satisfying `predicate`
    (which its prompt line satisfies); 0 when it has no prompt. Counts only what lies between
    the memo's offset and the prompt, then moves the memo (kept for `tag`) past the turn."""
    if memo is not None and memo.tag != tag:
        memo.use_for(tag)
        turn.from_memo = False
    if turn.start < 0:
        if memo is not None:
            memo.seen(turn, -1 if turn.lost else memo.count if turn.warm else 0)
        return 0
    if turn.from_memo and memo is not None and memo.count >= 0:
        number = memo.count
    else:
        number = count_lines(path, turn.prompt_end, predicate, needle, memo=memo)
    if memo is not None:
        memo.seen(turn, number)
    return number


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
        with open_transcript(path) as handle:
            file_id = _file_id(handle)
            begin, before = memo._start(handle, file_id, end) if memo is not None else (0, 0)
            handle.seek(begin)
            count = before + _count_from(handle, end - begin, predicate, needle)
            if memo is not None:
                memo._remember(handle, file_id, end, count)
    except OSError as error:
        raise wrap_error(path, error) from error
    return count


def _count_from(
    handle: BinaryIO, size: int, predicate: Callable[[bytes], bool], needle: bytes
) -> int:
    """count_lines over the next `size` bytes of an open file (positioned at a line start).
    Linear: only the part of a chunk after its last newline is carried, and a line longer than
    MAX_LINE is dropped (never counted) instead of carried."""
    count = 0
    remaining = size
    carry: list[bytes] = []
    carry_len = 0
    overlong = False
    while remaining > 0:
        chunk = handle.read(min(CHUNK, remaining))
        if not chunk:
            break
        remaining -= len(chunk)
        cut = chunk.find(b"\n")
        if cut < 0 and remaining > 0:  # no line ends in this chunk: it all continues a line
            carry_len += len(chunk)
            if carry_len > MAX_LINE:
                carry, overlong = [], True
            elif not overlong:
                carry.append(chunk)
            continue
        if cut < 0:
            cut = len(chunk)
        if not overlong and carry_len + cut <= MAX_LINE:
            first = b"".join([*carry, chunk[:cut]])
            if first and (not needle or needle in first) and predicate(first):
                count += 1
        carry, carry_len, overlong = [], 0, False
        last = chunk.rfind(b"\n") + 1 if remaining > 0 else len(chunk)
        if last > cut:
            count += _count_block(chunk[cut + 1 : last], predicate, needle)
        if last < len(chunk):
            carry, carry_len = [chunk[last:]], len(chunk) - last
    if carry and not overlong:  # the file ended early: its last line
        line = b"".join(carry)
        if (not needle or needle in line) and predicate(line):
            count += 1
    return count


def _count_block(data: bytes, predicate: Callable[[bytes], bool], needle: bytes) -> int:
    """The lines of `data` (whole lines, the last one possibly without a newline) that count."""
    if not needle:
        return sum(1 for line in data.split(b"\n") if line and predicate(line))
    count = 0
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        stop = len(data) if stop < 0 else stop
        if predicate(data[start:stop]):
            count += 1
        at = data.find(needle, stop)
    return count
