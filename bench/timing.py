"""Shared timing for the benchmarks: median process wall time against bare `python -c pass`.

Runs every command with the real interpreter (not a pyenv shim) and PYTHONDONTWRITEBYTECODE
unset, as on a user's machine; commands and the baseline are interleaved in one run so machine
noise hits both. Prints ratios; never asserts a wall-clock threshold. `count_instructions`
gives the other figure: instructions executed (valgrind), the same from run to run, so that two
versions can be compared where a busy machine blurs wall times.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# sys.executable is the real interpreter (a pyenv shim execs it) or the venv's own python;
# resolving the venv symlink would lose the venv and measure another site-packages.
PYTHON = sys.executable


def cms_command() -> list[str]:
    """How the CLI starts: the environment's console script (as install.py wires it), else -m."""
    script = Path(sys.prefix) / "bin" / "cms"
    return [str(script)] if script.exists() else [PYTHON, "-m", "cms"]


_launchers: list[Path] = []


def hook_command() -> list[str]:
    """How installed hooks start cms: the launcher `cms install` writes (this interpreter with
    -S, cms found where this process finds it: this checkout; cms.install.launcher), written
    once per run into a temporary folder; the console script on Windows, where there is none.
    Run it with bench_env(pythonpath=False)."""
    if os.name == "nt":
        return cms_command()
    if not _launchers:
        import atexit
        import tempfile

        from cms.install.launcher import import_folders, launcher_source

        folder = Path(tempfile.mkdtemp(prefix="cms-bench-launcher-"))
        atexit.register(shutil.rmtree, folder, True)
        program = folder / "cms"
        program.write_text(launcher_source(PYTHON, import_folders()), encoding="utf-8")
        program.chmod(0o755)
        _launchers.append(program)
    return [str(_launchers[0])]


def bench_env(extra: Mapping[str, str] | None = None, *, pythonpath: bool = True) -> dict[str, str]:
    """The environment commands run in: PYTHONDONTWRITEBYTECODE unset, and this checkout put
    first on PYTHONPATH so that the console script runs its code; without `pythonpath` (the
    hooks, whose launcher already finds this checkout, see hook_command) no PYTHONPATH at all,
    as on a user's machine, where one more folder searched before the standard library would
    cost every import."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PYTHONDONTWRITEBYTECODE" and (pythonpath or k != "PYTHONPATH")
    }
    if pythonpath:
        env["PYTHONPATH"] = str(ROOT)
    env.update(extra or {})
    return env


def run_once(argv: Sequence[str], env: Mapping[str, str], stdin: bytes = b"") -> float:
    start = time.perf_counter()
    subprocess.run(
        argv,
        input=stdin,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def compare(
    cases: Mapping[str, tuple[Sequence[str], bytes]],
    env: Mapping[str, str],
    runs: int = 21,
) -> dict[str, tuple[float, float]]:
    """{name: (median seconds, ratio to bare python)} with `python -c pass` as the baseline."""
    baseline_argv = [PYTHON, "-c", "pass"]
    for argv, stdin in cases.values():  # warm the bytecode cache and the page cache
        run_once(argv, env, stdin)
    times: dict[str, list[float]] = {name: [] for name in cases}
    bare: list[float] = []
    for _ in range(runs):
        bare.append(run_once(baseline_argv, env))
        for name, (argv, stdin) in cases.items():
            times[name].append(run_once(argv, env, stdin))
    base = statistics.median(bare)
    print(f"{'bare python -c pass':<40} {base * 1000:8.1f} ms   1.00x")
    result = {}
    for name, samples in times.items():
        median = statistics.median(samples)
        result[name] = (median, median / base)
        print(f"{name:<40} {median * 1000:8.1f} ms  {median / base:5.2f}x")
    return result


def count_instructions(
    argv: Sequence[str], env: Mapping[str, str], stdin: bytes = b""
) -> int | None:
    """Instructions the process executes (valgrind's cachegrind, "I refs"); None without
    valgrind. Children it starts (the worker) are not counted."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    tool = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run([*tool, *argv], input=stdin, env=env, capture_output=True, check=False)
    found = re.search(rb"I\s+refs:\s+([\d,]+)", done.stderr)
    return int(found.group(1).replace(b",", b"")) if found else None


def report_instructions(
    cases: Mapping[str, tuple[Sequence[str], bytes, Callable[[], None] | None]],
    env: Mapping[str, str],
) -> None:
    """Each case's instruction count against bare `python -c pass` (once each: deterministic
    but for the store's own changes; `before` runs first, untimed)."""
    bare = count_instructions([PYTHON, "-c", "pass"], env)
    if bare is None:
        print("instructions: valgrind not found, skipped")
        return
    print(f"{'bare python -c pass':<40} {bare / 1e6:8.1f} M instr  1.00x")
    for name, (argv, stdin, before) in cases.items():
        if before:
            before()
        count = count_instructions(argv, env, stdin)
        if count is not None:
            print(f"{name:<40} {count / 1e6:8.1f} M instr  {count / bare:5.2f}x")
