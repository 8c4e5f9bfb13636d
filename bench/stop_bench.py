"""The Stop hook on pathological transcripts, against bare `python -c pass` (budget 2.5x), and
the worker's read of the turn the Stop queued.

Cases: a 100 MB file with no newline, a 2 GB sparse file, a 106 MB agentic transcript (one
prompt, 40,000 tool calls) and a transcript of four short turns for reference. `cms hook Stop`
runs as a process with its payload on stdin; the worker is kept off (its lock is held) so only
the hook is timed. The worker's read (`jobs.exchange_of_job`, in process) is timed both as the
first read of a chat (no kept turn count) and as the read of a turn whose earlier turns were
read before (the count kept). Usage: python bench/stop_bench.py [--runs N] [--tool-calls N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hooks_bench import measure, report, wait_for_worker
from bench.timing import PYTHON, bench_env, hook_command
from cms.transcripts.exchange import Exchange

SESSION = "stop-bench-0001"


def _record(kind: str, uuid: str, parent: str | None, message: dict[str, object]) -> bytes:
    return (
        json.dumps(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": "/home/dev/proj",
                "sessionId": SESSION,
                "version": "2.1.200",
                "gitBranch": "main",
                "type": kind,
                "message": message,
                "uuid": uuid,
                "timestamp": "2026-01-01T00:00:00.000Z",
            },
            separators=(",", ":"),
        ).encode()
        + b"\n"
    )


def prompt_record(uuid: str, text: str, parent: str | None = None) -> bytes:
    return _record("user", uuid, parent, {"role": "user", "content": text})


def answer_record(uuid: str, parent: str, text: str) -> bytes:
    message = {
        "id": f"msg_{uuid}",
        "role": "assistant",
        "model": "claude-bench",
        "content": [{"type": "text", "text": text}],
    }
    return _record("assistant", uuid, parent, message)


def write_agentic_turn(handle: object, calls: int, output_chars: int = 2050) -> None:
    """One prompt, then `calls` Bash calls each with its result, then a final answer."""
    write = handle.write
    write(prompt_record("p-agentic", "Port the billing service to Postgres 16 and fix every test."))
    parent = "p-agentic"
    filler = ("lorem ipsum dolor sit amet " * (output_chars // 27 + 1))[:output_chars]
    for n in range(calls):
        tool_id = f"toolu_{n:06d}"
        use = {
            "id": f"msg_t{n}",
            "role": "assistant",
            "model": "claude-bench",
            "content": [
                {
                    "type": "tool_use",
                    "id": tool_id,
                    "name": "Bash",
                    "input": {"command": f"make t{n}"},
                }
            ],
        }
        write(_record("assistant", f"a{n}", parent, use))
        result = {
            "role": "user",
            "content": [
                {"tool_use_id": tool_id, "type": "tool_result", "content": f"ok {n} {filler}"}
            ],
        }
        write(_record("user", f"r{n}", f"a{n}", result))
        parent = f"r{n}"
    write(answer_record("final", parent, "Done: billing runs on Postgres 16; all tests pass."))


def earlier_turns() -> bytes:
    return prompt_record("p0", "What does the billing service use?") + answer_record(
        "a0", "p0", "It uses Postgres 12."
    )


def build(root: Path, calls: int) -> dict[str, Path]:
    files = {}
    one_line = root / "one-line.jsonl"
    with one_line.open("wb") as handle:
        block = b"x" * (1024 * 1024)
        for _ in range(100):
            handle.write(block)
    files["100 MB, no newline"] = one_line
    sparse = root / "sparse.jsonl"
    with sparse.open("wb") as handle:
        handle.truncate(2 * 1024**3)
    files["2 GB sparse"] = sparse
    agentic = root / "agentic.jsonl"
    with agentic.open("wb") as handle:
        handle.write(earlier_turns())
        write_agentic_turn(handle, calls)
    files["agentic"] = agentic
    small = root / "small.jsonl"
    small.write_bytes(earlier_turns() * 4)
    files["4 short turns (reference)"] = small
    return files


def kept_count_before_turn(home: Path, root: Path) -> bytes:
    """The turn-count file the worker leaves after reading the earlier turns (the turn before the
    big one): made on a file of the same inode holding only those turns, then the turn is
    appended."""
    path = root / "agentic.jsonl"
    data_path = root / "agentic.full"
    os.replace(path, data_path)
    with path.open("wb") as handle:
        handle.write(earlier_turns())
    read_turn(path)
    kept = (home / "chats" / SESSION / "turn-count.json").read_bytes()
    with path.open("ab") as handle, data_path.open("rb") as source:
        source.seek(len(earlier_turns()))
        shutil.copyfileobj(source, handle, 16 * 1024 * 1024)
    data_path.unlink()
    return kept


def read_turn(path: Path) -> tuple[float, Exchange | None]:
    """The worker's read of the turn a Stop queued for `path` (seconds, exchange)."""
    from cms.worker import jobs

    turn = {"path": str(path), "end": path.stat().st_size, "agent": "claude_code"}
    start = time.perf_counter()
    exchange = jobs.exchange_of_job(SESSION, {"turn": {**turn, "last_message": "Done."}})
    return time.perf_counter() - start, exchange


