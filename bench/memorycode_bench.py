"""Memory that reaches a new chat, on MemoryCode dev (DESIGN.md section 8: 0.90 / 0.05 / 0.90).

Data: ../shared/data/memorycode/dialogues/*.json (180 dialogues, SOURCE.md there). Each dialogue
is one project (a fresh git repository and data folder); its sessions are replayed in order as
chats of that project, the mentor as the user and the mentee as the assistant: the transcript
grows exchange by exchange with the Stop hook after each answer and SessionEnd at the end
(`--via hooks`, the default), or each session is written whole and given to `cms replay`
(`--via replay`, about three times faster). cms runs as a black box: the hook protocol and the
CLI, local provider, CMS_SYNC=1.

After the last session, every instruction in force (a pivot's version given last) gets a new chat:
SessionStart (startup), then a topical prompt made from the instruction's wording by a few
general rules, never revealing its value ("always start function argument names with 'e_'" ->
"What prefix should I use for function argument names?"). Measured per instruction:

- latest visible: its value (the first quoted literal, e.g. e_ or require_kwargs, else the
  distinctive words, e.g. "single digit") is a token of what the two hooks injected;
- outdated shown: a value of an older version of that pivot is a token of it (values that are
  also the value of an instruction in force in that dialogue do not count: they are ambiguous);
- found by search: the injected search command, run once with the prompt as query, prints the
  latest value.

Baseline, same run: plain BM25 (k1=1.2, b=0.75, lowercase word tokens) over every raw utterance
of the dialogue, top 5 for the same prompt. Speakers' headings and a mentor's last words that got
no answer are kept as they are: leading paragraphs before the mentor's first utterance are not
part of any exchange (the BM25 baseline still indexes them); an unanswered last utterance gets
the answer "Understood.".

Usage: python bench/memorycode_bench.py [--limit N | --per-length N] [--jobs N]
       [--via hooks|replay] [--json out.json] [--dialogues DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.replay import BM25, Exchange, Project, ratio, session_id

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "memorycode" / "dialogues"
GOALS = {"visible": 0.90, "outdated": 0.05, "search": 0.90}
UNANSWERED = "Understood."

# ----------------------------------------------------------------------------- dialogues


def utterances(text: str, names: Sequence[str]) -> list[tuple[str, str]]:
    """(speaker, utterance) from "Name: utterance" paragraphs; a paragraph without a speaker
    continues the previous utterance ("" as speaker when nothing precedes it)."""
    out: list[tuple[str, str]] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if not para:
            continue
        speaker = next((n for n in names if para.startswith(n + ":")), None)
        if speaker is not None:
            out.append((speaker, para[len(speaker) + 1 :].strip()))
        elif out:
            out[-1] = (out[-1][0], out[-1][1] + "\n\n" + para)
        else:
            out.append(("", para))
    return out


def exchanges(text: str, mentor: str, mentee: str) -> list[Exchange]:
    """Mentor utterance(s) = the prompt, the mentee's following utterance(s) = the answer."""
    result: list[Exchange] = []
    prompt: list[str] = []
    answer: list[str] = []
    for speaker, said in utterances(text, (mentor, mentee)):
        if speaker == mentor:
            if answer:
                result.append(Exchange("\n\n".join(prompt), "\n\n".join(answer)))
                prompt, answer = [], []
            prompt.append(said)
        elif speaker == mentee and prompt:
            answer.append(said)
    if prompt:
        result.append(Exchange("\n\n".join(prompt), "\n\n".join(answer) or UNANSWERED))
    return result


def instruction_versions(dialogue: dict[str, Any]) -> dict[int, dict[int, str]]:
    """{pivot: {version: instruction text}} from the top-level `instructions` list and the
    `instruction-*` entries of each session's type/topic, in the order they were given: the
    last one is in force. (Version numbers name variants, not their order: the final
    session's `history_regex` follows the last one given, not the highest number.)"""
    pivots: dict[int, dict[int, str]] = {}
    for session, pairs in zip(dialogue["sessions"], dialogue["instructions"], strict=False):
        if not isinstance(pairs, list):
            continue
        pairs = [p for p in pairs if isinstance(p, list) and len(p) == 2]
        texts = [
            topic
            for kind, topic in zip(session["type"], session["topic"], strict=False)
            if kind.startswith("instruction-")
        ]
        for text, (pivot, version) in zip(texts, pairs, strict=False):
            versions = pivots.setdefault(int(pivot), {})
            versions.pop(int(version), None)  # given again: it moves to the end
            versions[int(version)] = text
    return pivots


def last(versions: dict[int, str]) -> int:
    """The version given last (in force)."""
    return list(versions)[-1]


