"""A hook writes nothing but its reply: a warning or a library's notice on stderr is dropped."""

from __future__ import annotations

import subprocess
import sys

from tests.hooks.helpers import hook_env

NOISY = """
import sys, warnings
from cms.hooks import runner

def noisy(event, raw):
    warnings.warn("a library's warning", UserWarning)
    warnings.warn("a runtime warning", RuntimeWarning)
    print("a library's notice", file=sys.stderr)
    return None

runner.handle_hook = noisy
runner.read_stdin = lambda: b"{}"
sys.exit(runner.run_hook(["UserPromptSubmit"]))
"""


def test_warnings_and_notices_written_during_a_hook_reach_neither_stream() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NOISY], capture_output=True, env=hook_env(), timeout=60
    )
    assert done.returncode == 0
    assert done.stdout == b""
    assert done.stderr == b""


def test_the_same_code_outside_a_hook_does_print_them() -> None:  # the test above can fail
    script = NOISY.replace('sys.exit(runner.run_hook(["UserPromptSubmit"]))', "noisy(None, b'')")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=hook_env(), timeout=60
    )
    assert b"a library's warning" in done.stderr and b"a library's notice" in done.stderr
