"""The log file rotates by size while several hook processes write at once: no line is lost,
none is torn or interleaved, and secrets are redacted before they reach it."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cms import paths
from cms.log import log_event
from tests.hooks.helpers import hook_env

WRITERS = 6
LINES = 400
PAD = "x" * 60

WRITER = textwrap.dedent(
    f"""
    import sys
    from cms.log import configure_log, log_event
    configure_log(max_bytes=10_000, backups=50, level="info")
    writer = sys.argv[1]
    for seq in range({LINES}):
        log_event("info", "rotation_test", f"writer={{writer}} seq={{seq}} {PAD}")
    """
)
LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ pid=\d+ INFO rotation_test writer=(\d+) seq=(\d+) "
    + PAD
    + "$"
)


@pytest.mark.slow
def test_concurrent_writers_through_rotation_lose_and_tear_no_line() -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(w)], env=hook_env(), stderr=subprocess.PIPE
        )
        for w in range(WRITERS)
    ]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
        assert proc.stderr is not None and proc.stderr.read() == b""
    folder = Path(paths.log_path()).parent
    files = sorted(folder.glob("cms.log*"))
    assert len(files) > 5, "the test must go through several rotations"
    seen: dict[tuple[int, int], int] = {}
    for path in files:
        if path.name.endswith(".lock"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            match = LINE.match(line)
            assert match, f"torn or interleaved line in {path.name}: {line[:120]!r}"
            key = (int(match.group(1)), int(match.group(2)))
            seen[key] = seen.get(key, 0) + 1
    expected = {(w, s) for w in range(WRITERS) for s in range(LINES)}
    assert set(seen) == expected
    assert set(seen.values()) == {1}


def test_log_lines_are_redacted_and_one_line_each() -> None:
    log_event("error", "probe", "token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\nsecond line")
    text = Path(paths.log_path()).read_text(encoding="utf-8")
    assert "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789" not in text
    assert text.count("\n") == 1 and "\\nsecond line" in text
