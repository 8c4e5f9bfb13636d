"""The `mcp_tool` prompt path: how long `cms mcp`'s hook tool takes per prompt inside the warm
server (issue 30: 5 ms at 100,000 observations).

Data: the realistic fixture of bench/hooks_bench.py (a chat map of 1,000 facts and N
observations of real sentences, default 100,000) and the user prompts of the scenarios
(../shared/data/scenarios/dev.json), each sent once as the tool call the front answers
(`hook_user_prompt_submit`, in this process, as the server runs it). The first call warms the
process (as the server's first prompt does) and is reported apart.

Usage: python bench/mcp_hook_bench.py [--observations N] [--prompts N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hooks_bench import SESSION, fill_store, make_repo, write_notes, write_task
from bench.index_bench import big_map
from bench.scenarios_bench import DEV
from bench.worker_bench import real_sentences


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--prompts", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["CMS_HOME"] = str(root / "cms-home")
        os.environ["CMS_PROVIDER"] = "local"
        from cms import paths
        from cms.map.store import save_map
        from cms.mcp_server import front

        repo = make_repo(root)
        sentences = real_sentences()
        save_map(paths.map_path(SESSION), big_map(SESSION, 1000, sentences))
        write_task(SESSION)
        fill_store(repo, args.observations, sentences)
        write_notes(repo)
        scenarios = json.loads(DEV.read_text(encoding="utf-8"))
        prompts = [t["user"] for s in scenarios for c in s["chats"] for t in c["turns"]]
        prompts = prompts[: args.prompts + 1]
        times: list[float] = []
        for prompt in prompts:
            arguments = {"session_id": SESSION, "cwd": str(repo), "prompt": prompt}
            started = time.perf_counter()
            front.hook_text("hook_user_prompt_submit", arguments)
            times.append((time.perf_counter() - started) * 1000)
        warm = sorted(times[1:])
        print(f"{args.observations:,} observations, {len(warm)} prompts of the scenarios")
        print(f"first call (cold process): {times[0]:.1f} ms")
        print(f"warm: median {statistics.median(warm):.2f} ms, "
              f"p90 {warm[int(len(warm) * 0.9)]:.2f} ms, max {warm[-1]:.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
