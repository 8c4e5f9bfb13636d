"""`cms search` with the local selector on a 5,000-fact map, against bare Python (budget 5x).

Usage: python bench/search_bench.py [--facts N] [--runs N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import PYTHON, bench_env, compare
from cms.map.model import new_map
from cms.map.ops import apply_ops
from cms.map.store import save_map

WORDS = [
    "postgres",
    "cache",
    "worker",
    "queue",
    "deploy",
    "staging",
    "token",
    "schema",
    "index",
    "migration",
    "retry",
    "timeout",
    "hook",
    "session",
    "branch",
    "commit",
    "parser",
    "render",
    "config",
    "logging",
    "metrics",
    "auth",
]


def build_map(path: Path, facts: int, planets: int = 50) -> None:
    cmap = new_map("bench", "bench")
    per_planet = max(1, facts // planets)
    for p in range(planets):
        if p % 10 == 0:
            apply_ops(cmap, [{"op": "add_sun", "title": f"Area {p // 10}"}], max_planets=planets)
        sun = cmap.suns[-1].id
        sats = [
            f"Fact {p}-{i}: {WORDS[(p + i) % len(WORDS)]} {WORDS[(p * 7 + i) % len(WORDS)]} "
            f"setting {i} uses value {p * i} for the {WORDS[i % len(WORDS)]} path"
            for i in range(per_planet)
        ]
        report = apply_ops(
            cmap, [{"op": "add_planet", "sun": sun, "title": f"Topic {p}"}], max_planets=planets
        )
        planet = report.accepted[0].created[0]
        for start in range(0, len(sats), 10):
            apply_ops(
                cmap,
                [{"op": "add_sat", "planet": planet, "text": t} for t in sats[start : start + 10]],
                max_planets=planets,
            )
    save_map(path, cmap)
    print(f"map: {len(cmap.planets())} planets, {cmap.fact_count()} facts")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "map.json"
        build_map(path, args.facts)
        env = bench_env({"CMS_HOME": tmp, "CMS_PROVIDER": "local"})
        argv = [PYTHON, "-m", "cms", "search", "--map", str(path), "postgres migration timeout"]
        compare({"cms search (local, 5,000 facts)": (argv, b"")}, env, runs=args.runs)


if __name__ == "__main__":
    main()
