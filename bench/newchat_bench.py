"""Questions a developer asks a day later, from a new chat (goal: at least 0.80 answered).

Data: bench/data/newchat_questions.json, {"transcripts": [{"path", "questions": [{"question",
"answer_phrase", "why"}]}]}, paths relative to ../shared/data/transcripts/ (real Claude Code
transcripts and Codex rollouts). For each transcript: a fresh project (git repository and data
folder, local provider, CMS_SYNC=1), the transcript replayed into it with `cms replay` (the map
turn by turn, then observation capture), then for each question a NEW chat of that project:
SessionStart (startup), UserPromptSubmit with the question, and the injected search command run
once with the question as query. Answered = the answer phrase (case-insensitive, whitespace
normalised) is visible in the injected text or in the search output; both are reported apart.
cms runs as a black box: the hook protocol and the CLI.

Usage: python bench/newchat_bench.py [--questions FILE] [--jobs N] [--json out.json] [--keep]
       [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.replay import BM25, Project, cms_has_replay, ratio, session_id

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "bench" / "data" / "newchat_questions.json"
TRANSCRIPTS = ROOT.parent / "shared" / "data" / "transcripts"
GOAL = 0.80


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def contains(haystack: str, phrase: str) -> bool:
    return bool(phrase.strip()) and normalise(phrase) in normalise(haystack)


def raw_utterances(path: Path) -> list[str]:
    """Every text a transcript holds (any "text" string of any record: prompts, answers, tool
    results, subagents, summaries), one document each: what plain BM25 searches."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str) and value.strip():
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            walk(json.loads(line))
        except ValueError:
            continue
    return found


def run_transcript(entry: dict[str, Any], base: Path, keep: bool) -> dict[str, Any]:
    rel = entry["path"]
    path = base / rel
    started = time.perf_counter()
    project = Project(re.sub(r"[^A-Za-z0-9]+", "-", Path(rel).stem)[:24].strip("-") or "t")
    rows = []
    try:
        if path.is_file():
            project.replay_file(path, session_id("newchat", rel))
            project.drain()
        else:
            project.errors.append(f"missing transcript {path}")
        bm25 = BM25(raw_utterances(path) if path.is_file() else [])
        for n, q in enumerate(entry["questions"]):
            baseline = contains("\n".join(bm25.top(q["question"], 5)), q["answer_phrase"])
            chat = project.new_chat(session_id("newchat", rel, "question", n), q["question"])
            visible = contains(chat.injected, q["answer_phrase"])
            found = contains(chat.search_output, q["answer_phrase"])
            rows.append(
                {
                    "question": q["question"],
                    "answer_phrase": q["answer_phrase"],
                    "visible": visible,
                    "found_by_search": found,
                    "answered": visible or found,
                    "bm25": baseline,
                    "has_command": chat.command is not None,
                    "injected_chars": len(chat.injected),
                    "search_chars": len(chat.search_output),
                    "injected": chat.injected,
                    "search_output": chat.search_output,
                }
            )
        return {
            "path": rel,
            "seconds": time.perf_counter() - started,
            "errors": project.errors[:20],
            "rows": rows,
        }
    finally:
        if not keep:
            project.cleanup()


def print_report(results: list[dict[str, Any]], elapsed: float, show_misses: bool) -> None:
    print(f"New-chat questions: {len(results)} transcripts ({elapsed:.0f} s)")
    print()
    header = (
        f"{'transcript':<58} {'n':>3} {'answered':>9} {'injected':>9} {'search':>7} {'BM25':>6}"
    )
    print(header)
    print("-" * len(header))
    total = [0, 0, 0, 0, 0]
    for res in results:
        rows = res["rows"]
        n = len(rows)
        answered = sum(r["answered"] for r in rows)
        visible = sum(r["visible"] for r in rows)
        found = sum(r["found_by_search"] for r in rows)
        base = sum(r["bm25"] for r in rows)
        for i, v in enumerate((n, answered, visible, found, base)):
            total[i] += v
        name = res["path"] if len(res["path"]) <= 58 else "..." + res["path"][-55:]
        print(
            f"{name:<58} {n:>3} {ratio(answered, n):>9} {ratio(visible, n):>9} "
            f"{ratio(found, n):>7} {ratio(base, n):>6}"
        )
    n, answered, visible, found, base = total
    print("-" * len(header))
    print(
        f"{'all questions':<58} {n:>3} {ratio(answered, n):>9} {ratio(visible, n):>9} "
        f"{ratio(found, n):>7} {ratio(base, n):>6}"
    )
    print(f"{'goal':<58} {'':>3} {f'>= {GOAL:.2f}':>9}")
    print()
    print("answered = the answer phrase is visible in the injection or in the search output")
    print("BM25 = the phrase is in the top 5 of plain BM25 over every text of the raw transcript")
    no_command = sum(not r["has_command"] for res in results for r in res["rows"])
    empty = sum(r["injected_chars"] == 0 for res in results for r in res["rows"])
    print(f"new chats without a search command: {no_command}; with nothing injected: {empty}")
    for res in results:
        for error in res["errors"][:3]:
            print(f"  {res['path']}: {error}")
    if show_misses:
        print()
        for res in results:
            for r in res["rows"]:
                if not r["answered"]:
                    print(f"MISS {res['path']}\n  Q: {r['question']}\n  A: {r['answer_phrase']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--transcripts", type=Path, default=TRANSCRIPTS)
    parser.add_argument("--jobs", type=int, default=2, help="transcripts run in parallel")
    parser.add_argument("--json", type=Path, help="write every question's result here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects")
    parser.add_argument("--show-misses", action="store_true", help="list unanswered questions")
    args = parser.parse_args(argv)

    if not cms_has_replay():
        print("this cms has no `replay` command", file=sys.stderr)
        return 1
    data = json.loads(args.questions.read_text(encoding="utf-8"))
    entries = data["transcripts"]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_transcript, e, args.transcripts, args.keep) for e in entries]
        results = [f.result() for f in futures]
    elapsed = time.perf_counter() - started
    print_report(results, elapsed, args.show_misses)
    if args.json:
        args.json.write_text(
            json.dumps({"seconds": elapsed, "transcripts": results}, indent=1), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
