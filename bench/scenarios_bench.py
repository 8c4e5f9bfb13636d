"""What is in force: projects over several chats whose decisions change (DESIGN.md section 8).

Data: ../shared/data/scenarios/dev.json (the development set) or any file of the same format
(`--data bench/data/scenarios_heldout.json`, the held-out set written independently). Protocol
(../shared/data/scenarios/README.md): each scenario is one project, a fresh git repository and
data folder, the local provider, the worker inline (CMS_SYNC=1). Each chat is a Claude Code
transcript that grows record by record: SessionStart (startup) before the first turn; per turn
the user record, UserPromptSubmit, an assistant tool_use and a user tool_result record per tool,
the assistant's text, Stop (with last_assistant_message); SessionEnd after the last turn.
Timestamps follow the chat's day. A chat on another branch runs on that branch (made from main
the first time); when a later chat is back on main, the branches used since are merged into main
first, as a merged pull request would be. Each probe is a new chat on main: SessionStart
(startup), UserPromptSubmit with the probe's prompt, then the injected search command with the
probe's query.

Scored per probe: shown (the current regex matches what the two hooks injected); stale (probes
with outdated values: a line of the injection matches an outdated regex and not the current);
found (the current regex matches the search output); misled (the first line of the search output
that matches the current or an outdated regex matches only an outdated one). Baseline in the
same run: plain BM25 over the raw user and assistant texts of every chat, top 5 for the prompt.
Also counted, from each project's store after the replay: the items out of force that a value
change of the agent's edits names (cms.observations.edited), by whether they name only an
outdated value of a probe (right), only the current one (wrong) or neither.

Usage: python bench/scenarios_bench.py [--data FILE] [--only ID,...] [--jobs N] [--json OUT]
       [--show-misses] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.replay import BM25, GIT_ENV, Project, ratio, search_command, session_id

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "scenarios" / "dev.json"
GOALS = {
    "shown": (">=", 0.90),
    "stale": ("<=", 0.05),
    "found": (">=", 0.95),
    "misled": ("<=", 0.05),
}


class ChatTranscript:
    """One chat's Claude Code transcript, written record by record as the CLI grows it."""

    def __init__(self, path: Path, session: str, cwd: Path, day: int, branch: str) -> None:
        self.path, self.session, self.cwd = path, session, str(cwd)
        self.day, self.branch = day, branch
        self.parent: str | None = None
        self.count = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")

    def _record(self, kind: str, message: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        uid = session_id(self.session, "record", self.count)
        minute, second = divmod(self.count, 60)
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.332",
            "gitBranch": self.branch,
            "type": kind,
            "uuid": uid,
            "timestamp": f"2026-03-{1 + self.day:02d}T10:{minute % 60:02d}:{second:02d}.000Z",
            "message": message,
        }
        self.parent = uid
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        return record

    def _assistant(self, content: list[dict[str, Any]]) -> None:
        self._record(
            "assistant",
            {
                "id": f"msg_{self.count:06d}",
                "type": "message",
                "role": "assistant",
                "model": "claude-bench",
                "content": content,
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 10},
            },
        )

    def user(self, text: str) -> None:
        self._record("user", {"role": "user", "content": text})

    def tool(self, name: str, tool_input: dict[str, Any], output: str) -> None:
        tool_id = f"toolu_{session_id(self.session, 'tool', self.count)[:20]}"
        self._assistant([{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}])
        self._record(
            "user",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}],
            },
        )

    def answer(self, text: str) -> None:
        self._assistant([{"type": "text", "text": text}])


def git(project: Project, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=project.repo,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
    )


def switch_branch(project: Project, branch: str, made: set[str], unmerged: list[str]) -> None:
    if branch == "main":
        git(project, "checkout", "-q", "main")
        for name in unmerged:
            git(project, "merge", "-q", "--no-ff", "-m", f"Merge {name}", name)
        unmerged.clear()
    elif branch in made:
        git(project, "checkout", "-q", branch)
    else:
        git(project, "checkout", "-q", "-b", branch, "main")
        made.add(branch)
    if branch != "main" and branch not in unmerged:
        unmerged.append(branch)


