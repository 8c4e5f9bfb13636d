"""Median process wall time of every hook against bare `python -c pass` (DESIGN section 8).

Data: a chat map of 50 planets / 1,000 facts and a project store of 10,000 observations (or
--observations) in a git repository made here; --chats N adds N other chats of 1,000 facts each
to the project's fact index. Stop, SessionEnd and PreCompact start a detached worker; the script waits
for it between runs (not timed). --instructions adds each hook's instruction count (valgrind),
which does not move with the machine's load. --text real (the default) makes the facts, the
observations and the prompt of real coding sessions (bench/worker_bench.py's sentences; the
prompt, a user's from the scenarios, with a port number); --text synthetic, generated
syllables. --team-url URL runs the hooks with a team database set (CMS_TEAM_URL; SessionStart
then queues a sync and starts a worker, waited for between runs, not timed). Usage: python
bench/hooks_bench.py [--runs N] [--observations N] [--chats N] [--instructions]
[--team-url URL] [--text real|synthetic]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.index_bench import big_map
from bench.search_bench import WORDS, build_map
from bench.timing import PYTHON, bench_env, hook_command, report_instructions, run_once
from bench.worker_bench import real_sentences

SESSION = "bench-session-0001"
WRITER_SESSION = "bench-writer-0001"  # Stop/SessionEnd/PreCompact change this chat, not SESSION
PROMPT = "why does the postgres migration retry time out on the staging deploy?"
REAL_PROMPT = "staging broken again, `connection refused` on 5433 in the logs"  # scenario a01


def make_repo(root: Path) -> Path:
    repo = root / "project"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@example.com",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.com",
    }
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def fill_store(cwd: Path, count: int, sentences: list[str] | None = None) -> None:
    from cms.observations.access import open_project_memory
    from cms.observations.model import NewObservation
    from cms.observations.store import insert_observation

    kinds = ("decision", "learning", "bugfix", "command", "file_summary", "preference", "other")
    rng = random.Random(7)
    memory = open_project_memory(cwd, create=True)
    assert memory is not None
    head = memory.scope.head
    now = time.time()

    syllables = ("ka", "lo", "mi", "ren", "tos", "vu", "zel", "pra", "qui", "dan", "fe", "gor")
    vocabulary = sorted(
        {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(4000)}
    )

    def text(size: int) -> str:  # mostly project-specific words, sometimes a common one
        return " ".join(
            rng.choice(WORDS) if rng.random() < 0.15 else rng.choice(vocabulary)
            for _ in range(size)
        )

    def title(i: int) -> str:
        return sentences[i % len(sentences)] if sentences else f"Observation {i}: {text(6)}"

    def body(i: int) -> str:
        if sentences:
            return sentences[(i * 7 + 3) % len(sentences)]
        return f"{text(rng.randint(10, 30))} (detail {i})"

    def insert_all(conn: object) -> None:
        for i in range(count):
            new = NewObservation(
                kind=kinds[i % len(kinds)],
                title=title(i),
                body=body(i),
                files=(f"src/{rng.choice(vocabulary)}.py",),
                importance=1 + i % 5,
            )
            insert_observation(
                conn,
                memory.project.id,
                new,
                branch="main",
                commit=head,  # type: ignore[arg-type]
                session="old",
                agent="claude_code",
                created_at=now - rng.random() * 86400 * 200,
            )

    from cms.observations.matching import tidy_text_indexes

    with memory:
        memory.store.write(insert_all)  # type: ignore[arg-type]
        memory.store.write(tidy_text_indexes)  # as the worker leaves the store after each write
    print(f"store: {count} observations")


def write_notes(cwd: Path) -> str:
    """The project's file notes (as the worker writes them); a file they name."""
    from cms.observations.access import open_project_memory
    from cms.observations.filekeys import read_notes
    from cms.observations.filenotes import write_file_notes

    memory = open_project_memory(cwd, create=False)
    assert memory is not None
    with memory:
        items = write_file_notes(memory.store)
        notes = read_notes(memory.project.id)
    assert notes is not None
    named = next(key.removeprefix("path:") for key in notes[0] if key.startswith("path:"))
    print(f"file notes: {items} items, {len(notes[0])} keys")
    return named


