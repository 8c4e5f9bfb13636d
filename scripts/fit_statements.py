"""Measure a fitted reader of user statements: does a sentence the user wrote state a rule or
decision in force? (docs/benchmarks.md, "What is in force": tried, not adopted.)

Run by hand, never imported by cms. Reads tests/data/user_statements.json (the user sentences of
../shared/data/scenarios/dev.json, labelled statement/other by helpers that read no code) and
the user's sentences of tests/data/extractor_labels.json (MemoryCode mentors and real prompts: a
remembered or stale preference or decision is a statement, anything else other); encodes each
with the packaged meaning model plus four shape features (a question mark, holds a value, how
many, how long) and fits L2-regularised logistic scores by gradient descent (numpy,
deterministic): statement against other, and among statements rule or preference against
decision or fact. Reports precision and recall cross-validated by project (each project's
sentences scored by a fit on the other folds) at the threshold whose cross-validated F0.5 is
best (precision weighs more: what it accepts would be pushed to every new chat), then, fitted on
all of it, the figures on the sealed labels (tests/data/user_statements_sealed.json), which are
read only here, as a scorer.

Usage: python scripts/fit_statements.py [--labels FILE] [--extractor-labels FILE] [--folds N]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cms.language.meaning import load_model  # noqa: E402
from cms.language.newest import values_of  # noqa: E402

LABELS = ROOT / "tests" / "data" / "user_statements.json"
SEALED = ROOT / "tests" / "data" / "user_statements_sealed.json"
EXTRACTOR_LABELS = ROOT / "tests" / "data" / "extractor_labels.json"
L2 = 1.0  # on the mean loss scale: 1 / (number of units) per unit of weight norm squared
STEPS = 3000
RATE = 0.5
RULE_KINDS = ("rule", "preference")
PRECISION_BETA = 0.5  # the statement threshold maximises F0.5


def features(text: str, vector: Sequence[float]) -> list[float]:
    """The meaning vector, then the sentence's shape: asks, holds a value, how many, how long."""
    stripped = text.rstrip()
    values = values_of(stripped)
    return [
        *vector,
        1.0 if stripped.endswith("?") else 0.0,
        1.0 if values else 0.0,
        min(len(values), 3) / 3,
        math.log1p(len(stripped.split())) / 4,
    ]


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2) -> tuple[np.ndarray, float]:
    """Logistic regression by full-batch gradient descent, balanced class weights."""
    w, b = np.zeros(x.shape[1]), 0.0
    positive = max(float(y.mean()), 1e-6)
    weight = np.where(y > 0, 0.5 / positive, 0.5 / max(1 - positive, 1e-6))
    n = len(y)
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * weight
        w -= RATE * (x.T @ g / n + l2 * w / n)
        b -= RATE * float(g.mean())
    return w, b


def probabilities(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-(x @ w + b))))


def folds_of(groups: Sequence[str], count: int) -> list[int]:
    """Each unit's fold: whole projects, dealt in sorted order."""
    names = sorted(set(groups))
    fold = {name: i % count for i, name in enumerate(names)}
    return [fold[g] for g in groups]


def cross_validated(x: np.ndarray, y: np.ndarray, folds: list[int]) -> np.ndarray:
    out = np.zeros(len(y))
    fold_arr = np.array(folds)
    for f in sorted(set(folds)):
        train, test = fold_arr != f, fold_arr == f
        w, b = fit(x[train], y[train])
        out[test] = probabilities(x[test], w, b)
    return out


def scores_at(
    p: np.ndarray, y: np.ndarray, threshold: float, beta: float = 1.0
) -> tuple[float, float, float]:
    """Precision, recall and F-beta of accepting the scores at or above threshold."""
    chosen = p >= threshold
    tp = float((chosen & (y > 0)).sum())
    precision = tp / max(float(chosen.sum()), 1.0)
    recall = tp / max(float((y > 0).sum()), 1.0)
    b2 = beta * beta
    f = (1 + b2) * precision * recall / max(b2 * precision + recall, 1e-9)
    return precision, recall, f


def best_threshold(p: np.ndarray, y: np.ndarray, beta: float = 1.0) -> float:
    grid = [round(t, 2) for t in np.arange(0.2, 0.85, 0.05)]
    return max(grid, key=lambda t: (scores_at(p, y, t, beta)[2], -abs(t - 0.5)))


def load(path: Path) -> list[dict[str, Any]]:
    """Labelled units: project, text, label (statement/other), kind."""
    return list(json.loads(path.read_text(encoding="utf-8"))["units"])


def load_extractor_users(path: Path) -> list[dict[str, Any]]:
    """The user's units of the extractor's gold labels, as statement/other units (the project
    is the source file, so that cross-validation keeps a dialogue in one fold)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    units = []
    for source in data["sources"]:
        for unit in source["units"]:
            if unit["speaker"] != "user":
                continue
            kind = unit.get("kind")
            said = unit["label"] in ("remember", "stale") and kind in ("preference", "decision")
            units.append(
                {
                    "project": source["file"],
                    "text": unit["text"],
                    "label": "statement" if said else "other",
                    "kind": kind if said else None,
                }
            )
    return units


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--extractor-labels", type=Path, default=EXTRACTOR_LABELS)
    parser.add_argument("--sealed", type=Path, default=SEALED)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args(argv)
    units = load(args.labels) + load_extractor_users(args.extractor_labels)
    model = load_model()
    x = np.array([features(u["text"], model.encode(u["text"])) for u in units])
    y = np.array([1.0 if u["label"] == "statement" else 0.0 for u in units])
    folds = folds_of([u["project"] for u in units], args.folds)
    cv = cross_validated(x, y, folds)
    threshold = best_threshold(cv, y, PRECISION_BETA)
    p, r, f1 = scores_at(cv, y, threshold)
    print(
        f"statement: {len(units)} units, {int(y.sum())} statements, {args.folds} folds by project"
    )
    print(f"  cross-validated at {threshold}: precision {p:.3f} recall {r:.3f} F1 {f1:.3f}")
    said = y > 0
    xs = x[said]
    ys = np.array(
        [1.0 if u["kind"] in RULE_KINDS else 0.0 for u in units if u["label"] == "statement"]
    )
    fs = [f for f, s in zip(folds, said, strict=True) if s]
    cv_rule = cross_validated(xs, ys, fs)
    rule_threshold = best_threshold(cv_rule, ys)
    rp, rr, _ = scores_at(cv_rule, ys, rule_threshold)
    right = float(((cv_rule >= rule_threshold) == (ys > 0)).mean())
    print(
        f"rule among statements ({int(ys.sum())} of {len(ys)}): cross-validated at "
        f"{rule_threshold}: precision {rp:.3f} recall {rr:.3f}, kind right {right:.3f}"
    )
    w, b = fit(x, y)
    wr, br = fit(xs, ys)
    sealed = load(args.sealed)
    xt = np.array([features(u["text"], model.encode(u["text"])) for u in sealed])
    yt = np.array([1.0 if u["label"] == "statement" else 0.0 for u in sealed])
    sp, sr, _ = scores_at(probabilities(xt, w, b), yt, threshold)
    accepted = (probabilities(xt, w, b) >= threshold) & (yt > 0)
    is_rule = probabilities(xt, wr, br) >= rule_threshold
    truth = np.array([u["kind"] in RULE_KINDS for u in sealed])
    kind_right = float((is_rule == truth)[accepted].mean()) if accepted.any() else 0.0
    print(
        f"sealed ({len(sealed)} units, {int(yt.sum())} statements), fitted on all: "
        f"precision {sp:.3f} recall {sr:.3f}, kind right {kind_right:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