def run_chat(project: Project, scenario: str, number: int, chat: dict[str, Any]) -> None:
    session = session_id("scenario", scenario, "chat", number)
    transcript = ChatTranscript(
        project.transcript_path(session), session, project.repo, chat["day"], chat["branch"]
    )
    project.hook("SessionStart", session, source="startup", model="claude-bench")
    for turn in chat["turns"]:
        transcript.user(turn["user"])
        project.hook("UserPromptSubmit", session, prompt=turn["user"], permission_mode="default")
        for tool in turn.get("tools") or []:
            transcript.tool(tool["name"], tool.get("input") or {}, str(tool.get("output", "")))
        transcript.answer(turn["assistant"])
        project.hook(
            "Stop",
            session,
            permission_mode="default",
            stop_hook_active=False,
            last_assistant_message=turn["assistant"],
        )
    project.hook("SessionEnd", session, reason="other")
    git(project, "commit", "-q", "--allow-empty", "-m", f"chat {number} of {scenario}")


def replay_chats(project: Project, scenario: dict[str, Any]) -> None:
    """Every chat of a scenario through the hooks, in order, on its branch; then main with the
    branches merged, and the queue drained."""
    made: set[str] = set()
    unmerged: list[str] = []
    for number, chat in enumerate(scenario["chats"]):
        switch_branch(project, chat.get("branch") or "main", made, unmerged)
        run_chat(project, scenario["id"], number, chat)
    switch_branch(project, "main", made, unmerged)
    project.drain()


def matches(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.IGNORECASE) is not None


def stale_line(probe: dict[str, Any], text: str) -> bool:
    """A line that states an outdated value and not the current one."""
    return any(
        any(matches(old, line) for old in probe["outdated"]) and not matches(probe["current"], line)
        for line in text.splitlines()
    )


def misled(probe: dict[str, Any], output: str) -> bool:
    """The first line naming the current or an outdated value names only an outdated one."""
    for line in output.splitlines():
        current = matches(probe["current"], line)
        old = any(matches(o, line) for o in probe["outdated"])
        if current or old:
            return old and not current
    return False


def edit_retirements(project: Project, probes: list[dict[str, Any]]) -> dict[str, int]:
    """Items out of force that a recorded value change of an edit names (cms.observations.
    edited): how many name only an outdated value of a probe, only the current one, or
    neither (or both). Read from the project's store after the replay."""
    import sqlite3

    from cms.observations.edited import ValueChange, outdated_by

    counts = {"outdated": 0, "current": 0, "other": 0}
    for db in (project.root / "cms-home" / "projects").glob("*/observations.db"):
        conn = sqlite3.connect(db)
        try:
            changes = conn.execute("SELECT session, turn, removed, added FROM value_changes")
            retired = conn.execute(
                "SELECT session, turn, text, kind FROM facts WHERE superseded_by IS NOT NULL "
                "UNION ALL SELECT session, coalesce(turn, 0), body, kind FROM observations "
                "WHERE superseded_by IS NOT NULL OR archived_at IS NOT NULL"
            ).fetchall()
            for session, turn, removed, added in changes.fetchall():
                change = ValueChange(frozenset(removed.split()), frozenset(added.split()))
                for item_session, item_turn, text, kind in retired:
                    if (item_session == session and item_turn >= turn) or not outdated_by(
                        text, kind, change
                    ):
                        continue
                    current = any(matches(p["current"], text) for p in probes)
                    old = any(matches(o, text) for p in probes for o in p["outdated"])
                    counts[
                        "outdated"
                        if old and not current
                        else "current"
                        if current and not old
                        else "other"
                    ] += 1
        finally:
            conn.close()
    return counts


def run_scenario(scenario: dict[str, Any], keep: bool) -> dict[str, Any]:
    started = time.perf_counter()
    name = scenario["id"]
    project = Project(re.sub(r"[^A-Za-z0-9]+", "-", name)[:24].strip("-") or "s")
    rows = []
    try:
        replay_chats(project, scenario)
        texts = [t[k] for c in scenario["chats"] for t in c["turns"] for k in ("user", "assistant")]
        bm25 = BM25(texts)
        for n, probe in enumerate(scenario["probes"]):
            start = project.hook(
                "SessionStart", session_id("probe", name, n), source="startup", model="claude-bench"
            )
            submit = project.hook(
                "UserPromptSubmit",
                session_id("probe", name, n),
                prompt=probe["prompt"],
                permission_mode="default",
            )
            injected = "\n".join(part for part in (start, submit) if part)
            command = search_command(injected, probe["query"])
            output = ""
            if command:
                done = subprocess.run(
                    ["bash", "-c", command],
                    capture_output=True,
                    env=project.env,
                    cwd=project.repo,
                    check=False,
                )
                output = done.stdout.decode("utf-8", "replace")
                if done.returncode != 0:
                    project.errors.append(f"search exit {done.returncode}: {done.stderr[-200:]!r}")
            baseline = "\n".join(bm25.top(probe["prompt"], 5))
            has_old = bool(probe["outdated"])
            rows.append(
                {
                    "probe": probe,
                    "shown": matches(probe["current"], injected),
                    "stale": has_old and stale_line(probe, injected),
                    "found": matches(probe["current"], output),
                    "misled": has_old and misled(probe, output),
                    "bm25_shown": matches(probe["current"], baseline),
                    "bm25_stale": has_old and stale_line(probe, baseline),
                    "has_command": command is not None,
                    "injected": injected,
                    "search_output": output,
                }
            )
        return {
            "id": name,
            "seconds": time.perf_counter() - started,
            "errors": project.errors[:20],
            "rows": rows,
            "edit_retirements": edit_retirements(project, scenario["probes"]),
        }
    finally:
        if not keep:
            project.cleanup()
        else:
            print(f"kept {project.root}", file=sys.stderr)