def write_transcript(path: Path, turns: int = 4) -> None:
    lines = []
    parent = None
    for turn in range(1, turns + 1):
        user_id, assistant_id = f"u{turn}", f"a{turn}"
        lines.append(
            {
                "type": "user",
                "uuid": user_id,
                "parentUuid": parent,
                "sessionId": SESSION,
                "isSidechain": False,
                "message": {
                    "role": "user",
                    "content": f"Turn {turn}: let us use Postgres 16 for the {WORDS[turn]} service.",
                },
            }
        )
        lines.append(
            {
                "type": "assistant",
                "uuid": assistant_id,
                "parentUuid": user_id,
                "sessionId": SESSION,
                "isSidechain": False,
                "message": {
                    "id": f"msg_{turn}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": f"Decided: {WORDS[turn]} uses Postgres 16 "
                            f"with a retry timeout of {turn * 10} seconds.",
                        }
                    ],
                },
            }
        )
        parent = assistant_id
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")


def index_other_chats(repo: Path, chats: int) -> None:
    """Give the project `chats` other chat maps of 1,000 facts, indexed in its store."""
    if chats <= 0:
        return
    from cms import paths
    from cms.map.store import load_map
    from cms.observations.access import open_project_memory
    from cms.observations.chatsync import rebuild_fact_index
    from cms.project import identify_project

    project = identify_project(repo).id
    sessions = [f"bench-other-{n:02d}" for n in range(chats)]
    for session in sessions:
        build_map(paths.map_path(session), facts=1000, session=session, project=project)
    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:
        count = rebuild_fact_index(memory, [load_map(paths.map_path(s)) for s in sessions])
    print(f"fact index: {count} facts of {chats} other chats")


def wait_for_worker(session: str, timeout: float = 60.0) -> None:
    from cms.hooks import queue as hook_queue
    from cms.worker import queue

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not queue.list_jobs(session) and not hook_queue.worker_running(session):
            return
        time.sleep(0.02)