# ----------------------------------------------------------------------------- values


STOPWORDS = set(
    """always never use add include a an the all in for to your our code names name with from
    module modules even if it is not used start end function functions method methods class
    classes variable variables attribute attributes argument arguments of and every each
    should be string decorator decorators import""".split()
)


def values(instruction: str) -> list[tuple[str, bool]]:
    """The values that tell this instruction apart, as (value, case_sensitive): its quoted
    literals (a decorator without its @), else its runs of distinctive words."""
    quoted = [q.lstrip("@") for q in re.findall(r"'([^']+)'", instruction)]
    if quoted:
        return [(q, True) for q in quoted if q]
    runs: list[list[str]] = [[]]
    for word in re.findall(r"[A-Za-z0-9_]+", instruction):
        if word.lower() in STOPWORDS:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append(word)
    return [(" ".join(run), False) for run in runs if run]


def has_token(text: str, value: str, case_sensitive: bool) -> bool:
    """`value` as a whole token: not inside a longer name (letters, digits, underscore)."""
    body = r"\s+".join(re.escape(part) for part in value.split())
    pattern = rf"(?<![A-Za-z0-9_]){body}(?![A-Za-z0-9_])"
    return re.search(pattern, text, 0 if case_sensitive else re.IGNORECASE) is not None


# ----------------------------------------------------------------------------- prompts


def _obj(words: str) -> str:
    words = re.sub(r"\b(all|your|our|the|every|each)\s+", "", words.strip())
    return words.strip() or "our code"


PROMPT_RULES: list[tuple[str, Any]] = [
    (
        r"\b(?P<where>start|begin|end)\s+(?P<obj>[a-z ]+?)\s+names?\s+with\b",
        lambda m: "What {} should I use for {} names?".format(
            "suffix" if m["where"] == "end" else "prefix", _obj(m["obj"])
        ),
    ),
    (
        r"\bdecorator\b.*?\bto\s+(?P<obj>[a-z ]+?)\s*$",
        lambda m: f"Which decorator should I add to {_obj(m['obj'])}?",
    ),
    (r"\bimport\b.*\bmodule\b", lambda m: "Which module should I import in every file?"),
    (
        r"\binclude\b.*?\bin\s+(?P<obj>[a-z ]+?)\s+names?\b",
        lambda m: f"What should I include in {_obj(m['obj'])} names?",
    ),
    (
        r"\buse\b.*?\bfor\s+(?P<obj>[a-z ]+?)\s+names?\b",
        lambda m: f"What naming style should I use for {_obj(m['obj'])} names?",
    ),
    (
        r"\b(?:in|for|to)\s+(?P<obj>[a-z ]+?)\s*$",
        lambda m: f"What is our convention for {_obj(m['obj'])}?",
    ),
]


def topical_prompt(instruction: str) -> str:
    """A question about what the instruction governs, without its value."""
    text = re.sub(r"'[^']*'", "", instruction.lower()).strip()
    for pattern, build in PROMPT_RULES:
        match = re.search(pattern, text)
        if match:
            return str(build(match))
    return "What coding conventions should I follow here?"


# ----------------------------------------------------------------------------- one dialogue


def generic_request(dialogue: dict[str, Any]) -> str:
    """The dialogue's own generic coding request (the last session's first
    `history_eval_query`) as a new chat's prompt: "Write a function that merges two sorted
    lists."; "" when it has none."""
    for session in reversed(dialogue["sessions"]):
        queries = session.get("history_eval_query") or []
        if queries:
            return f"Write a {queries[-1].strip().rstrip('.')}."
    return ""


