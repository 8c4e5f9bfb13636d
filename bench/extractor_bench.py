"""The offline (local) extractor against the gold labels of tests/data/extractor_labels.json.

Replays each labelled source into a temporary project and scores every stored map fact and
observation: useful / noise / stale share, coverage of remember units, kinds right (see below).
Usage: python bench/extractor_bench.py [--source TEXT] [--jobs N] [--show N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.memorycode_bench import DATA as DIALOGUES
from bench.memorycode_bench import exchanges
from bench.newchat_bench import TRANSCRIPTS
from bench.replay import Project, ratio, session_id

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "data" / "extractor_labels.json"
SEALED = ROOT / "tests" / "data" / "extractor_labels_sealed.json"  # --labels: the sealed part
SCENARIOS = ROOT / "bench" / "data" / "scenarios_heldout.json"

# Method. A transcript is replayed with `cms replay`, cut to its labelled turns; a MemoryCode
# dialogue session by session, each labelled session one chat of the project (as
# bench/memorycode_bench.py does). CMS_HOME and HOME are temporary, the provider is local.
# Stored facts: every fact of every chat map (archived planets too: search still finds them) and
# every live observation (its body is the statement; the title, a topic label, only when the body
# is empty). A fact matches the unit of its source with the highest containment
# |fact tokens & unit tokens| / |fact tokens| (ties: the higher |...| / |unit tokens|).
# useful = matches a remember unit; noise = a noise unit or no unit (unmatched); stale = a stale
# unit; coverage = remember units whose key a fact holds; kinds right = useful facts with a kind
# (observations) whose kind is the unit's labelled kind. Shares are micro-averaged.
MATCH_MIN = 0.5  # a fact whose best containment is below this matches no unit (unmatched noise)
KEY_SHARE = 2 / 3  # a remember unit is covered when one fact holds this share of its key tokens
KEY_ALL_UP_TO = 2  # keys with at most this many tokens must be held whole
GOALS = {"useful": 0.80, "noise": 0.05, "coverage": 0.75, "kinds": 0.85}
GROUPS = ("map", "obs", "all")  # map facts, observations, both together
GROUP_NAMES = {"map": "map facts", "obs": "observations", "all": "map facts + observations"}

# English function words only; content words (always, never, not, use, ...) are kept.
STOPWORDS = frozenset(
    """a an the and or but nor of to in on at by for from with as into onto about than then so
    is are was were be been being am it its this that these those there here i me my we us
    our you your he him his she her they them their what which who whom whose how when where why
    do does did done have has had having will would shall should can could may might must just
    also very too s t d ll m re ve let lets up out if""".split()
)
WORD = re.compile(r"[^\W_]+")  # runs of letters and digits, any script
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+")


# ----------------------------------------------------------------------------- tokens


def word_tokens(text: str) -> set[str]:
    """Lower-case letter/digit words without STOPWORDS; runs of Chinese/Japanese characters
    (written without spaces) become character bigrams (a lone character stays itself)."""
    out: set[str] = set()

    def add(word: str) -> None:
        if word and word not in STOPWORDS:
            out.add(word)

    for word in WORD.findall(text.lower()):
        start = 0
        for run in CJK.finditer(word):
            add(word[start : run.start()])
            chars = run.group()
            if len(chars) == 1:
                out.add(chars)
            else:
                out.update(chars[i : i + 2] for i in range(len(chars) - 1))
            start = run.end()
        add(word[start:])
    return out


def key_tokens(key: str) -> set[str]:
    """The tokens of a unit's key (stopwords kept when nothing else is left)."""
    found = word_tokens(key)
    return found or set(WORD.findall(key.lower()))


def key_held(fact: set[str], key: set[str]) -> bool:
    """The fact holds enough of the key: all of a short key, else at least KEY_SHARE of it."""
    if not key:
        return False
    hits = len(fact & key)
    if len(key) <= KEY_ALL_UP_TO:
        return hits == len(key)
    return hits >= KEY_SHARE * len(key) - 1e-9


# ----------------------------------------------------------------------------- labels


