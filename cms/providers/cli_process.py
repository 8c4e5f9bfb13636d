"""Running a model CLI (`claude -p`, `codex exec`) as a child: its own process group, killed
whole on timeout, no orphans. Knows nothing of what the CLI prints; raises ProviderError only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

from cms.errors import ProviderError


def one_line(text: str, limit: int = 240) -> str:
    """Text flattened to one line and cut to limit characters, for error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_cli(
    name: str, command: list[str], data: bytes, cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of command fed data on stdin, run in a new process group;
    on timeout (or any interruption) the whole group is killed. `name` names the CLI in errors."""
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        raise ProviderError(f"cannot start the {name} CLI: {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a grandchild escaped the group and holds a pipe
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
            proc.wait()
        raise ProviderError(f"{name} CLI timed out after {timeout:g}s") from None
    finally:
        _kill_group(proc)  # no orphans: background children of the CLI go with it
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
