"""The log file ($CMS_HOME/logs/cms.log) with size-based rotation safe across processes.

Each record is one line written with a single O_APPEND write, so concurrent hook processes never
interleave; rotation happens under a lock and re-checks the size, so only one process rotates.
Every message is redacted before it reaches the disk; the file is private (0600) and a symlink in
its place is refused, not written through. Logging never raises.
"""

from __future__ import annotations

import os
import time

from cms import paths
from cms.privatefile import make_dirs, open_private

_LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40}
_settings: dict[str, object] = {"max_bytes": 1_000_000, "backups": 3, "level": "info"}


def configure_log(max_bytes: int, backups: int, level: str) -> None:
    """Apply the [log] section of the config for this process."""
    _settings.update(max_bytes=max_bytes, backups=backups, level=level)


def _rotate(path: str, backups: int, max_bytes: int) -> None:
    from pathlib import Path  # rare path: keep pathlib and portalocker off the hot path

    from cms.locking import exclusive_lock

    with exclusive_lock(Path(path), timeout=2.0):
        try:
            if os.stat(path).st_size < max_bytes:
                return  # another process rotated first
        except FileNotFoundError:
            return
        if backups == 0:
            Path(path).unlink(missing_ok=True)
            return
        for i in range(backups - 1, 0, -1):
            older = f"{path}.{i}"
            if os.path.exists(older):
                os.replace(older, f"{path}.{i + 1}")
        os.replace(path, f"{path}.1")


def log_event(level: str, event: str, message: str = "", **fields: object) -> None:
    """Append one redacted line: time, pid, level, event, message, key=value fields."""
    try:
        if _LEVELS.get(level, 20) < _LEVELS.get(str(_settings["level"]), 20):
            return
        from cms.transcripts.redact import redact_text

        extra = " ".join(f"{k}={v}" for k, v in fields.items())
        text = " ".join(part for part in (message, extra) if part)
        text = redact_text(text).replace("\n", "\\n")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} pid={os.getpid()} {level.upper()} {event} {text}\n".encode()
        path = paths.log_path()
        make_dirs(os.path.dirname(path))
        fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)  # never through a link
        try:
            os.write(fd, line)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        max_bytes = int(str(_settings["max_bytes"]))
        if size >= max_bytes:
            _rotate(path, int(str(_settings["backups"])), max_bytes)
    except Exception:  # noqa: BLE001 - logging must never break the caller
        pass


def last_error(log_file: str | None = None) -> str | None:
    """The newest ERROR line of the current log file (default: this CMS_HOME's), for
    `cms install --status` and `cms doctor`."""
    try:
        with open(log_file or paths.log_path(), encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()[-2000:]
    except OSError:
        return None
    for line in reversed(lines):
        if " ERROR " in line:
            return line.rstrip("\n")
    return None
