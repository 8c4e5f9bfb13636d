"""Exclusive inter-process file locks (the only module that imports portalocker).

A lock is a private sidecar file `<target>.lock` (never opened through a symlink); holding it
serialises writers of the target.
Importing portalocker costs tens of milliseconds, so hook fast paths must not import this.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import portalocker

from cms.errors import LockTimeoutError
from cms.privatefile import make_dirs, private_opener

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.paths import StrPath


@contextmanager
def exclusive_lock(target: StrPath, timeout: float = 30.0) -> Iterator[None]:
    """Hold an exclusive lock on `target` (through `target.lock`) for the with-block."""
    lock_path = os.fspath(target) + ".lock"
    make_dirs(os.path.dirname(lock_path) or ".")
    lock = portalocker.Lock(
        lock_path,
        mode="a",
        timeout=timeout,
        check_interval=0.01,
        fail_when_locked=False,
        opener=private_opener,  # 0600, and a symlinked lock file is refused (ELOOP)
    )
    try:
        lock.acquire()
    except portalocker.exceptions.LockException as exc:
        raise LockTimeoutError(f"could not lock {target} within {timeout:g}s") from exc
    except OSError as exc:  # a symlink planted as the lock file, a folder we cannot write
        raise LockTimeoutError(f"could not lock {target}: {lock_path}: {exc.strerror}") from exc
    try:
        yield
    finally:
        lock.release()