@dataclass
class Unit:
    index: int
    turn: int
    speaker: str
    text: str
    label: str
    kind: str | None
    key: str
    tokens: set[str]
    key_tokens: set[str]
    covered_by: dict[str, list[str]] = field(default_factory=dict)  # group -> fact ids


def source_name(source: dict[str, Any]) -> str:
    """A short name: the file without its folders' common prefix, e.g. spotter/short.jsonl."""
    parts = Path(source["file"]).parts
    name = "/".join(parts[-2:]) if len(parts) > 1 else parts[0]
    return name if len(name) <= 40 else name[:37] + "..."


def load_units(source: dict[str, Any]) -> list[Unit]:
    units = []
    for i, u in enumerate(source["units"]):
        key = u.get("key") or ""
        units.append(
            Unit(
                index=i,
                turn=int(u["turn"]),
                speaker=u["speaker"],
                text=u["text"],
                label=u["label"],
                kind=u.get("kind"),
                key=key,
                tokens=word_tokens(u["text"]),
                key_tokens=key_tokens(key) if key else word_tokens(u["text"]),
            )
        )
    return units


# ----------------------------------------------------------------------------- replay


def prompt_line_numbers(path: Path) -> list[int]:
    """1-based numbers of the lines cms reads as genuine user prompts."""
    from cms.transcripts import claude_code, codex, jsonl
    from cms.transcripts.reader import detect_format

    records = [jsonl.parse_line(line) for line in path.read_bytes().splitlines()]
    is_prompt: Callable[[dict[str, Any]], bool]
    if detect_format(path) == "codex":
        has_events = any(r is not None and codex.prompt_text(r, codex.EVENT) for r in records)
        mode = codex.EVENT if has_events else codex.RESPONSE

        def is_prompt(record: dict[str, Any]) -> bool:
            return codex.prompt_text(record, mode) is not None
    else:

        def is_prompt(record: dict[str, Any]) -> bool:
            return claude_code.prompt_text(record) is not None

    return [n for n, r in enumerate(records, 1) if r is not None and is_prompt(r)]


def labelled_transcript(
    path: Path, source: dict[str, Any], folder: Path
) -> tuple[Path, str | None]:
    """The transcript restricted to its labelled turns: lines from the first labelled prompt
    (from the top when the range starts at turn 1) up to the next prompt cms reads after the
    last labelled one. Returns (file to replay, a note when it was cut)."""
    first, _last = source["turns"]
    prompt_lines = source.get("prompt_lines") or []
    if not prompt_lines:
        return path, "no prompt_lines: replayed whole"
    lines = path.read_bytes().splitlines(keepends=True)
    after = [n for n in prompt_line_numbers(path) if n > prompt_lines[-1]]
    start = 0 if first == 1 else prompt_lines[0] - 1
    end = after[0] - 1 if after else len(lines)
    if start == 0 and end == len(lines):
        return path, None
    cut = folder / "labelled-turns.jsonl"
    cut.write_bytes(b"".join(lines[start:end]))
    return cut, f"replayed lines {start + 1}-{end} of {len(lines)}"


