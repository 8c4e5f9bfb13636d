"""`cms search` with the local selector against bare Python (DESIGN section 8 budget: 3x).

Two cases: one chat map alone (`--map`, the old scope), and the whole project as the injected
command line searches it: `--chats` chat maps of `--facts` facts each, indexed in the project
store, plus `--observations` observations (default 20 chats x 1,000 facts + 10,000).
--text real (the default): facts, observations and the query from real coding sessions
(bench/worker_bench.py's sentences; the query is a scenario probe's); --text synthetic: words
and generated syllables, as before.
Usage: python bench/search_bench.py [--facts N] [--chats N] [--observations N] [--runs N]
[--instructions] (adds instruction counts, valgrind) [--text real|synthetic]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import bench_env, cms_command, compare, report_instructions
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


def build_map(
    path: Path, facts: int, planets: int = 50, session: str = "bench", project: str = "bench"
) -> None:
    cmap = new_map(session, project)
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


def main() -> None:
    import os

    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=1000, help="facts per chat")
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions (needs valgrind)"
    )
    parser.add_argument(
        "--text",
        choices=("real", "synthetic"),
        default="real",
        help="real: facts, observations and the query from real coding sessions (the default)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "cms-home"
        os.environ["CMS_HOME"] = str(home)
        from bench.hooks_bench import fill_store, make_repo
        from bench.index_bench import big_map
        from bench.worker_bench import real_sentences
        from cms import paths
        from cms.map.store import load_map
        from cms.observations.access import open_project_memory
        from cms.observations.chatsync import rebuild_fact_index
        from cms.project import identify_project

        repo = make_repo(root)
        project = identify_project(repo).id
        sessions = [f"bench-chat-{n:02d}" for n in range(args.chats)]
        sentences = real_sentences() if args.text == "real" else None
        for n, session in enumerate(sessions):
            if sentences:  # each chat its own stretch of the sentences
                cmap = big_map(session, args.facts, sentences[n * args.facts :] + sentences)
                save_map(paths.map_path(session), cmap.replace(project=project))
            else:
                build_map(paths.map_path(session), args.facts, session=session, project=project)
        fill_store(repo, args.observations, sentences)
        memory = open_project_memory(repo, create=True)
        assert memory is not None
        with memory:
            count = rebuild_fact_index(memory, [load_map(paths.map_path(s)) for s in sessions])
        from cms.worker.projectsync import give_meanings

        while give_meanings(str(repo)):  # each item's meaning, as the worker stores it
            pass
        print(
            f"project: {args.chats} chats, {count} facts indexed, {args.observations} observations"
        )
        env = bench_env({"CMS_HOME": str(home), "CMS_PROVIDER": "local"})
        query = "staging database port" if sentences else "postgres migration timeout"
        cms = cms_command()  # the console script the injected command line names
        one_map = [*cms, "search", "--map", str(paths.map_path(sessions[0])), query]
        project_wide = [*cms, "search", "--session", sessions[-1], query]
        os.chdir(repo)
        cases = {
            f"cms search --map (one chat, {args.facts:,} facts)": (one_map, b""),
            f"cms search --session (project: {count:,} facts + "
            f"{args.observations:,} observations)": (project_wide, b""),
        }
        compare(cases, env, runs=args.runs)
        if args.instructions:
            report_instructions({k: (argv, i, None) for k, (argv, i) in cases.items()}, env)


if __name__ == "__main__":
    main()
