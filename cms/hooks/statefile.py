"""Small JSON state files of the hooks (queue jobs, injection state, caches): atomic writes.

A write goes to a hidden temp file in the same folder and is renamed over the target, so a
reader or a killed process never sees half a file. Standard library only, string paths: this
runs on every prompt.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def write_state(path: str, data: Any) -> None:
    """Replace path with data as JSON (folders made as needed); raise OSError on failure."""
    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, ensure_ascii=False))  # one C call, not dump's chunks
        os.replace(tmp, path)
    except BaseException:
        try:  # noqa: SIM105 - contextlib costs a hook ~2 ms
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_state_quietly(path: str, data: Any) -> None:
    """write_state for caches: a file that cannot be written is simply rebuilt next time."""
    try:  # noqa: SIM105 - contextlib costs a hook ~2 ms
        write_state(path, data)
    except OSError:
        pass
