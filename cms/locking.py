"""Exclusive inter-process file locks (the only module that imports portalocker).

A lock is a sidecar file `<target>.lock`; holding it serialises writers of the target.
Importing portalocker costs tens of milliseconds, so hook fast paths must not import this.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import portalocker

from cms.errors import LockTimeoutError


@contextmanager
def exclusive_lock(target: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold an exclusive lock on `target` (through `target.lock`) for the with-block."""
    lock_path = target.with_name(target.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = portalocker.Lock(
        str(lock_path), mode="a", timeout=timeout, check_interval=0.01, fail_when_locked=False
    )
    try:
        lock.acquire()
    except portalocker.exceptions.LockException as exc:
        raise LockTimeoutError(f"could not lock {target} within {timeout:g}s") from exc
    try:
        yield
    finally:
        lock.release()
