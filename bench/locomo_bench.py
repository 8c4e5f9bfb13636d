"""Retrieval quality of observation recall on LoCoMo (dev split, five conversations).

Each dialogue turn becomes one observation dated by its session; each question is recalled
through cms.observations.recall.recall (every branch visible, no minimum relevance) and scored
against its evidence turns (with the locomo-audit corrections applied). Prints recall@1/5/10
and MRR, overall and per question category, next to plain BM25 (FTS5, no stemming, no
stopwords, every word OR-ed) over the same documents.

    PYTHONPATH=. python bench/locomo_bench.py [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from cms.observations.recall import recall  # noqa: E402
from cms.observations.scope import BranchScope  # noqa: E402
from cms.observations.store import NewObservation, ObservationStore, insert_observation  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "locomo" / "locomo_dev5.json"
KS = (1, 5, 10)


def session_time(text: str) -> float:
    """'1:56 pm on 8 May, 2023' -> Unix seconds (UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").timestamp()


def turns_of(conversation: dict[str, object]) -> list[tuple[str, str, str, float]]:
    """(dia_id, speaker, text, session time) of every turn; a shared image adds its caption."""
    result = []
    for key, value in conversation.items():
        if not re.fullmatch(r"session_\d+", key) or not isinstance(value, list):
            continue
        when = session_time(str(conversation[f"{key}_date_time"]))
        for turn in value:
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f" [shared a photo: {turn['blip_caption']}]"
            result.append((turn["dia_id"], turn["speaker"], text, when))
    return result


def evidence_of(qa: dict[str, object], corrected: list[str] | None) -> set[str]:
    raw = corrected if corrected is not None else qa.get("evidence") or []
    assert isinstance(raw, list)
    return {p.strip() for item in raw for p in re.split(r"[;,]\s*", str(item)) if p.strip()}


def score_rankings(results: list[tuple[int, set[str], list[str]]]) -> dict[str, float]:
    totals = {f"R@{k}": 0.0 for k in KS} | {"MRR": 0.0}
    for _category, evidence, ranked in results:
        for k in KS:
            totals[f"R@{k}"] += len(evidence & set(ranked[:k])) / len(evidence)
        rank = next((i for i, d in enumerate(ranked) if d in evidence), None)
        totals["MRR"] += 0.0 if rank is None else 1.0 / (rank + 1)
    return {key: value / max(1, len(results)) for key, value in totals.items()}


def plain_bm25(turns: list[tuple[str, str, str, float]]) -> Callable[[str], list[str]]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    ids = {}
    for dia_id, speaker, text, _when in turns:
        cursor = db.execute("INSERT INTO t (text) VALUES (?)", (f"{speaker}: {text}",))
        ids[cursor.lastrowid] = dia_id

    def search(question: str) -> list[str]:
        words = re.findall(r"\w+", question.lower())
        if not words:
            return []
        expr = " OR ".join(f'"{w}"' for w in words)
        sql = "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10"
        return [ids[r[0]] for r in db.execute(sql, (expr,))]

    return search


def cms_recall(
    turns: list[tuple[str, str, str, float]], folder: Path, name: str
) -> Callable[[str], list[str]]:
    store = ObservationStore(folder / f"{name}.db", name)
    ids: dict[int, str] = {}

    def fill(conn: sqlite3.Connection) -> None:
        for dia_id, speaker, text, when in turns:
            new = NewObservation(kind="other", title=f"{speaker} {dia_id}", body=text, importance=3)
            ids[insert_observation(conn, name, new, branch=None, commit=None, created_at=when)] = (
                dia_id
            )

    store.write(fill)
    now = max(t[3] for t in turns) + 86400
    scope = BranchScope.everywhere()

    def search(question: str) -> list[str]:
        hits = recall(store, question, scope=scope, limit=10, now=now, touch=False)
        return [ids[h.observation.id] for h in hits]

    return search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    conversations = json.loads(args.data.read_text(encoding="utf-8"))
    audit_path = args.data.with_name("locomo_audit_errors.json")
    audit = {}
    if audit_path.exists():
        audit = {a["question_id"]: a for a in json.loads(audit_path.read_text(encoding="utf-8"))}
    ours: list[tuple[int, set[str], list[str]]] = []
    base: list[tuple[int, set[str], list[str]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for ci, conv in enumerate(conversations):
            turns = turns_of(conv["conversation"])
            searchers = (cms_recall(turns, Path(tmp), f"conv{ci}"), plain_bm25(turns))
            for qi, qa in enumerate(conv["qa"]):
                fix = audit.get(f"locomo_{ci}_qa{qi}")
                evidence = evidence_of(qa, fix["correct_evidence"] if fix else None)
                if not evidence:
                    continue
                ours.append((qa["category"], evidence, searchers[0](qa["question"])))
                base.append((qa["category"], evidence, searchers[1](qa["question"])))
    print(f"LoCoMo dev5: {len(conversations)} conversations, {len(ours)} questions with evidence")
    print(f"{'':18}" + "".join(f"{k:>8}" for k in ("R@1", "R@5", "R@10", "MRR")))
    for label, results in (("plain BM25", base), ("cms recall", ours)):
        row = score_rankings(results)
        print(f"{label:18}" + "".join(f"{row[k]:8.3f}" for k in ("R@1", "R@5", "R@10", "MRR")))
    for category in sorted({c for c, _e, _r in ours}):
        row = score_rankings([r for r in ours if r[0] == category])
        count = sum(1 for r in ours if r[0] == category)
        label = f"  category {category} ({count})"
        print(f"{label:18}" + "".join(f"{row[k]:8.3f}" for k in ("R@1", "R@5", "R@10", "MRR")))


if __name__ == "__main__":
    main()
