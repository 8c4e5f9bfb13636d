"""Reading model answers: JSON extraction, the number-only search answer, observations."""

from __future__ import annotations

import pytest

from cms.errors import ProviderError
from cms.providers.anthropic_api import AnthropicProvider
from cms.providers.model_calls import (
    ask_for_observations,
    ask_for_ops,
    extract_json,
    parse_selection,
    select_with_model,
)
from tests.fakes.anthropic_server import FakeAnthropicServer

from .conftest import log_lines, make_config

FACTS = [
    "1. [Storage > Database] SQLite chosen for usage",
    "2. [Storage > Database] WAL mode on",
    "3. [Build > Tests] Run tests with pytest -q",
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"ops": []}', {"ops": []}),
        (
            '  \n{"ops": [{"op": "delete_sat", "sat": "F1"}]}\n',
            {"ops": [{"op": "delete_sat", "sat": "F1"}]},
        ),
        ('```json\n{"ops": []}\n```', {"ops": []}),
        ('```\n{"ops": []}\n```', {"ops": []}),
        (
            'Sure! [note] Here it is: {"ops": [{"op": "inc_mass", "planet": "P1"}]} Hope it helps {x}',
            {"ops": [{"op": "inc_mass", "planet": "P1"}]},
        ),
    ],
)
def test_extract_json_finds_the_object_in_prose_and_fences(text: str, expected: object) -> None:
    assert extract_json(text, dict) == expected


@pytest.mark.parametrize("text", ["", "no json here", "{broken: json", "```json\n{nope\n```"])
def test_extract_json_rejects_answers_without_json(text: str) -> None:
    with pytest.raises(ValueError):
        extract_json(text, dict)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", [2]),
        ("3, 1", [2, 0]),
        ("[2, 2, 3]", [1, 2]),
        ("1\n2\n3", [0, 1]),
        (" 2 ; 1. ", [1, 0]),
    ],
)
def test_parse_selection_turns_numbers_into_zero_based_indexes(
    text: str, expected: list[int]
) -> None:
    assert parse_selection(text, 3, 2) == expected


@pytest.mark.parametrize(
    "text", ["", "none", "0", "4", "1, 7", "Fact 2 is best", "2: WAL mode", "-1"]
)
def test_parse_selection_rejects_text_empty_and_out_of_range(text: str) -> None:
    with pytest.raises(ValueError):
        parse_selection(text, 3, 5)


def _select(answer: str, server: FakeAnthropicServer) -> list[int]:
    server.push(answer)
    config = make_config(search_model="claude-search-model")
    return select_with_model(
        AnthropicProvider(config.provider),
        config,
        query="which journal mode?",
        numbered_facts=FACTS,
        k=2,
        project="p",
    )


def test_select_with_model_returns_the_picked_indexes(api_env: FakeAnthropicServer) -> None:
    assert _select("2, 1", api_env) == [1, 0]
    request = api_env.message_requests[0]
    assert request.body["model"] == "claude-search-model"
    assert "which journal mode?" in request.all_text
    assert "2. [Storage > Database] WAL mode on" in request.all_text
    assert "2. 2." not in request.all_text  # already numbered lines are not numbered twice
    assert "numbers" in str(request.body["system"]).lower()


@pytest.mark.parametrize("answer", ["garbage !!", "9", "0", "The second fact.", ""])
def test_select_with_model_raises_on_unusable_answers(
    api_env: FakeAnthropicServer, answer: str
) -> None:
    with pytest.raises(ProviderError, match="search answer unusable"):
        _select(answer, api_env)
    assert len(log_lines("provider_error")) == 1


def test_select_with_model_numbers_plain_lines_itself(api_env: FakeAnthropicServer) -> None:
    api_env.push("1")
    config = make_config()
    picked = select_with_model(
        AnthropicProvider(config.provider),
        config,
        query="q",
        numbered_facts=["alpha fact", "beta fact"],
        k=3,
        project="p",
    )
    assert picked == [0]
    assert "1. alpha fact\n2. beta fact" in api_env.message_requests[0].all_text


