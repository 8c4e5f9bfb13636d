"""Small JSON state files of the hooks (queue jobs, injection state, caches): atomic writes.

A write goes to a hidden private temp file in the same folder and is renamed over the target, so
a reader or a killed process never sees half a file, and a symlink at the target is replaced,
never written through (cms.privatefile). Standard library only, string paths: this runs on every
prompt.
"""

from __future__ import annotations

from cms import jsonio
from cms.privatefile import write_atomically

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def write_state(path: str, data: Any) -> None:
    """Replace path with data as JSON (folders made 0700 as needed, the file 0600); raise OSError
    on failure."""
    # one C call, not dump's chunks
    write_atomically(path, jsonio.dumps(data, ensure_ascii=False).encode("utf-8"))


def write_state_quietly(path: str, data: Any) -> None:
    """write_state for caches: a file that cannot be written is simply rebuilt next time."""
    try:  # noqa: SIM105 - contextlib stays off the hook path (tests/hooks/test_imports.py)
        write_state(path, data)
    except OSError:
        pass