def stored_facts(project: Project) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Every map fact (live and archived) and every live observation of the project."""
    from cms.map.store import load_map
    from cms.observations.store import ObservationStore

    home = Path(project.env["CMS_HOME"])
    facts: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()

    for map_file in sorted(home.glob("chats/*/map.json")):
        cmap = load_map(map_file)
        chat = map_file.parent.name[:8]
        for sun, planet, archived in cmap.all_planets():
            for sat in planet.satellites:
                facts.append(
                    {
                        "group": "map",
                        "id": f"{chat}/{sat.id}",
                        "text": sat.text,
                        "kind": None,
                        "topic": f"{sun} / {planet.title}",
                        "turn": sat.turn,
                        "archived": archived,
                    }
                )
                counts["map_archived"] += archived
        counts["chats"] += 1
    for db in sorted(home.glob("projects/*/observations.db")):
        with ObservationStore(db, db.parent.name) as store:
            live = store.list_observations()
            everything = store.list_observations(include_archived=True, include_superseded=True)
        counts["obs_dropped"] += len(everything) - len(live)
        for obs in live:
            counts["obs_promoted"] += obs.source is not None
            facts.append(
                {
                    "group": "obs",
                    "id": f"obs/{obs.id}",
                    "text": obs.body or obs.title,
                    "kind": obs.kind,
                    "topic": obs.title,
                    "turn": obs.turn,
                    "archived": False,
                }
            )
    return facts, dict(counts)


def replay_source(
    source: dict[str, Any], transcripts: Path, dialogues: Path, via: str, keep: bool
) -> dict[str, Any]:
    """Replay one labelled source into a fresh project; return what it stored."""
    started = time.perf_counter()
    name = re.sub(r"[^A-Za-z0-9]+", "-", Path(source["file"]).stem)[:24].strip("-") or "src"
    project = Project(name)
    note: str | None = None
    first, last = source["turns"]
    try:
        if source["corpus"] == "memorycode":
            path = dialogues / source["file"]
            dialogue = json.loads(path.read_text(encoding="utf-8"))
            mentor, mentee = dialogue["context"]["mentor"], dialogue["context"]["mentee"]
            for index in range(first - 1, last):
                talk = exchanges(dialogue["sessions"][index]["text"], mentor, mentee)
                if talk:
                    project.chat(session_id(source["file"], "session", index), talk, via)
        elif source["corpus"] == "scenarios_heldout":  # a whole project of the held-out set
            from bench.scenarios_bench import replay_chats

            scenarios = json.loads(SCENARIOS.read_text(encoding="utf-8"))
            replay_chats(project, next(s for s in scenarios if s["id"] == source["file"]))
        else:
            path = transcripts / source["file"]
            replayed, note = labelled_transcript(path, source, project.root)
            project.replay_file(replayed, session_id("extractor", source["file"]))
        project.drain()
        facts, counts = stored_facts(project)
        return {
            "file": source["file"],
            "facts": facts,
            "counts": counts,
            "note": note,
            "errors": project.errors[:20],
            "n_errors": len(project.errors),
            "seconds": time.perf_counter() - started,
        }
    finally:
        if not keep:
            project.cleanup()


# ----------------------------------------------------------------------------- scoring


def match(fact: set[str], units: Sequence[Unit]) -> tuple[Unit | None, float, float]:
    """The unit with the highest containment of the fact (ties: higher reverse containment),
    with both scores; None when the best containment is below MATCH_MIN."""
    best: Unit | None = None
    best_score = (0.0, 0.0)
    if fact:
        for unit in units:
            shared = len(fact & unit.tokens)
            if not shared:
                continue
            score = (shared / len(fact), shared / len(unit.tokens))
            if score > best_score:
                best, best_score = unit, score
    if best is None or best_score[0] < MATCH_MIN:
        return None, best_score[0], best_score[1]
    return best, best_score[0], best_score[1]


def score_source(
    source: dict[str, Any], units: list[Unit], facts: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per stored fact; marks the units each group covers."""
    rows = []
    for fact in facts:
        toks = word_tokens(fact["text"])
        unit, overlap, reverse = match(toks, units)
        status = unit.label if unit is not None else "unmatched"
        kind_ok = None
        if unit is not None and unit.label == "remember" and fact["kind"] is not None:
            kind_ok = fact["kind"] == unit.kind
        rows.append(
            {
                "source": source["file"],
                "group": fact["group"],
                "id": fact["id"],
                "text": fact["text"],
                "kind": fact["kind"],
                "topic": fact["topic"],
                "archived": fact["archived"],
                "status": status,
                "label": unit.label if unit is not None else None,
                "unit_kind": unit.kind if unit is not None else None,
                "unit_turn": unit.turn if unit is not None else None,
                "unit_speaker": unit.speaker if unit is not None else None,
                "unit_text": unit.text if unit is not None else None,
                "overlap": round(overlap, 3),
                "reverse": round(reverse, 3),
                "kind_ok": kind_ok,
            }
        )
        for u in units:
            if u.label != "noise" and key_held(toks, u.key_tokens):
                for group in (fact["group"], "all"):
                    u.covered_by.setdefault(group, []).append(fact["id"])
    return rows


