"""Whether a user's sentence states something in force (a rule, a convention, a decision, a fact
of the project's setup), and whether it is a standing rule or a choice.

Read by meaning and shape, not by phrases: the sentence's vector by the packaged static model
(cms.language.meaning) and a few shape features (a question mark, values such as ports,
versions, code spans and paths, its length) go into two linear scores fitted on a labelled
corpus by scripts/fit_statements.py (tests/data/user_statements.json; cross-validated figures
in docs/benchmarks.md). The weights ship in model/statements.json with the model id they were
fitted on. Standard library only; loaded by the worker, never by a hook. What an assistant says
is never read here: narration is not a statement of the user.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache

from cms.errors import CmsError
from cms.language.meaning import MODEL_DIR, load_model
from cms.language.newest import values_of

WEIGHTS = os.path.join(MODEL_DIR, "statements.json")
SHAPES = ("question", "has_value", "values", "words")  # the shape features, in weight order

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class StatementWeightsError(CmsError):
    """The fitted weights are missing, unreadable or fitted on another meaning model."""


def shape_features(text: str) -> list[float]:
    """The shape of a sentence, in SHAPES order: asks (ends with a question mark), holds a
    value, how many (capped at 3), how long (log of its words)."""
    stripped = text.rstrip()
    values = values_of(stripped)
    words = len(stripped.split())
    return [
        1.0 if stripped.endswith("?") else 0.0,
        1.0 if values else 0.0,
        min(len(values), 3) / 3,
        math.log1p(words) / 4,
    ]


def features(text: str, vector: Sequence[float]) -> list[float]:
    """What the scores weigh: the meaning vector, then the shape features."""
    return [*vector, *shape_features(text)]


@dataclass(frozen=True)
class LinearScore:
    """A fitted logistic score: weights over features(), a bias and the threshold it decides at."""

    weights: tuple[float, ...]
    bias: float
    threshold: float

    def probability(self, values: Sequence[float]) -> float:
        total = self.bias + math.fsum(w * x for w, x in zip(self.weights, values, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, total))))


@dataclass(frozen=True)
class Reading:
    """How a user's sentence reads: whether it states something in force, and its kind."""

    states: bool
    kind: str | None  # "rule" (a standing constraint) or "decision" (a choice, a setup fact)
    score: float


class StatementReader:
    """The two fitted scores: a statement at all, and a rule rather than a decision."""

    def __init__(self, path: str = WEIGHTS) -> None:
        self._model = load_model()
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            if data["meaning_model"] != self._model.model_id:
                raise StatementWeightsError(
                    f"{path} was fitted on {data['meaning_model']}, not {self._model.model_id}"
                )
            size = self._model.dims + len(SHAPES)
            self.statement, self.rule = (
                _score(data[name], size, path) for name in ("statement", "rule")
            )
        except OSError as exc:
            raise StatementWeightsError(f"cannot read {path}: {exc.strerror}") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise StatementWeightsError(f"{path} is unreadable ({exc})") from exc

    def read(self, text: str) -> Reading:
        values = features(text, self._model.encode(text))
        score = self.statement.probability(values)
        if score < self.statement.threshold:
            return Reading(False, None, score)
        rule = self.rule.probability(values) >= self.rule.threshold
        return Reading(True, "rule" if rule else "decision", score)


def _score(data: dict[str, object], size: int, path: str) -> LinearScore:
    weights = tuple(float(w) for w in data["weights"])  # type: ignore[attr-defined]
    if len(weights) != size:
        raise StatementWeightsError(f"{path} holds {len(weights)} weights for {size} features")
    return LinearScore(weights, float(data["bias"]), float(data["threshold"]))  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def statement_reader() -> StatementReader:
    """The reader, loaded once per process (the worker's)."""
    return StatementReader()


def read_statement(text: str) -> Reading | None:
    """How a user's sentence reads, or None when the reader cannot load (logged once; the
    caller keeps its other evidence)."""
    if _FAILED:
        return None
    try:
        reader = statement_reader()
    except CmsError as exc:
        if not _FAILED:
            _FAILED.append(True)
            from cms.log import log_event

            log_event("warning", "statement_reader_unusable", str(exc))
        return None
    return reader.read(text)


_FAILED: list[bool] = []
