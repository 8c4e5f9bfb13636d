"""The statement reader tells a user's rule or decision from the rest, judged on labelled
sentences it was not fitted on (the sealed set), and refuses weights it cannot trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cms.language.statements import WEIGHTS, StatementReader, StatementWeightsError
from cms.observations.capture import offline_kind, said_in

SEALED = Path(__file__).parents[1] / "data" / "user_statements_sealed.json"
RULE_KINDS = ("rule", "preference")


def test_on_sealed_user_sentences_the_reader_keeps_precision_and_recall_floors() -> None:
    reader = StatementReader()
    units = json.loads(SEALED.read_text(encoding="utf-8"))["units"]
    accepted = stated = right = kinds = 0
    for unit in units:
        reading = reader.read(unit["text"])
        said = unit["label"] == "statement"
        stated += said
        accepted += reading.states
        if reading.states and said:
            right += 1
            kinds += (reading.kind == "rule") == (unit["kind"] in RULE_KINDS)
    precision, recall = right / accepted, right / stated
    # measured 0.793 and 0.613 (kind 0.790) when the weights were fitted on the dev labels
    assert precision >= 0.75, precision
    assert recall >= 0.55, recall
    assert kinds / right >= 0.70, kinds / right


def test_weights_fitted_on_another_meaning_model_are_refused(tmp_path: Path) -> None:
    data = json.loads(Path(WEIGHTS).read_text(encoding="utf-8"))
    data["meaning_model"] = "some-other-model"
    path = tmp_path / "statements.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(StatementWeightsError, match="fitted on some-other-model"):
        StatementReader(str(path))


def test_weights_of_the_wrong_size_or_missing_are_refused(tmp_path: Path) -> None:
    data = json.loads(Path(WEIGHTS).read_text(encoding="utf-8"))
    data["statement"]["weights"] = data["statement"]["weights"][:-1]
    path = tmp_path / "statements.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(StatementWeightsError, match="weights for"):
        StatementReader(str(path))
    with pytest.raises(StatementWeightsError, match="cannot read"):
        StatementReader(str(tmp_path / "missing.json"))


def test_only_the_users_own_words_are_read_as_rules_or_decisions() -> None:
    prompt = "can you add a JSON error handler to the API"
    narration = "I added app/errors.py with a handler that returns the JSON error format."
    assert not said_in(narration, prompt)
    assert offline_kind(narration, "preference", prompt) == "learning"
    assert offline_kind(narration, "bugfix", prompt) == "bugfix"


def test_a_question_of_the_user_is_not_a_rule_in_force() -> None:
    prompt = "should we move the reminder emails to a redis queue?"
    assert said_in("Should we move the reminder emails to a redis queue?", prompt)
    kind = offline_kind("Should we move the reminder emails to a redis queue?", "decision", prompt)
    assert kind == "learning"
