"""Whole-process cost of observation recall at 10,000 observations, as the prompt hook pays it.

Builds a temporary git repository (main, two live feature branches, one deleted branch) and a
store of 10,000 observations spread over those branches, then times `python -c` processes that
open the project's store, compute the branch scope, recall for a prompt and print the lines
(and, separately, the session-start briefing), against a bare `python -c pass` in the same run.
Prints the medians and the ratios (budget: 3x, DESIGN.md section 8).

Two corpora: "real" takes word windows from the real transcripts and LoCoMo dialogues in
../shared/data (a natural vocabulary); "synthetic" draws every word from 300 coding words, so
each prompt word sits in a quarter of all observations (a worst case for BM25 work).

    PYTHONPATH=. python bench/recall_bench.py [--runs 30] [--observations 10000] [--corpus real]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.timing import PYTHON, bench_env  # noqa: E402

WORDS = [
    "auth",
    "token",
    "refresh",
    "expiry",
    "session",
    "cookie",
    "middleware",
    "router",
    "handler",
    "request",
    "response",
    "cache",
    "redis",
    "postgres",
    "sqlite",
    "migration",
    "schema",
    "index",
    "query",
    "transaction",
    "lock",
    "retry",
    "timeout",
    "queue",
    "worker",
    "job",
    "scheduler",
    "cron",
    "deploy",
    "docker",
    "image",
    "build",
    "pipeline",
    "ci",
    "test",
    "fixture",
    "mock",
    "coverage",
    "lint",
    "format",
    "typing",
    "mypy",
    "ruff",
    "pytest",
    "hook",
    "prompt",
    "context",
    "memory",
    "map",
    "planet",
    "satellite",
    "sun",
    "branch",
    "merge",
    "rebase",
    "commit",
    "squash",
    "worktree",
    "config",
    "toml",
    "yaml",
    "json",
    "parse",
    "serialize",
    "encode",
    "decode",
    "utf8",
    "bytes",
    "stream",
    "buffer",
    "socket",
    "http",
    "client",
    "server",
    "api",
    "endpoint",
    "rate",
    "limit",
    "budget",
    "provider",
    "model",
    "anthropic",
    "claude",
    "codex",
    "transcript",
    "compaction",
    "summary",
    "observation",
    "recall",
    "store",
    "export",
    "import",
    "gc",
    "archive",
    "frontend",
    "react",
    "component",
    "state",
    "store",
    "zustand",
    "redux",
    "hooks",
    "props",
    "render",
    "layout",
    "css",
    "tailwind",
    "webpack",
    "vite",
    "bundle",
    "pnpm",
    "npm",
    "yarn",
    "workspace",
    "package",
    "dependency",
    "version",
    "upgrade",
    "pin",
    "lockfile",
    "error",
    "exception",
    "traceback",
    "crash",
    "bug",
    "fix",
    "regression",
    "flaky",
    "race",
    "deadlock",
    "leak",
    "memory",
    "cpu",
    "profile",
    "benchmark",
    "latency",
    "throughput",
    "metric",
    "log",
    "rotate",
    "redact",
    "secret",
    "key",
    "password",
    "env",
    "variable",
    "path",
    "file",
    "folder",
    "permission",
    "user",
    "group",
    "admin",
    "role",
    "policy",
    "feature",
    "flag",
    "toggle",
    "release",
    "tag",
    "changelog",
    "docs",
    "readme",
    "tutorial",
    "example",
    "install",
    "uninstall",
    "settings",
    "backup",
    "restore",
    "atomic",
    "rename",
    "fsync",
]

PROMPT = "why did we switch the auth token refresh to pnpm workspaces and what broke in the cache?"

HOOK_CODE = """
import sys, time
from cms.config import load_config
from cms.observations.access import open_project_memory
from cms.observations.recall import recall, format_observation_line
config = load_config()
memory = open_project_memory(sys.argv[1], create=False)
if memory is not None:
    with memory:
        hits = recall(
            memory.store,
            sys.argv[2],
            scope=memory.scope,
            limit=config.hooks.recall_limit,
            min_relevance=config.observations.min_relevance,
        )
        now = time.time()
        print("\\n".join(format_observation_line(h, now, memory.scope.branch) for h in hits))
"""

BRIEFING_CODE = """
import sys, time
from cms.config import load_config
from cms.observations.access import open_project_memory
from cms.observations.recall import briefing, format_observation_line
config = load_config()
memory = open_project_memory(sys.argv[1], create=False)
if memory is not None:
    with memory:
        hits = briefing(memory.store, memory.scope, config.hooks.briefing_limit)
        now = time.time()
        print("\\n".join(format_observation_line(h, now, memory.scope.branch) for h in hits))
