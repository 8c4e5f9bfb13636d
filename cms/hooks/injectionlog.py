"""The text of each injection, for `cms ui` to expand: one JSON line per injection appended to
`<chat dir>/injections.jsonl` (0600), the oldest half dropped once the file passes MAX_BYTES.

Appending costs the hook one open and one write; reading is the ui's (read_injected). The text
is what the hook sent (memory already redacted at storage); nothing else is written here.
"""

from __future__ import annotations

import os

from cms import jsonio, paths
from cms.privatefile import make_dirs, open_private, write_atomically

LOG_NAME = "injections.jsonl"
MAX_BYTES = 1_000_000  # past this the older half of the lines is dropped


def log_path(session_id: str) -> str:
    return os.path.join(paths.chat_dir(session_id), LOG_NAME)


def append_injected(session_id: str, at: float, event: str, text: str) -> None:
    """Append one injection's text; trim the file when it grew past MAX_BYTES."""
    path = log_path(session_id)
    make_dirs(os.path.dirname(path))
    line = jsonio.dumps({"at": at, "event": event, "text": text}, ensure_ascii=False) + "\n"
    fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line.encode("utf-8"))
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        with open(path, "rb") as handle:
            lines = handle.read().splitlines(keepends=True)
        write_atomically(path, b"".join(lines[len(lines) // 2 :]))


def read_injected(session_id: str) -> dict[tuple[float, str], str]:
    """(time, hook event) -> the text injected then, for the injections still in the file."""
    found: dict[tuple[float, str], str] = {}
    try:
        with open(log_path(session_id), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            entry = jsonio.loads(line)
        except ValueError:
            continue  # a line cut by a full disk: the others stay readable
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            at, event = entry.get("at"), entry.get("event")
            if isinstance(at, int | float) and isinstance(event, str):
                found[(round(float(at), 3), event)] = entry["text"]
    return found
