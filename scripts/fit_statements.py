"""Fit cms/language/model/statements.json (cms.language.statements) from labelled user sentences.

Owns the one reproducible recipe for those weights; run by hand, never imported by cms. Reads
tests/data/user_statements.json (user sentences of ../shared/data/scenarios/dev.json, each
labelled statement/other, and for statements rule/decision/fact/preference; labelled by a helper
that read no code), encodes each with the packaged meaning model, and fits two L2-regularised
logistic scores by gradient descent (numpy, deterministic): statement against other, and among
statements, rule or preference against decision or fact. Before fitting on everything it
reports precision and recall cross-validated by project (every project's sentences scored by a
fit on the other folds), which is the figure docs/benchmarks.md quotes; the threshold is the
one whose cross-validated F1 is best, rounded to 0.05.

Usage: python scripts/fit_statements.py [--labels FILE] [--out FILE] [--folds N] [--check]
  --check: report the cross-validated figures and the fit's figures only, write nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cms.language.meaning import load_model  # noqa: E402
from cms.language.statements import SHAPES, WEIGHTS, features  # noqa: E402

LABELS = ROOT / "tests" / "data" / "user_statements.json"
L2 = 1.0  # on the mean loss scale: 1 / (number of units) per unit of weight norm squared
STEPS = 3000
RATE = 0.5
RULE_KINDS = ("rule", "preference")
PRECISION_BETA = 0.5  # the statement threshold maximises F0.5


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
    return list(json.loads(path.read_text(encoding="utf-8"))["units"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--out", type=Path, default=Path(WEIGHTS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    units = load(args.labels)
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
    fp, fr, _ = scores_at(probabilities(x, w, b), y, threshold)
    print(f"  fitted on all (not a measure): precision {fp:.3f} recall {fr:.3f}")
    if args.check:
        return 0
    data = {
        "format": "cms-statements/1",
        "meaning_model": model.model_id,
        "features": f"meaning vector ({model.dims}) then shapes {list(SHAPES)}",
        "fitted_on": f"{args.labels.name}: {len(units)} units",
        "statement": {
            "weights": [round(float(v), 6) for v in w],
            "bias": round(b, 6),
            "threshold": threshold,
        },
        "rule": {
            "weights": [round(float(v), 6) for v in wr],
            "bias": round(br, 6),
            "threshold": rule_threshold,
        },
        "cross_validated": {
            "statement_precision": round(p, 3),
            "statement_recall": round(r, 3),
            "rule_kind_right": round(right, 3),
            "folds": args.folds,
        },
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
