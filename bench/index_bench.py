"""Indexing one big chat: the CPU `cms reindex` (the worker's fact sync, each fact checked for
what it restates or changes) spends on a chat map of N facts of real sentences (issue 30: a
20,000-fact chat in under 20 s).

Data: a chat map of 50 planets holding N facts (default 20,000), each a real sentence of the
transcripts, the scenarios or the MemoryCode dialogues (bench/worker_bench.py), times one
minute apart in map order. Measured in process: `rebuild_fact_index` CPU (user + system).

Usage: python bench/index_bench.py [--facts N] [--profile]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.worker_bench import real_sentences

if TYPE_CHECKING:
    from cms.map.model import CorrelationMap


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def big_map(session: str, facts: int, sentences: list[str]) -> CorrelationMap:
    """A chat map of 50 planets in 5 suns holding `facts` facts of real sentences."""
    from cms.map.model import Planet, Satellite, Sun, new_map

    cmap = new_map(session, "bench", now="2026-01-01T00:00:00Z")
    per = max(1, facts // 50)
    n = 0
    for s in range(5):
        sun = Sun(id=f"S{s + 1}", title=f"Area {s}", created_at="2026-01-01T00:00:00Z")
        for p in range(10):
            planet_no = s * 10 + p + 1
            sats = []
            for _ in range(per):
                n += 1
                stamp = f"2026-01-{1 + n // 1440:02d}T{n // 60 % 24:02d}:{n % 60:02d}:00Z"
                sats.append(Satellite(f"F{n}", sentences[n % len(sentences)], stamp, stamp, n))
            first, last = sats[0].created_at, sats[-1].updated_at
            planet = Planet(f"P{planet_no}", f"Topic {planet_no}", per, first, last, sats)
            sun.planets.append(planet)
        cmap.suns.append(sun)
    cmap.next_id = n + 100
    return cmap


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sentences = real_sentences()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CMS_HOME"] = str(Path(tmp) / "home")
        repo = Path(tmp) / "repo"
        repo.mkdir()
        from cms.observations.access import open_project_memory
        from cms.observations.chatsync import rebuild_fact_index

        cmap = big_map("bench-big-chat", args.facts, sentences)
        memory = open_project_memory(repo, create=True)
        assert memory is not None
        with memory:
            before = cpu()
            if args.profile:
                import cProfile
                import pstats

                profiler = cProfile.Profile()
                count = profiler.runcall(rebuild_fact_index, memory, [cmap])
                pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            else:
                count = rebuild_fact_index(memory, [cmap])
            spent = cpu() - before
    print(
        f"indexed {count:,} facts in {spent:.1f} s CPU ({spent / max(1, count) * 1000:.2f} ms a fact)"
    )


if __name__ == "__main__":
    main()