@dataclass
class Tally:
    facts: int = 0
    remember: int = 0
    stale: int = 0
    noise: int = 0
    unmatched: int = 0
    kinds: int = 0
    kinds_ok: int = 0
    rem_units: int = 0
    covered: int = 0
    stale_units: int = 0
    stale_kept: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def shares(self) -> dict[str, float | None]:
        def share(hits: int, total: int) -> float | None:
            return hits / total if total else None

        return {
            "useful": share(self.remember, self.facts),
            "noise": share(self.noise + self.unmatched, self.facts),
            "stale": share(self.stale, self.facts),
            "coverage": share(self.covered, self.rem_units),
            "kinds": share(self.kinds_ok, self.kinds),
        }


def tally(rows: Iterable[dict[str, Any]], units: Sequence[Unit], group: str) -> Tally:
    t = Tally()
    for r in rows:
        if group != "all" and r["group"] != group:
            continue
        t.facts += 1
        setattr(t, r["status"], getattr(t, r["status"]) + 1)
        if r["kind_ok"] is not None:
            t.kinds += 1
            t.kinds_ok += r["kind_ok"]
    for u in units:
        if u.label == "remember":
            t.rem_units += 1
            t.covered += bool(u.covered_by.get(group))
        elif u.label == "stale":
            t.stale_units += 1
            t.stale_kept += bool(u.covered_by.get(group))
    return t


# ----------------------------------------------------------------------------- report


def print_group(
    group: str, per_source: list[tuple[str, list[dict[str, Any]], list[Unit]]]
) -> tuple[Tally, dict[str, Tally]]:
    header = (
        f"{'source':<40} {'facts':>5} {'rem':>4} {'stale':>5} {'noise':>5} {'unm':>4} "
        f"{'useful':>6} {'noise%':>6} {'stale%':>6} {'covered':>9} {'cover':>6} "
        f"{'kinds':>7} {'right':>6}"
    )
    print(f"== {GROUP_NAMES[group]} ==")
    print(header)
    print("-" * len(header))
    total = Tally()

    def line(name: str, t: Tally) -> None:
        print(
            f"{name:<40} {t.facts:>5} {t.remember:>4} {t.stale:>5} {t.noise:>5} {t.unmatched:>4} "
            f"{ratio(t.remember, t.facts):>6} {ratio(t.noise + t.unmatched, t.facts):>6} "
            f"{ratio(t.stale, t.facts):>6} {f'{t.covered}/{t.rem_units}':>9} "
            f"{ratio(t.covered, t.rem_units):>6} {f'{t.kinds_ok}/{t.kinds}':>7} "
            f"{ratio(t.kinds_ok, t.kinds):>6}"
        )

    halves: dict[str, Tally] = {}
    for name, rows, units in per_source:
        t = tally(rows, units, group)
        total.add(t)
        halves.setdefault(corpus_of(name), Tally()).add(t)
        line(name, t)
    print("-" * len(header))
    for corpus, t in halves.items():
        line(f"{corpus} (micro)", t)
    line("all sources (micro)", total)
    goals = (
        f"{'goal':<40} {'':>5} {'':>4} {'':>5} {'':>5} {'':>4} "
        f"{'>=' + format(GOALS['useful'], '.2f'):>6} {'<=' + format(GOALS['noise'], '.2f'):>6} "
        f"{'':>6} {'':>9} {'>=' + format(GOALS['coverage'], '.2f'):>6} {'':>7} "
        f"{'>=' + format(GOALS['kinds'], '.2f'):>6}"
    )
    print(goals)
    print(
        f"stale units whose key a stored fact holds: {total.stale_kept}/{total.stale_units}"
        f"   (noise% counts labelled noise + unmatched)"
    )
    # Unmatched facts have no unit: mostly facts from tool calls (commands run), which the
    # labels (sentences of prose only) cannot hold. They stay noise in the headline; shown apart.
    for name, t in [*halves.items(), ("all", total)]:
        print(
            f"  {name}: noise labelled {ratio(t.noise, t.facts)}, unmatched (no unit) "
            f"{ratio(t.unmatched, t.facts)}"
        )
    print()
    return total, halves


