"""A hook process skips the interpreter's teardown, unless someone else cleans up at exit."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.hooks.helpers import hook_env

PROBE = textwrap.dedent(
    """
    import os, sys
    if sys.argv[-1] == "callback":
        import atexit
        atexit.register(lambda: os.write(1, b"callback ran\\n"))
    class Noisy:
        def __del__(self):
            os.write(1, b"teardown ran\\n")
    noisy = Noisy()
    sys.argv = ["cms", "hook", "UserPromptSubmit"]
    from cms.entry import main
    main()
    """
)


def run_probe(tmp_path: Path, mode: str, extra: dict[str, str] | None = None) -> str:
    payload = {"session_id": "chat-teardown", "cwd": str(tmp_path), "prompt": "what was decided?"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=hook_env(extra),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == b"", done
    return done.stdout.decode("utf-8")


def test_a_hook_process_skips_the_teardown(tmp_path: Path) -> None:
    assert "teardown ran" not in run_probe(tmp_path, "plain")


def test_another_exit_callback_keeps_the_usual_exit(tmp_path: Path) -> None:
    out = run_probe(tmp_path, "callback")
    assert "callback ran" in out and "teardown ran" in out


@pytest.mark.parametrize("mode", ["plain", "callback"])
def test_sync_mode_keeps_the_usual_exit(tmp_path: Path, mode: str) -> None:
    assert "teardown ran" in run_probe(tmp_path, mode, {"CMS_SYNC": "1"})