"""


DATA = REPO.parent / "shared" / "data"


def real_words() -> list[str]:
    """The word stream of every text of 40+ characters in the shared transcripts and LoCoMo."""
    texts: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            if len(value) >= 40:
                texts.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(DATA.glob("transcripts/**/*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                walk(json.loads(line))
            except ValueError:
                continue
    locomo = DATA / "locomo" / "locomo_dev5.json"
    if locomo.exists():
        walk(json.loads(locomo.read_text(encoding="utf-8")))
    return [w for text in texts for w in re.findall(r"[^\W_]+", text)]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def make_repo(repo: Path) -> dict[str, str]:
    """A repository with main, feat-a, feat-b and a deleted branch; branch -> a commit on it."""
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "config", "user.name", "bench")
    (repo / "README.md").write_text("bench\n", encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    commits = {"main": git(repo, "rev-parse", "HEAD")}
    for name in ("feat-a", "feat-b", "gone-branch"):
        git(repo, "checkout", "-q", "-b", name, "main")
        (repo / f"{name}.txt").write_text(name, encoding="utf-8")
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", name)
        commits[name] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-q", "-D", "gone-branch")
    return commits


def fill_store(repo: Path, commits: dict[str, str], count: int, corpus: str) -> None:
    from cms.observations.access import open_project_memory
    from cms.observations.migrations import KINDS
    from cms.observations.model import NewObservation
    from cms.observations.store import insert_observation

    rng = random.Random(7)
    memory = open_project_memory(repo)
    assert memory is not None
    branches = ["main"] * 7 + ["feat-a", "feat-b", "gone-branch"]
    now = time.time()

    stream = real_words() if corpus == "real" else []
    if corpus == "real" and len(stream) < 1000:
        raise SystemExit(f"no text found under {DATA}")

    def words(n: int) -> str:
        if corpus == "real":
            start = rng.randrange(0, len(stream) - n)
            return " ".join(stream[start : start + n])
        return " ".join(rng.choice(WORDS) for _ in range(n))

    def fill(conn: object) -> None:
        for i in range(count):
            branch = rng.choice(branches)
            new = NewObservation(
                kind=rng.choice(KINDS),
                title=f"{words(rng.randint(3, 7))} #{i}",
                body=words(rng.randint(15, 60)),
                files=tuple(
                    f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"
                    for _ in range(rng.randint(0, 3))
                ),
                importance=rng.randint(1, 5),
            )
            insert_observation(
                conn,  # type: ignore[arg-type]
                memory.project.id,
                new,
                branch=branch,
                commit=commits[branch],
                created_at=now - rng.uniform(0, 200 * 86400),
            )

    memory.store.write(fill)
    memory.close()


def median_wall(argv: list[str], env: dict[str, str], runs: int, cwd: Path) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument("--corpus", choices=("real", "synthetic", "both"), default="both")
    args = parser.parse_args()
    for corpus in ("real", "synthetic") if args.corpus == "both" else (args.corpus,):
        run_bench(corpus, args.runs, args.observations)


def run_bench(corpus: str, runs: int, observations: int) -> None:
    python = PYTHON
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["CMS_HOME"] = str(base / "cms-home")
        repo = base / "repo"
        commits = make_repo(repo)
        fill_store(repo, commits, observations, corpus)
        env = bench_env()
        hook = [python, "-c", HOOK_CODE, str(repo), PROMPT]
        brief = [python, "-c", BRIEFING_CODE, str(repo)]
        out = subprocess.run(hook, env=env, cwd=repo, check=True, capture_output=True, text=True)
        subprocess.run(brief, env=env, cwd=repo, check=True, capture_output=True)  # warm caches
        print(f"corpus {corpus}, {observations} observations; sample recall output:")
        print("  " + out.stdout.strip().replace("\n", "\n  "))
        # "-S" skips the site module: on machines whose site-packages run .pth files at every
        # start (this sandbox injects a CA bundle, ~70 ms), it shows the ratio a clean install has.
        for label, flags in (("as installed", []), ("python -S", ["-S"])):
            bare, recall_t, brief_t = [], [], []
            for _ in range(runs):  # interleaved so machine load hits all three alike
                bare.append(median_wall([python, *flags, "-c", "pass"], env, 1, repo))
                recall_t.append(median_wall([python, *flags, *hook[1:]], env, 1, repo))
                brief_t.append(median_wall([python, *flags, *brief[1:]], env, 1, repo))
            b, r, s = (statistics.median(x) for x in (bare, recall_t, brief_t))
            print(f"[{label}] bare python -c pass: {b * 1000:6.1f} ms")
            print(
                f"[{label}] recall process:      {r * 1000:6.1f} ms  (+{(r - b) * 1000:5.1f} ms)  "
                f"ratio {r / b:.2f}x (budget 3x)"
            )
            print(
                f"[{label}] briefing process:    {s * 1000:6.1f} ms  (+{(s - b) * 1000:5.1f} ms)  "
                f"ratio {s / b:.2f}x (budget 3x)"
            )


if __name__ == "__main__":
    main()
