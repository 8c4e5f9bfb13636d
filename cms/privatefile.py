"""Private files under CMS_HOME: every folder cms creates is 0700 and every file 0600, whatever
the umask, and files are opened without following a symlink in their last component, so a
planted `logs/cms.log` or `map.json.lock` link is never written through. Standard library only
(`os`): the hooks use it on their fast path.
"""

from __future__ import annotations

import errno
import os

DIR_MODE = 0o700
FILE_MODE = 0o600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # Windows has no symlink-following flag
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_temp_ids = iter(range(1 << 62))  # a per-process counter: threads never share a temp name


def make_dirs(folder: str) -> None:
    """Create folder and its missing parents with mode 0700; folders that exist stay as they are.
    Raise OSError when it cannot be made."""
    try:
        os.mkdir(folder, DIR_MODE)
    except FileExistsError:
        return
    except FileNotFoundError:
        parent = os.path.dirname(folder)
        if not parent or parent == folder:
            raise
        make_dirs(parent)
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:  # another process made it in between
            return
    os.chmod(folder, DIR_MODE)  # mkdir's mode passes through the umask


def open_private(path: str, flags: int) -> int:
    """os.open(path, flags) with mode 0600 that refuses a symlink as the last component (OSError
    ELOOP) and leaves a file it may change at 0600, whatever the umask; returns the descriptor."""
    fd = os.open(path, flags | _NOFOLLOW | _CLOEXEC | _BINARY, FILE_MODE)
    if flags & (os.O_WRONLY | os.O_RDWR):
        try:  # noqa: SIM105 - no contextlib on the hook path
            os.fchmod(fd, FILE_MODE)  # a new file got 0600 minus the umask; an old one, anything
        except (OSError, AttributeError):  # another owner's file, or no fchmod (Windows)
            pass
    return fd


def ensure_file(path: str) -> None:
    """Make path's folder (0700) and an empty path (0600) unless it exists; a symlink at path is
    refused with OSError. For files another library opens by name (SQLite databases: their
    -wal and -shm files take the database's mode). An existing file is never opened here, only
    set to 0600 by name: closing any descriptor of a database file drops every lock SQLite
    holds on it in this process (a second store opened beside a busy one would corrupt it)."""
    make_dirs(os.path.dirname(path) or ".")
    if os.path.islink(path):
        raise OSError(errno.ELOOP, "refusing a symlinked file", path)
    if os.path.isfile(path):
        try:  # noqa: SIM105 - no contextlib on the hook path
            os.chmod(path, FILE_MODE)
        except OSError:  # another owner's file: the library opens it as it may
            pass
        return
    try:
        fd = open_private(path, os.O_RDWR | os.O_CREAT)
    except PermissionError:
        if os.path.isfile(path) and not os.path.islink(path):
            return  # a read-only file of ours: the library opens it read-only
        raise
    os.close(fd)


def write_atomically(path: str, data: bytes, *, durable: bool = False) -> None:
    """Replace path with data: a private temp file in the same folder, renamed over path (the
    rename replaces a symlink at path, never writes through it). durable: fsync the file and the
    folder first, so a crash leaves the old or the new file. Raise OSError on failure."""
    folder, name = os.path.split(path)
    folder = folder or "."
    make_dirs(folder)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{next(_temp_ids)}.tmp")
    try:
        fd = open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:  # noqa: SIM105 - no contextlib on the hook path
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _remove_orphans(folder, name)
    if durable and os.name != "nt":
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _remove_orphans(folder: str, name: str) -> None:
    """Remove the temp files a killed writer of name left in folder (".name.<pid>.<n>.tmp" of
    a process that no longer runs); a live writer's are left alone."""
    prefix = f".{name}."
    try:
        found = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return
    for orphan in found:
        pid = orphan[len(prefix) :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _running(int(pid)):
            continue
        try:  # noqa: SIM105 - no contextlib on the hook path
            os.unlink(os.path.join(folder, orphan))
        except OSError:
            pass


def _running(pid: int) -> bool:
    """Whether a process with this pid exists (one we may not signal counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def private_opener(path: str, flags: int) -> int:
    """An `opener` for open(): the file opened as open_private opens it."""
    return open_private(path, flags)