def summary(results: list[dict[str, Any]]) -> dict[str, float]:
    rows = [r for res in results for r in res["rows"]]
    with_old = [r for r in rows if r["probe"]["outdated"]]
    share = {}
    for key, over in (
        ("shown", rows),
        ("stale", with_old),
        ("found", rows),
        ("misled", with_old),
        ("bm25_shown", rows),
        ("bm25_stale", with_old),
    ):
        share[key] = sum(r[key] for r in over) / len(over) if over else 0.0
    share["probes"] = len(rows)
    share["probes_with_outdated"] = len(with_old)
    return share


def print_report(results: list[dict[str, Any]], elapsed: float, show_misses: bool) -> None:
    rows = [r for res in results for r in res["rows"]]
    with_old = [r for r in rows if r["probe"]["outdated"]]
    print(f"What is in force: {len(results)} projects, {len(rows)} probes ({elapsed:.0f} s)")
    print()
    print(f"{'':<34} {'cms':>7} {'BM25 top 5':>11} {'goal':>7}")

    def line(label: str, key: str, over: list[dict[str, Any]], base: str | None) -> None:
        hits = sum(r[key] for r in over)
        base_text = ratio(sum(r[base] for r in over), len(over)) if base else ""
        sign, goal = GOALS[key]
        print(f"{label:<34} {ratio(hits, len(over)):>7} {base_text:>11} {sign} {goal:.2f}")

    line(f"shown (of {len(rows)})", "shown", rows, "bm25_shown")
    line(f"stale shown (of {len(with_old)})", "stale", with_old, "bm25_stale")
    line(f"found by search (of {len(rows)})", "found", rows, None)
    line(f"search misled (of {len(with_old)})", "misled", with_old, None)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_kind.setdefault(r["probe"]["kind"], []).append(r)
    print()
    print(
        "shown by kind: "
        + ", ".join(
            f"{k} {ratio(sum(r['shown'] for r in v), len(v))} ({len(v)})"
            for k, v in sorted(by_kind.items())
        )
    )
    retired = {
        key: sum(res["edit_retirements"][key] for res in results)
        for key in ("outdated", "current", "other")
    }
    print(
        "items an edit's value change took out of force: naming only an outdated value "
        f"{retired['outdated']}, only the current one {retired['current']}, "
        f"neither or both {retired['other']}"
    )
    no_command = sum(not r["has_command"] for r in rows)
    print(f"new chats without a search command: {no_command}")
    for res in results:
        for error in res["errors"][:3]:
            print(f"  {res['id']}: {error}")
    if show_misses:
        for res in results:
            for r in res["rows"]:
                flags = (
                    [k for k in ("stale", "misled") if r[k]]
                    + ([] if r["shown"] else ["not shown"])
                    + ([] if r["found"] else ["not found"])
                )
                if flags:
                    p = r["probe"]
                    print(f"\n{res['id']} [{', '.join(flags)}] {p['prompt']!r} / {p['query']!r}")
                    print(f"  current {p['current']}  outdated {p['outdated']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEV)
    parser.add_argument("--only", help="comma-separated scenario ids (prefixes)")
    parser.add_argument("--jobs", type=int, default=2, help="projects run in parallel")
    parser.add_argument("--json", type=Path, help="write every probe's result here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args(argv)

    scenarios = json.loads(args.data.read_text(encoding="utf-8"))
    if args.only:
        wanted = tuple(args.only.split(","))
        scenarios = [s for s in scenarios if s["id"].startswith(wanted)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_scenario, s, args.keep) for s in scenarios]
        results = [f.result() for f in futures]
    elapsed = time.perf_counter() - started
    print_report(results, elapsed, args.show_misses)
    if args.json:
        payload = {"seconds": elapsed, "summary": summary(results), "projects": results}
        args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
