"""Retrieval quality of observation recall on LoCoMo (dev split, five conversations).

Each dialogue turn becomes one observation dated by its session, with the turn before it in the
same session as its context; each question is recalled through cms.observations.recall (every
branch visible, no minimum relevance) and scored against its evidence turns (with the
locomo-audit corrections applied). Prints recall@1/5/10 and MRR over categories 1-4 (and 5
apart), for cms lexical recall and, when model2vec and a static model are at hand, recall fused
with the semantic index, next to two baselines in the same run: plain BM25 (FTS5, no stemming,
every word OR-ed) and stemmed BM25 (porter, English stopwords dropped from the question) with the
session date in the text.

Each figure is given twice: plain (the constants as shipped) and cross-validated (leave one
conversation out: the context weight and the semantic weight are chosen from a small grid on
the other four conversations, by R@5, then measured on the one left out), with R@5 per fold.

    PYTHONPATH=. python bench/locomo_bench.py [--data PATH] [--model DIR]
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from cms.config import SemanticConfig  # noqa: E402
from cms.observations.model import NewObservation  # noqa: E402
from cms.observations.recall import WEIGHTS, recall  # noqa: E402
from cms.observations.scope import BranchScope  # noqa: E402
from cms.observations.store import ObservationStore, insert_observation  # noqa: E402
from cms.textindex import STOPWORDS  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "locomo" / "locomo_dev5.json"
MODEL = REPO.parent / "shared" / "data" / "models" / "minilm-static-256"
KS = (1, 5, 10)
COLUMNS = ("R@1", "R@5", "R@10", "MRR")
CONTEXT_GRID = (0.25, 0.5, 1.0)  # bm25() weight of the context column
SEMANTIC_GRID = (0.5, 1.0, 2.0)  # weight of the semantic score against the best lexical one
Turn = tuple[str, str, str, float, str]  # dia_id, speaker, text, session time, session date
Result = tuple[int, set[str], list[str]]  # category, evidence, ranked dia_ids
Ranker = Callable[[str], list[str]]


def session_time(text: str) -> float:
    """'1:56 pm on 8 May, 2023' -> Unix seconds (UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").timestamp()


def turns_of(conversation: dict[str, object]) -> list[Turn]:
    """Every turn with its session's time and date text; a shared image adds its caption."""
    result = []
    for key, value in conversation.items():
        if not re.fullmatch(r"session_\d+", key) or not isinstance(value, list):
            continue
        stamp = str(conversation[f"{key}_date_time"])
        when = session_time(stamp)
        for turn in value:
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f" [shared a photo: {turn['blip_caption']}]"
            result.append((turn["dia_id"], turn["speaker"], text, when, stamp))
    return result


def evidence_of(qa: dict[str, object], corrected: list[str] | None) -> set[str]:
    raw = corrected if corrected is not None else qa.get("evidence") or []
    assert isinstance(raw, list)
    return {p.strip() for item in raw for p in re.split(r"[;,]\s*", str(item)) if p.strip()}


def score_rankings(results: Sequence[Result]) -> dict[str, float]:
    totals = {f"R@{k}": 0.0 for k in KS} | {"MRR": 0.0}
    for _category, evidence, ranked in results:
        for k in KS:
            totals[f"R@{k}"] += len(evidence & set(ranked[:k])) / len(evidence)
        rank = next((i for i, d in enumerate(ranked) if d in evidence), None)
        totals["MRR"] += 0.0 if rank is None else 1.0 / (rank + 1)
    return {key: value / max(1, len(results)) for key, value in totals.items()}


def fts_ranker(docs: Sequence[tuple[str, str]], tokenizer: str, stopwords: bool = False) -> Ranker:
    """BM25 over (id, text) documents, every query word OR-ed (but English stopwords, when
    stopwords is set)."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{tokenizer}')")
    ids = {}
    for doc_id, text in docs:
        ids[db.execute("INSERT INTO t (text) VALUES (?)", (text,)).lastrowid] = doc_id

    def search(question: str) -> list[str]:
        words = re.findall(r"\w+", question.lower())
        if stopwords:
            words = [w for w in words if w not in STOPWORDS]
        if not words:
            return []
        expr = " OR ".join(f'"{w}"' for w in words)
        sql = "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10"
        return [ids[r[0]] for r in db.execute(sql, (expr,))]

    return search


def plain_bm25(turns: Sequence[Turn]) -> Ranker:
    return fts_ranker([(t[0], f"{t[1]}: {t[2]}") for t in turns], "unicode61")


def stemmed_bm25_dates(turns: Sequence[Turn]) -> Ranker:
    docs = [(t[0], f"[{t[4]}] {t[1]}: {t[2]}") for t in turns]
    return fts_ranker(docs, "porter unicode61", stopwords=True)


class CmsConversation:
    """One conversation as a cms store: a turn per observation, the turn before as context."""

    def __init__(self, turns: Sequence[Turn], folder: Path, name: str) -> None:
        self.store = ObservationStore(folder / f"{name}.db", name)
        self.ids: dict[int, str] = {}

        def fill(conn: sqlite3.Connection) -> None:
            before: Turn | None = None
            for turn in turns:
                dia_id, speaker, text, when, _date = turn
                same_session = before is not None and before[3] == when
                context = f"{before[1]}: {before[2]}" if before and same_session else ""
                new = NewObservation(
                    kind="other", title=f"{speaker} {dia_id}", body=text, importance=3,
                    context=context,
                )  # fmt: skip
                row = insert_observation(conn, name, new, branch=None, commit=None, created_at=when)
                self.ids[row] = dia_id
                before = turn

        self.store.write(fill)
        self.now = max(t[3] for t in turns) + 86400
        self.scope = BranchScope.everywhere()

    def add_vectors(self, embedder: Any) -> None:
        from cms.semantic import query_meaning, update_vectors

        update_vectors(self.store, embedder)
        self.meaning = functools.lru_cache(maxsize=None)(
            lambda question: query_meaning(self.store, embedder, question)
        )

    def add_meanings(self) -> None:
        """Each turn's meaning by the packaged model, stored as the worker stores it, and the
        query meaning `cms search` uses by default (cms.semantic.packaged)."""
        from cms.language.meaning import load_model as load_meaning_model
        from cms.language.meaning import pack
        from cms.observations.meanings import give_meanings
        from cms.semantic.packaged import packaged_meaning

        model = load_meaning_model()
        while give_meanings(self.store, lambda texts: [pack(model.encode(t)) for t in texts]):
            pass
        self.packaged = functools.lru_cache(maxsize=None)(
            lambda question: packaged_meaning(self.store, question)
        )

    def fused(
        self, context_weight: float, semantic_weight: float, packaged: bool = False
    ) -> Ranker:
        weights = (*WEIGHTS[:3], context_weight)
        meaning = self.packaged if packaged else self.meaning

        def search(question: str) -> list[str]:
            hits = recall(
                self.store, question, scope=self.scope, limit=10, now=self.now, touch=False,
                weights=weights, meaning=meaning(question),
                semantic_weight=semantic_weight,
            )  # fmt: skip
            return [self.ids[h.observation.id] for h in hits]

        return search

    def lexical(self, context_weight: float) -> Ranker:
        weights = (*WEIGHTS[:3], context_weight)

        def search(question: str) -> list[str]:
            hits = recall(
                self.store, question, scope=self.scope, limit=10, now=self.now, touch=False,
                weights=weights,
            )  # fmt: skip
            return [self.ids[h.observation.id] for h in hits]

        return search


def load_model(folder: Path) -> Any:
    """The static model for the fused figures, or None (with the reason) when unavailable."""
    try:
        from cms.semantic.model import Embedder
    except ImportError as exc:
        print(f"semantic: {exc}; fused figures skipped")
        return None
    if not folder.is_dir():
        return None
    return Embedder(str(folder))


def cross_validated(
    per_fold: dict[str, list[list[Result]]], choices: Sequence[str]
) -> tuple[list[Result], list[str]]:
    """Leave one conversation out: per fold, the choice with the best R@5 on the other folds,
    and its results on the fold left out."""
    folds = len(next(iter(per_fold.values())))
    results: list[Result] = []
    picked = []
    for test in range(folds):
        train = {
            c: score_rankings([r for f in range(folds) if f != test for r in per_fold[c][f]])["R@5"]
            for c in choices
        }
        best = max(choices, key=lambda c: (train[c], -choices.index(c)))
        picked.append(best)
        results += per_fold[best][test]
    return results, picked


def flat(folds: Sequence[Sequence[Result]]) -> list[Result]:
    return [r for fold in folds for r in fold]


def row(label: str, results: Sequence[Result]) -> str:
    figures = score_rankings(results)
    return f"{label:34}" + "".join(f"{figures[k]:8.3f}" for k in COLUMNS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--model", type=Path, default=MODEL, help="a static model2vec folder")
    args = parser.parse_args()
    embedder = load_model(args.model)
    conversations = json.loads(args.data.read_text(encoding="utf-8"))
    audit_path = args.data.with_name("locomo_audit_errors.json")
    audit = {}
    if audit_path.exists():
        audit = {a["question_id"]: a for a in json.loads(audit_path.read_text(encoding="utf-8"))}
    shipped = f"context {WEIGHTS[3]}"
    methods = ["plain BM25", "stemmed BM25 + dates", *(f"context {w}" for w in CONTEXT_GRID)]
    if shipped not in methods:
        methods.append(shipped)
    fused_shipped = f"fused {WEIGHTS[3]} {SemanticConfig().weight}"
    fused_grid = [f"fused {c} {w}" for c in CONTEXT_GRID for w in SEMANTIC_GRID]
    if embedder is not None:
        methods += fused_grid + ([fused_shipped] if fused_shipped not in fused_grid else [])
    packaged_shipped = f"packaged {WEIGHTS[3]} {SemanticConfig().weight}"
    packaged_grid = [f"packaged {c} {w}" for c in CONTEXT_GRID for w in SEMANTIC_GRID]
    methods += packaged_grid + ([packaged_shipped] if packaged_shipped not in packaged_grid else [])
    per_fold: dict[str, list[list[Result]]] = {m: [] for m in methods}
    with tempfile.TemporaryDirectory() as tmp:
        for ci, conv in enumerate(conversations):
            turns = turns_of(conv["conversation"])
            cms = CmsConversation(turns, Path(tmp), f"conv{ci}")
            rankers: dict[str, Ranker] = {
                "plain BM25": plain_bm25(turns),
                "stemmed BM25 + dates": stemmed_bm25_dates(turns),
            }
            if embedder is not None:
                cms.add_vectors(embedder)
            cms.add_meanings()
            for method in methods[2:]:
                words = method.split()
                if words[0] in ("fused", "packaged"):
                    rankers[method] = cms.fused(
                        float(words[1]), float(words[2]), packaged=words[0] == "packaged"
                    )
                else:
                    rankers[method] = cms.lexical(float(words[-1]))
            for method in methods:
                per_fold[method].append([])
            for qi, qa in enumerate(conv["qa"]):
                fix = audit.get(f"locomo_{ci}_qa{qi}")
                evidence = evidence_of(qa, fix["correct_evidence"] if fix else None)
                if not evidence:
                    continue
                for method, rank in rankers.items():
                    per_fold[method][-1].append((qa["category"], evidence, rank(qa["question"])))

    def main_categories(folds: list[list[Result]]) -> list[list[Result]]:
        return [[r for r in fold if r[0] != 5] for fold in folds]

    core = {m: main_categories(f) for m, f in per_fold.items()}
    count = sum(len(f) for f in core["plain BM25"])
    print(f"LoCoMo dev5: {len(conversations)} conversations, {count} questions of categories 1-4")
    print(f"{'':34}" + "".join(f"{k:>8}" for k in COLUMNS) + "   R@5 per conversation")

    def line(label: str, folds: list[list[Result]], results: list[Result] | None = None) -> None:
        fold_r5 = " ".join(f"{score_rankings(f)['R@5']:.3f}" for f in folds)
        print(row(label, results if results is not None else flat(folds)) + f"   {fold_r5}")

    for method in ("plain BM25", "stemmed BM25 + dates"):
        line(method, core[method])
    line(f"cms lexical ({shipped}, shipped)", core[shipped])
    grid = [f"context {w}" for w in CONTEXT_GRID]
    cv, picked = cross_validated({m: core[m] for m in grid}, grid)
    folds = len(core[shipped])
    cv_folds = [core[p][f] for f, p in enumerate(picked)]
    line("cms lexical, cross-validated", cv_folds, cv)
    print(
        f"  (context weight picked per fold on the other four: {', '.join(p.split()[-1] for p in picked)})"
    )
    base = core["stemmed BM25 + dates"]

    def above_base(runs: list[list[Result]]) -> bool:
        return all(
            score_rankings(runs[f])["R@5"] > score_rankings(base[f])["R@5"] for f in range(folds)
        )

    print(
        f"  lexical above stemmed BM25 + dates in every fold: plain {above_base(core[shipped])}, "
        f"cross-validated {above_base(cv_folds)}"
    )
    if embedder is not None:
        line(f"cms fused ({fused_shipped.split(' ', 1)[1]}, shipped)", core[fused_shipped])
        fcv, fpicked = cross_validated({m: core[m] for m in fused_grid}, fused_grid)
        fcv_folds = [core[p][f] for f, p in enumerate(fpicked)]
        line("cms fused, cross-validated", fcv_folds, fcv)
        chosen = ", ".join("/".join(p.split()[1:]) for p in fpicked)
        print(f"  (context/semantic weights picked per fold on the other four: {chosen})")
        print(
            "  fused above stemmed BM25 + dates in every fold: "
            f"plain {above_base(core[fused_shipped])}, cross-validated {above_base(fcv_folds)}"
        )
    else:
        print(f"  fused: skipped (model2vec or the model at {args.model} is missing)")
    line(f"cms packaged ({packaged_shipped.split(' ', 1)[1]}, default)", core[packaged_shipped])
    pcv, ppicked = cross_validated({m: core[m] for m in packaged_grid}, packaged_grid)
    pcv_folds = [core[p][f] for f, p in enumerate(ppicked)]
    line("cms packaged, cross-validated", pcv_folds, pcv)
    print(
        "  (context/semantic weights picked per fold on the other four: "
        + ", ".join("/".join(p.split()[1:]) for p in ppicked)
        + ")"
    )
    print("by category (cms lexical, shipped):")
    everything = flat(per_fold[shipped])
    for category in sorted({r[0] for r in everything}):
        subset = [r for r in everything if r[0] == category]
        print(row(f"  category {category} ({len(subset)})", subset))


if __name__ == "__main__":
    main()