def write_task(session: str) -> None:
    """A current task near its 800-character budget, as the worker keeps it."""
    from cms.task.model import CurrentTask, save_task

    save_task(
        session,
        CurrentTask(
            goal="Add rate limiting to the API: a token bucket per client, then the middleware.",
            refined=["Make the limit configurable per route in cms.toml."],
            done=[
                f"Step {n}: the token bucket handles bursts of {n * 10} requests; tests pass."
                for n in range(1, 5)
            ],
            next=["Step 5: wire the bucket into the request middleware.", "Document the headers."],
            previous_goal="Fix the flaky login test on CI.",
            goal_turn=3,
            turn=12,
            updated_at="2026-12-01T10:00:00Z",
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument(
        "--chats", type=int, default=0, help="other chats of the project, 1,000 facts each, indexed"
    )
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions (needs valgrind)"
    )
    parser.add_argument("--team-url", default="", help="a team database (CMS_TEAM_URL)")
    parser.add_argument(
        "--text",
        choices=("real", "synthetic"),
        default="real",
        help="real: facts, observations and the prompt from real coding sessions (the default); "
        "synthetic: generated syllables, as before",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "cms-home"
        os.environ["CMS_HOME"] = str(home)
        os.environ["CMS_PROVIDER"] = "local"
        from cms import paths
        from cms.map.store import save_map

        repo = make_repo(root)
        sentences = real_sentences() if args.text == "real" else None
        prompt = REAL_PROMPT if sentences else PROMPT
        if sentences:
            save_map(paths.map_path(SESSION), big_map(SESSION, 1000, sentences))
        else:
            build_map(paths.map_path(SESSION), facts=1000, planets=50)
        write_task(SESSION)
        fill_store(repo, args.observations, sentences)
        index_other_chats(repo, args.chats)
        named = write_notes(repo)
        transcript = root / "transcript.jsonl"
        write_transcript(transcript)
        extra = {"CMS_HOME": str(home), "CMS_PROVIDER": "local"}
        if args.team_url:
            extra["CMS_TEAM_URL"] = args.team_url
        env = bench_env(extra, pythonpath=False)
        base = {"session_id": SESSION, "cwd": str(repo), "transcript_path": str(transcript)}
        chat = Path(paths.chat_dir(SESSION))

        def forget_injections() -> None:
            (chat / "injected.json").unlink(missing_ok=True)

        def forget_cache() -> None:
            forget_injections()
            (chat / "index-cache.json").unlink(missing_ok=True)

        def settle() -> None:
            wait_for_worker(WRITER_SESSION)
            wait_for_worker(SESSION)  # the team sync a SessionStart queues

        writer = {**base, "session_id": WRITER_SESSION}

        hook = [*hook_command(), "hook"]
        cases: dict[str, tuple[list[str], dict[str, object], Callable[[], None] | None]] = {
            "SessionStart (index + briefing)": (
                [*hook, "SessionStart"],
                {**base, "source": "startup"},
                None,
            ),
            "SessionStart (compact: task first)": (
                [*hook, "SessionStart"],
                {**base, "source": "compact"},
                None,
            ),
            "UserPromptSubmit (nothing new)": (
                [*hook, "UserPromptSubmit"],
                {**base, "prompt": prompt},
                None,
            ),
            "UserPromptSubmit (index + notes)": (
                [*hook, "UserPromptSubmit"],
                {**base, "prompt": prompt},
                forget_injections,
            ),
            "UserPromptSubmit (map changed, cold)": (
                [*hook, "UserPromptSubmit"],
                {**base, "prompt": prompt},
                forget_cache,
            ),
            "PreToolUse (Read, nothing stored)": (
                [*hook, "PreToolUse"],
                {**base, "tool_name": "Read", "tool_input": {"file_path": "src/unknown.py"}},
                None,
            ),
            "PreToolUse (Read, stored notes)": (
                [*hook, "PreToolUse"],
                {**base, "tool_name": "Read", "tool_input": {"file_path": named}},
                forget_injections,
            ),
            "Stop (queue + start worker)": (
                [*hook, "Stop"],
                {
                    **writer,
                    "stop_hook_active": False,
                    "last_assistant_message": "Decided: Postgres 16.",
                },
                settle,
            ),
            "SessionEnd (queue capture)": (
                [*hook, "SessionEnd"],
                {**writer, "reason": "other"},
                settle,
            ),
            "PreCompact (queue capture)": (
                [*hook, "PreCompact"],
                {**writer, "trigger": "auto"},
                settle,
            ),
        }
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        bare: list[tuple[float, float]] = []
        for argv, payload, before in cases.values():  # warm bytecode and page caches
            if before:
                before()
            run_once(argv, env, json.dumps(payload).encode())
        settle()
        for _ in range(args.runs):
            bare.append(measure([PYTHON, "-c", "pass"], env, b""))
            for name, (argv, payload, before) in cases.items():
                if before:
                    before()
                if args.team_url:  # no sync worker of the case before runs beside this one
                    settle()
                samples[name].append(measure(argv, env, json.dumps(payload).encode()))
            settle()
        report(bare, samples, args.runs)
        if args.instructions:
            report_instructions(
                {
                    name: (argv, json.dumps(payload).encode(), before)
                    for name, (argv, payload, before) in cases.items()
                },
                env,
            )
            settle()


def measure(argv: list[str], env: dict[str, str], stdin: bytes) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child): CPU time is less disturbed by a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = run_once(argv, env, stdin)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def report(
    bare: list[tuple[float, float]], samples: dict[str, list[tuple[float, float]]], runs: int
) -> None:
    base_wall = statistics.median(w for w, _ in bare)
    base_cpu = statistics.median(c for _, c in bare)
    print(f"python: {PYTHON}; {runs} runs each, interleaved; medians")
    print(f"{'':<40} {'wall ms':>8} {'ratio':>6}  {'cpu ms':>7} {'ratio':>6}")
    print(
        f"{'bare python -c pass':<40} {base_wall * 1000:8.1f} {1:6.2f}  "
        f"{base_cpu * 1000:7.1f} {1:6.2f}"
    )
    for name, values in samples.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(
            f"{name:<40} {wall * 1000:8.1f} {wall / base_wall:6.2f}  "
            f"{cpu * 1000:7.1f} {cpu / max(base_cpu, 1e-9):6.2f}"
        )


if __name__ == "__main__":
    main()