def test_select_with_model_with_no_facts_makes_no_call(api_env: FakeAnthropicServer) -> None:
    config = make_config()
    provider = AnthropicProvider(config.provider)
    assert select_with_model(provider, config, query="q", numbered_facts=[], k=3, project="p") == []
    assert api_env.message_requests == []


def test_a_json_answer_that_is_not_an_object_is_a_provider_error(
    api_env: FakeAnthropicServer,
) -> None:
    api_env.push('"just a string"')
    config = make_config()
    with pytest.raises(ProviderError, match="not an object"):
        ask_for_ops(
            AnthropicProvider(config.provider),
            config,
            map_view="",
            exchange_text="x",
            reasons=None,
            project="p",
        )


def test_a_bare_list_of_ops_is_accepted_as_the_ops_object(api_env: FakeAnthropicServer) -> None:
    api_env.push('[{"op": "inc_mass", "planet": "P1"}]')
    config = make_config()
    answer = ask_for_ops(
        AnthropicProvider(config.provider),
        config,
        map_view="",
        exchange_text="x",
        reasons=None,
        project="p",
    )
    assert answer == {"ops": [{"op": "inc_mass", "planet": "P1"}]}


OBSERVATIONS = """Here you go:
[{"kind": "decision", "title": "Usage in SQLite", "body": "WAL mode for many writers.",
  "files": ["cms/providers/usage.py", " cms/providers/usage.py "], "importance": 4},
 {"kind": "rumour", "title": "x", "body": "y"},
 {"kind": "command", "title": "Run tests", "body": "PYTHONPATH=. python -m pytest -q"}]"""


def test_observations_are_validated_item_by_item(api_env: FakeAnthropicServer) -> None:
    api_env.push(OBSERVATIONS)
    config = make_config(observe_model="claude-observe-model")
    found = ask_for_observations(
        AnthropicProvider(config.provider),
        config,
        session_text="we picked sqlite",
        project="p",
        known_titles=["Old title already stored"],
    )
    assert found == [
        {
            "kind": "decision",
            "title": "Usage in SQLite",
            "body": "WAL mode for many writers.",
            "files": ["cms/providers/usage.py"],
            "importance": 4,
            "replaces": [],
        },
        {
            "kind": "command",
            "title": "Run tests",
            "body": "PYTHONPATH=. python -m pytest -q",
            "files": [],
            "importance": 3,
            "replaces": [],
        },
    ]
    assert len(log_lines("observation_rejected")) == 1
    request = api_env.message_requests[0]
    assert request.body["model"] == "claude-observe-model"
    assert "Old title already stored" in request.all_text and "we picked sqlite" in request.all_text


def test_an_observation_names_only_offered_items_as_replaced(api_env: FakeAnthropicServer) -> None:
    api_env.push(
        '[{"kind": "decision", "title": "Staging port", "body": "Staging Postgres is on 6543.",'
        ' "replaces": ["O7", "O7", "O99", "x/F1"]}]'
    )
    config = make_config()
    found = ask_for_observations(
        AnthropicProvider(config.provider),
        config,
        session_text="ops moved staging postgres to 6543",
        project="p",
        offered={"O7": "The staging database listens on 5433.", "ab12cd34/F3": "Use uv."},
    )
    assert [f["replaces"] for f in found] == [["O7"]]
    assert len(log_lines("observation_rejected")) == 3  # O7 twice, O99 and x/F1 never offered
    prompt = api_env.message_requests[0].all_text
    assert (
        "O7: The staging database listens on 5433." in prompt and "ab12cd34/F3: Use uv." in prompt
    )


@pytest.mark.parametrize("answer", ['{"ops": []}', "nothing to add", '[{"kind": "bad"}]'])
def test_unusable_observation_answers_raise(api_env: FakeAnthropicServer, answer: str) -> None:
    api_env.push(answer)
    config = make_config()
    with pytest.raises(ProviderError):
        ask_for_observations(
            AnthropicProvider(config.provider), config, session_text="s", project="p"
        )


def test_an_empty_observation_list_is_a_valid_answer(api_env: FakeAnthropicServer) -> None:
    api_env.push("[]")
    config = make_config()
    assert (
        ask_for_observations(
            AnthropicProvider(config.provider), config, session_text="s", project="p"
        )
        == []
    )
