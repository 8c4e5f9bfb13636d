"""The worker's CPU per turn against the size of the project's store (issue 30: <= 0.3 s at any
size, local provider).

Data: a project store filled with N observations (default 1,000 / 10,000 / 100,000) made of
real sentences (the transcripts in ../shared/data/transcripts, the scenarios and the MemoryCode
dialogues; one sentence a title, another its body; a fifth name a file), in a git repository; then the first
chats of a decision-change scenario (../shared/data/scenarios/dev.json) replayed turn by turn as
Claude Code writes them, with the worker inline (CMS_SYNC=1): each Stop runs the turn's map
update and everything the worker does after a job (meanings, file notes, index upkeep).
Measured in this process: CPU (user + system, `resource.getrusage`, children included) of each
Stop and SessionEnd (the capture job), minus the same hook's cost with nothing queued is not
subtracted: the figure is the whole turn.

Usage: python bench/worker_bench.py [--sizes 1000,10000,100000] [--turns N] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.replay import GIT_ENV, session_id
from bench.scenarios_bench import DEV, ChatTranscript

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
KINDS = ("decision", "learning", "bugfix", "command", "file_summary", "preference", "other")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def real_sentences(limit: int = 60_000) -> list[str]:
    """Sentences of 30-200 characters of real coding talk, deduplicated: the message text of the
    transcripts, then the turns of the scenarios and of the MemoryCode dialogues."""
    texts: list[str] = []
    for path in sorted((SHARED / "transcripts").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            message = record.get("message") if isinstance(record, dict) else None
            if isinstance(message, dict):
                texts += _strings(message.get("content"))
    texts += _strings(json.loads(DEV.read_text(encoding="utf-8")))
    for path in sorted((SHARED / "memorycode" / "dialogues").glob("*.json")):
        texts += _strings(json.loads(path.read_text(encoding="utf-8")))
    seen: dict[str, None] = {}
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
            sentence = " ".join(sentence.split())
            if 30 <= len(sentence) <= 200 and not sentence.startswith(("<", "{", "[")):
                seen.setdefault(sentence, None)
    return list(seen)[:limit]


def fill_store(repo: Path, size: int, sentences: list[str]) -> None:
    from cms.observations.access import open_project_memory
    from cms.observations.model import NewObservation
    from cms.observations.store import insert_observation

    memory = open_project_memory(repo, create=True)
    assert memory is not None
    with memory:

        def run(conn: Any) -> None:
            for n in range(size):
                title = sentences[n % len(sentences)]
                body = sentences[(n * 7 + 3) % len(sentences)]
                files = (f"src/module_{n % 500}.py",) if n % 5 == 0 else ()
                new = NewObservation(KINDS[n % len(KINDS)], title, body, files, 1 + n % 5)
                insert_observation(
                    conn, memory.store.project, new, branch="main", commit=None,
                    created_at=1.7e9 + n, session=f"old-{n % 200}",
                )  # fmt: skip

        memory.store.write(run)
    from cms.worker.projectsync import give_meanings

    while give_meanings(str(repo)):  # as the worker left them when each was written
        pass


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def hook(event: str, payload: dict[str, Any]) -> None:
    from cms.hooks.runner import handle_hook

    handle_hook(event, json.dumps({"hook_event_name": event, **payload}).encode())


def run_size(
    size: int, turns: int, sentences: list[str], scenario: dict[str, Any]
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.update(
            {"CMS_HOME": str(root / "home"), "CMS_PROVIDER": "local", "CMS_SYNC": "1"}
        )
        repo = root / "repo"
        repo.mkdir()
        for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "i"]):
            subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True)
        fill_store(repo, size, sentences)
        session = session_id("worker-bench", size)
        transcript = ChatTranscript(root / "t.jsonl", session, repo, 0, "main")
        where = {"session_id": session, "cwd": str(repo), "transcript_path": str(transcript.path)}
        hook("SessionStart", {**where, "source": "startup"})
        stops: list[float] = []
        chat_turns = [t for chat in scenario["chats"] for t in chat["turns"]][:turns]
        for turn in chat_turns:
            transcript.user(turn["user"])
            hook("UserPromptSubmit", {**where, "prompt": turn["user"]})
            for tool in turn.get("tools") or []:
                transcript.tool(tool["name"], tool.get("input") or {}, str(tool.get("output", "")))
            transcript.answer(turn["assistant"])
            before = cpu()
            hook("Stop", {**where, "stop_hook_active": False,
                          "last_assistant_message": turn["assistant"]})  # fmt: skip
            stops.append(cpu() - before)
        before = cpu()
        hook("SessionEnd", {**where, "reason": "other"})
        capture = cpu() - before
    return {"size": size, "stops": stops, "capture": capture}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--scenario", default="a01")
    parser.add_argument("--profile", action="store_true", help="cProfile the largest size")
    args = parser.parse_args()
    sentences = real_sentences()
    scenarios = json.loads(DEV.read_text(encoding="utf-8"))
    scenario = next(s for s in scenarios if s["id"].startswith(args.scenario))
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"{len(sentences)} real sentences; scenario {scenario['id']}, {args.turns} turns")
    print(f"{'observations':>12} {'Stop median s':>14} {'Stop max s':>11} {'capture s':>10}")
    for size in sizes:
        if args.profile and size == max(sizes):
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            result = profiler.runcall(run_size, size, args.turns, sentences, scenario)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        else:
            result = run_size(size, args.turns, sentences, scenario)
        stops = result["stops"]
        print(f"{size:>12,} {statistics.median(stops):>14.3f} {max(stops):>11.3f} "
              f"{result['capture']:>10.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