def run_dialogue(path: Path, via: str, keep: bool) -> dict[str, Any]:
    dialogue = json.loads(path.read_text(encoding="utf-8"))
    mentor, mentee = dialogue["context"]["mentor"], dialogue["context"]["mentee"]
    name = path.stem
    started = time.perf_counter()
    project = Project(name.replace("_", "-"))
    raw: list[str] = []
    n_exchanges = 0
    try:
        for index, session in enumerate(dialogue["sessions"]):
            raw.extend(u for _, u in utterances(session["text"], (mentor, mentee)))
            talk = exchanges(session["text"], mentor, mentee)
            n_exchanges += len(talk)
            if talk:
                project.chat(session_id(name, "session", index), talk, via)
        project.drain()

        pivots = instruction_versions(dialogue)
        in_force = {pivot: versions[last(versions)] for pivot, versions in pivots.items()}
        current_values = {v for text in in_force.values() for v, _ in values(text)}
        bm25 = BM25(raw)
        rows = []
        generic = generic_request(dialogue)
        generic_chat = (
            project.new_chat(session_id(name, "generic"), generic, search=False)
            if generic
            else None
        )
        for pivot, versions in pivots.items():
            latest = versions[last(versions)]
            latest_values = values(latest)
            value, sensitive = latest_values[0]
            latest_set = {v for v, _ in latest_values}
            old = [
                (v, s)
                for version, text in versions.items()
                if version != last(versions)
                for v, s in values(text)
                if v not in latest_set and v not in current_values
            ]
            prompt = topical_prompt(latest)
            chat = project.new_chat(session_id(name, "new", pivot), prompt)
            top = "\n".join(bm25.top(prompt, 5))

            def shows(text: str, value: str = value, sensitive: bool = sensitive) -> bool:
                return has_token(text, value, sensitive)

            def outdated(text: str, old: list[tuple[str, bool]] = old) -> bool:
                return any(has_token(text, v, s) for v, s in old)

            rows.append(
                {
                    "dialogue": name,
                    "pivot": pivot,
                    "instruction": latest,
                    "versions": sorted(versions),
                    "updated": len(versions) > 1,
                    "prompt": prompt,
                    "value": value,
                    "old_values": sorted({v for v, _ in old}),
                    "cms_visible": shows(chat.injected),
                    "cms_outdated": outdated(chat.injected),
                    "cms_search": shows(chat.search_output),
                    "cms_search_outdated": outdated(chat.search_output),
                    "generic_visible": shows(generic_chat.injected) if generic_chat else None,
                    "has_command": chat.command is not None,
                    "injected_chars": len(chat.injected),
                    "bm25_visible": shows(top),
                    "bm25_outdated": outdated(top),
                }
            )
        return {
            "dialogue": name,
            "sessions": len(dialogue["sessions"]),
            "exchanges": n_exchanges,
            "seconds": time.perf_counter() - started,
            "errors": project.errors[:20],
            "n_errors": len(project.errors),
            "rows": rows,
            "generic_injected": generic_chat.injected if generic_chat else "",
            "in_force": in_force,
            **pushed_counts(generic_chat.injected if generic_chat else "", in_force),
        }
    finally:
        if not keep:
            project.cleanup()


def pushed_counts(injected: str, in_force: dict[str, str]) -> dict[str, int]:
    """The lines of the pushed "rules in force" list, and how many carry the value of one of
    the dialogue's instructions in force: a lower bound of the list's precision (a dialogue's
    other rules, a meeting tool say, are not in its instruction list)."""
    from cms.hooks.session_start import IN_FORCE_HEADING

    known = [v for text in in_force.values() for v in values(text)]
    lines: list[str] = []
    section = ""
    for line in injected.splitlines():
        if line.startswith("["):
            section = line
        elif section == IN_FORCE_HEADING and line.startswith("- "):
            lines.append(line)
    valued = sum(any(has_token(line, v, s) for v, s in known) for line in lines)
    return {"pushed": len(lines), "pushed_valued": valued}


# ----------------------------------------------------------------------------- report


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    updated = [r for r in rows if r["updated"]]

    def share(subset: list[dict[str, Any]], key: str) -> float | None:
        return sum(bool(r[key]) for r in subset) / len(subset) if subset else None

    return {
        "instructions": len(rows),
        "updated": len(updated),
        "cms": {
            "visible_all": share(rows, "cms_visible"),
            "visible_updated": share(updated, "cms_visible"),
            "outdated_updated": share(updated, "cms_outdated"),
            "outdated_all": share(rows, "cms_outdated"),
            "search": share(rows, "cms_search"),
            "search_updated": share(updated, "cms_search"),
            "search_outdated_updated": share(updated, "cms_search_outdated"),
            "generic_visible": share(
                [r for r in rows if r["generic_visible"] is not None], "generic_visible"
            ),
        },
        "bm25": {
            "visible_all": share(rows, "bm25_visible"),
            "visible_updated": share(updated, "bm25_visible"),
            "outdated_updated": share(updated, "bm25_outdated"),
            "outdated_all": share(rows, "bm25_outdated"),
        },
    }