def corpus_of(name: str) -> str:
    """The half of the labelled set a source belongs to (by its short name)."""
    if name.startswith("h") and name[1:3].isdigit():
        return "scenarios"
    return "memorycode" if name.startswith("dialogue_") else "transcripts"


def spread(items: Sequence[dict[str, Any]], key: str, n: int) -> list[dict[str, Any]]:
    """Up to n items taken round-robin over the values of `key` (in first-seen order)."""
    buckets: dict[Any, list[dict[str, Any]]] = {}
    for item in items:
        buckets.setdefault(item[key], []).append(item)
    out: list[dict[str, Any]] = []
    depth = 0
    while len(out) < n and any(depth < len(b) for b in buckets.values()):
        for bucket in buckets.values():
            if depth < len(bucket) and len(out) < n:
                out.append(bucket[depth])
        depth += 1
    return out


def print_details(rows: list[dict[str, Any]], unit_rows: list[dict[str, Any]]) -> None:
    noise = [r for r in rows if r["status"] in ("noise", "unmatched")]
    speakers = Counter(r["unit_speaker"] or "unmatched" for r in noise if r["group"] == "map")
    print(
        "map-fact noise by speaker of the matched unit: "
        + (", ".join(f"{k} {v}" for k, v in speakers.most_common()) or "none")
    )
    missed = [u for u in unit_rows if u["label"] == "remember" and not u["covered_all"]]
    kinds = Counter(u["kind"] for u in missed)
    all_kinds = Counter(u["kind"] for u in unit_rows if u["label"] == "remember")
    print(
        "uncovered remember units by kind (missed/all): "
        + ", ".join(f"{k} {kinds[k]}/{v}" for k, v in all_kinds.most_common())
    )
    confusion = Counter(
        (r["unit_kind"], r["kind"]) for r in rows if r["group"] == "obs" and r["kind_ok"] is False
    )
    print(
        "observation kinds wrong (labelled -> stored): "
        + (", ".join(f"{a}->{b} {n}" for (a, b), n in confusion.most_common()) or "none")
    )


def print_examples(rows: list[dict[str, Any]], unit_rows: list[dict[str, Any]], n: int) -> None:
    seen: set[tuple[str, str]] = set()
    noise = []
    for r in rows:  # one example per distinct text (an observation often repeats a map fact)
        if r["status"] in ("noise", "unmatched") and (r["source"], r["text"]) not in seen:
            seen.add((r["source"], r["text"]))
            noise.append(r)
    print(f"-- {min(n, len(noise))} of {len(noise)} distinct noise facts --")
    for r in spread(noise, "source", n):
        where = f"{source_short(r['source'])} {r['group']} {r['kind'] or '-'}"
        print(f"[{where}] {r['text']!r}")
        if r["unit_text"] is not None:
            print(f"    ~ {r['label']} unit (overlap {r['overlap']}): {r['unit_text']!r}")
        else:
            print(f"    ~ no unit (best overlap {r['overlap']})")
    missed = [u for u in unit_rows if u["label"] == "remember" and not u["covered_all"]]
    print()
    print(f"-- {min(n, len(missed))} of {len(missed)} uncovered remember units --")
    for u in spread(missed, "source", n):
        print(
            f"[{source_short(u['source'])} turn {u['turn']} {u['speaker']} {u['kind']}] "
            f"key {u['key']!r}: {u['text']!r}"
        )
    print()


def source_short(file: str) -> str:
    return source_name({"file": file})