def payload(transcript: Path) -> bytes:
    return json.dumps(
        {
            "session_id": SESSION,
            "cwd": str(transcript.parent),
            "hook_event_name": "Stop",
            "transcript_path": str(transcript),
            "stop_hook_active": False,
            "last_assistant_message": "Done: billing runs on Postgres 16; all tests pass.",
        }
    ).encode()


def stop(env: dict[str, str], transcript: Path) -> None:
    subprocess.run(
        [*hook_command(), "hook", "Stop"], input=payload(transcript), env=env, check=True
    )


def peak_rss_mb(env: dict[str, str], transcript: Path) -> float:
    """Peak RSS of one Stop process (its own, through a wrapper that reports it)."""
    code = (
        "import resource,subprocess,sys;"
        "subprocess.run(sys.argv[1:],stdin=sys.stdin,check=False);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [PYTHON, "-c", code, *hook_command(), "hook", "Stop"],
        input=payload(transcript),
        env=env,
        capture_output=True,
        check=True,
    )
    return int(done.stdout.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--tool-calls", type=int, default=40_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "cms-home"
        os.environ["CMS_HOME"] = str(home)
        env = bench_env({"CMS_HOME": str(home), "CMS_PROVIDER": "local"}, pythonpath=False)
        from cms.hooks import queue as hook_queue
        from cms.worker import queue

        files = build(root, args.tool_calls)
        kept = kept_count_before_turn(home, root)
        sizes = {name: path.stat().st_size / 1024**2 for name, path in files.items()}
        print("files: " + ", ".join(f"{name} {size:,.0f} MB" for name, size in sizes.items()))
        counted = home / "chats" / SESSION / "turn-count.json"
        wait_for_worker(SESSION)
        lock = hook_queue.try_worker_lock(SESSION)  # no worker: only the hook is timed
        assert lock is not None
        try:
            samples: dict[str, list[tuple[float, float]]] = {f"Stop, {name}": [] for name in files}
            bare: list[tuple[float, float]] = []
            for path in files.values():  # warm caches
                stop(env, path)
            for _ in range(args.runs):
                bare.append(measure([PYTHON, "-c", "pass"], env, b""))
                for name, path in files.items():
                    samples[f"Stop, {name}"].append(
                        measure([*hook_command(), "hook", "Stop"], env, payload(path))
                    )
                    for job in queue.list_jobs(SESSION):
                        job.unlink()
            report(bare, samples, args.runs)
            for name, path in files.items():
                print(f"{'Stop, ' + name:<40} peak RSS {peak_rss_mb(env, path):6.1f} MB")
                for job in queue.list_jobs(SESSION):
                    job.unlink()
            print("worker read of the queued turn (in process, medians):")
            for name, path in files.items():
                for case, kept_bytes in (("first read", None), ("count kept", kept)):
                    times = []
                    for _ in range(args.runs):
                        counted.unlink(missing_ok=True)
                        if case == "count kept":
                            if name == "agentic":
                                counted.write_bytes(kept_bytes or b"")
                            else:
                                read_turn(path)  # the count a first read of this file left
                        elapsed, exchange = read_turn(path)
                        times.append(elapsed)
                    print(f"  {name:<40} {case:<11} {statistics.median(times) * 1000:7.1f} ms")
            counted.write_bytes(kept)
            _, exchange = read_turn(files["agentic"])
            assert exchange is not None
            print(
                f"agentic exchange: turn {exchange.turn}, user {exchange.user[:40]!r}, "
                f"{len(exchange.tools)} tools, extra {exchange.extra}"
            )
        finally:
            lock.release()


if __name__ == "__main__":
    main()