def print_report(results: list[dict[str, Any]], elapsed: float, args: argparse.Namespace) -> None:
    rows = [r for res in results for r in res["rows"]]
    s = summary(rows)
    sessions = sum(r["sessions"] for r in results)
    n_exchanges = sum(r["exchanges"] for r in results)
    print(
        f"MemoryCode dev: {len(results)} dialogues, {sessions} sessions, {n_exchanges} exchanges "
        f"(via {args.via}, {args.jobs} jobs, {elapsed:.0f} s)"
    )
    print(
        f"instructions in force: {s['instructions']}, updated (more than one version seen): "
        f"{s['updated']}"
    )
    print()

    def f(x: float | None) -> str:
        return f"{x:.3f}" if x is not None else "  -  "

    c, b = s["cms"], s["bm25"]
    lines = [
        ("latest visible (all)", c["visible_all"], b["visible_all"], f">= {GOALS['visible']}"),
        ("latest visible (updated only)", c["visible_updated"], b["visible_updated"], ""),
        (
            "outdated shown (updated only)",
            c["outdated_updated"],
            b["outdated_updated"],
            f"<= {GOALS['outdated']}",
        ),
        ("outdated shown (all)", c["outdated_all"], b["outdated_all"], ""),
        ("found by search (all)", c["search"], None, f">= {GOALS['search']}"),
        ("found by search (updated only)", c["search_updated"], None, ""),
        ("outdated in search (updated only)", c["search_outdated_updated"], None, ""),
        ("in force, generic request prompt", c["generic_visible"], None, ">= 0.9"),
    ]
    print(f"{'':<36} {'cms':>7} {'BM25 top5':>10} {'goal':>8}")
    for label, cms_value, bm25_value, goal in lines:
        print(f"{label:<36} {f(cms_value):>7} {f(bm25_value):>10} {goal:>8}")
    print()
    print("by dialogue length (sessions): instructions, cms latest visible / found by search")
    by_len: dict[int, list[dict[str, Any]]] = {}
    for res in results:
        by_len.setdefault(res["sessions"], []).extend(res["rows"])
    for length in sorted(by_len):
        part = by_len[length]
        vis = sum(r["cms_visible"] for r in part)
        found = sum(r["cms_search"] for r in part)
        bm = sum(r["bm25_visible"] for r in part)
        print(
            f"  {length:>3} sessions: {len(part):>4}  cms {ratio(vis, len(part))} / "
            f"{ratio(found, len(part))}   BM25 {ratio(bm, len(part))}"
        )
    pushed = sum(res.get("pushed", 0) for res in results)
    valued = sum(res.get("pushed_valued", 0) for res in results)
    print(
        f"pushed rules list (generic request chats): {pushed} lines, {ratio(valued, pushed)} "
        "carry an instruction in force (a lower bound of its precision)"
    )
    no_command = sum(not r["has_command"] for r in rows)
    empty = sum(r["injected_chars"] == 0 for r in rows)
    errors = sum(r["n_errors"] for r in results)
    print()
    print(
        f"new chats without a search command: {no_command}; with nothing injected: {empty}; "
        f"hook/CLI errors: {errors}"
    )
    for res in results:
        for error in res["errors"][:2]:
            print(f"  {res['dialogue']}: {error}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=0, help="first N dialogues (by number)")
    parser.add_argument(
        "--per-length",
        type=int,
        default=0,
        help="only the first N dialogues (by number) of each dialogue length (1 to 100 sessions)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="dialogues run in parallel")
    parser.add_argument("--via", choices=("hooks", "replay"), default="hooks")
    parser.add_argument("--json", type=Path, help="write the summary and every row here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects")
    args = parser.parse_args(argv)

    def number(p: Path) -> int:
        digits = re.sub(r"\D", "", p.stem)
        return int(digits) if digits else 0

    paths = sorted(args.dialogues.glob("*.json"), key=number)
    if args.per_length:
        taken: Counter[int] = Counter()
        chosen = []
        for p in paths:
            length = len(json.loads(p.read_text(encoding="utf-8"))["sessions"])
            if taken[length] < args.per_length:
                taken[length] += 1
                chosen.append(p)
        paths = chosen
    if args.limit:
        paths = paths[: args.limit]
    if not paths:
        print(f"no dialogues in {args.dialogues}", file=sys.stderr)
        return 1
    # the longest dialogues first, so the pool ends together
    paths.sort(key=lambda p: p.stat().st_size, reverse=True)
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_dialogue, p, args.via, args.keep): p for p in paths}
        for done, future in enumerate(as_completed(futures), 1):
            res = future.result()
            results.append(res)
            print(
                f"[{done}/{len(paths)}] {res['dialogue']}: {res['sessions']} sessions, "
                f"{len(res['rows'])} instructions, {res['seconds']:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    elapsed = time.perf_counter() - started
    results.sort(key=lambda r: number(Path(r["dialogue"])))
    print_report(results, elapsed, args)
    if args.json:
        rows = [r for res in results for r in res["rows"]]
        meta = [{k: v for k, v in res.items() if k != "rows"} for res in results]
        args.json.write_text(
            json.dumps(
                {"summary": summary(rows), "seconds": elapsed, "dialogues": meta, "rows": rows},
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