# ----------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--transcripts", type=Path, default=TRANSCRIPTS)
    parser.add_argument("--dialogues", type=Path, default=DIALOGUES)
    parser.add_argument("--source", default="", help="only sources whose file contains this")
    parser.add_argument("--jobs", type=int, default=2, help="sources replayed in parallel")
    parser.add_argument(
        "--via",
        choices=("replay", "hooks"),
        default="replay",
        help="MemoryCode sessions: `cms replay` (default) or Stop/SessionEnd hooks",
    )
    parser.add_argument("--show", type=int, default=0, help="print N noise facts, N misses")
    parser.add_argument("--json", type=Path, help="write every fact row and unit row here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects")
    args = parser.parse_args(argv)

    data = json.loads(args.labels.read_text(encoding="utf-8"))
    sources = [s for s in data["sources"] if args.source in f"{s['corpus']}/{s['file']}"]
    if not sources:
        print(f"no labelled source matches {args.source!r}", file=sys.stderr)
        return 1
    started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {}
    order = sorted(sources, key=lambda s: len(s["units"]), reverse=True)  # longest first
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [
            pool.submit(replay_source, s, args.transcripts, args.dialogues, args.via, args.keep)
            for s in order
        ]
        for done, future in enumerate(as_completed(futures), 1):
            res = future.result()
            results[res["file"]] = res
            print(
                f"[{done}/{len(sources)}] {source_short(res['file'])}: {len(res['facts'])} "
                f"stored, {res['seconds']:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    elapsed = time.perf_counter() - started

    per_source = []
    all_rows: list[dict[str, Any]] = []
    unit_rows: list[dict[str, Any]] = []
    for source in sources:
        units = load_units(source)
        rows = score_source(source, units, results[source["file"]]["facts"])
        per_source.append((source_name(source), rows, units))
        all_rows.extend(rows)
        for u in units:
            if u.label != "noise":
                unit_rows.append(
                    {
                        "source": source["file"],
                        "turn": u.turn,
                        "speaker": u.speaker,
                        "label": u.label,
                        "kind": u.kind,
                        "key": u.key,
                        "text": u.text,
                        "covered_map": bool(u.covered_by.get("map")),
                        "covered_obs": bool(u.covered_by.get("obs")),
                        "covered_all": bool(u.covered_by.get("all")),
                        "covered_by": u.covered_by.get("all", []),
                    }
                )

    labels = Counter(u["label"] for s in sources for u in s["units"])
    print(
        f"Extractor vs gold labels: {len(sources)} sources, {sum(labels.values())} units "
        f"({labels['remember']} remember, {labels['stale']} stale, {labels['noise']} noise); "
        f"local provider, MemoryCode via {args.via}, {args.jobs} jobs, {elapsed:.0f} s"
    )
    counts: Counter[str] = Counter()
    for res in results.values():
        counts.update(res["counts"])
    print(
        f"stored: {sum(r['group'] == 'map' for r in all_rows)} map facts in {counts['chats']} "
        f"chats ({counts['map_archived']} archived), "
        f"{sum(r['group'] == 'obs' for r in all_rows)} live observations "
        f"({counts['obs_promoted']} promoted from map facts; {counts['obs_dropped']} superseded "
        f"or archived, not scored)"
    )
    print(
        f"match: best containment |fact∩unit|/|fact| >= {MATCH_MIN}; covered: a fact holds "
        f">= {KEY_SHARE:.2f} of the key's tokens (all of a key of <= {KEY_ALL_UP_TO} tokens)"
    )
    print()
    printed = {group: print_group(group, per_source) for group in GROUPS}
    totals = {group: t for group, (t, _) in printed.items()}
    print_details(all_rows, unit_rows)
    notes = [(f, r["note"]) for f, r in results.items() if r["note"]]
    errors = sum(r["n_errors"] for r in results.values())
    for file, note in notes:
        print(f"  {source_short(file)}: {note}")
    print(f"hook/CLI errors: {errors}")
    for file, res in results.items():
        for error in res["errors"][:2]:
            print(f"  {source_short(file)}: {error}")
    if args.show:
        print()
        print_examples(all_rows, unit_rows, args.show)
    if args.json:
        summary: dict[str, Any] = {g: {**vars(t), **t.shares()} for g, t in totals.items()}
        for g, (_, halves) in printed.items():
            for corpus, t in halves.items():
                summary[f"{g}/{corpus}"] = {**vars(t), **t.shares()}
        meta = [{k: v for k, v in r.items() if k != "facts"} for r in results.values()]
        args.json.write_text(
            json.dumps(
                {
                    "summary": summary,
                    "goals": GOALS,
                    "seconds": elapsed,
                    "sources": meta,
                    "facts": all_rows,
                    "units": unit_rows,
                },
                indent=1,
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
