"""What SessionStart and UserPromptSubmit inject: the index, deltas, observations, the cap."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cms import paths
from cms.hooks import inject
from cms.hooks.runner import handle_hook
from cms.map.ops import apply_answer
from cms.map.store import edit_map
from cms.observations.access import open_project_memory
from cms.observations.model import NewObservation
from tests.hooks.helpers import (
    assert_clean_reply,
    build_map,
    context_of,
    hook_env,
    run_hook_process,
)

SESSION = "chat-inject-1"


def call(event: str, payload: dict[str, object]) -> str | None:
    """The hook's reply, in process (the same code path as `cms hook`, minus stdin)."""
    return handle_hook(event, json.dumps(payload).encode("utf-8"))


def reply_context(event: str, payload: dict[str, object]) -> str:
    reply = call(event, payload)
    assert reply is not None
    return context_of(json.loads(reply), event)


def apply_ops(session: str, ops: list[dict[str, object]]) -> None:
    def change(cmap):  # type: ignore[no-untyped-def]
        report = apply_answer(cmap, {"ops": ops})
        assert report.accepted, report.reasons()
        return report, report.changed

    edit_map(paths.map_path(session), change, session_id=session, project="p")


def assert_framed(text: str, session: str) -> None:
    lines = text.splitlines()
    assert lines[0] == inject.OPEN_TAG
    assert lines[1] == inject.PREAMBLE
    assert lines[-1] == inject.CLOSE_TAG
    assert lines[-2].startswith("To read stored facts verbatim run: ")
    assert f"search --session {shlex.quote(session)}" in lines[-2]
    assert len(text) <= inject.HARD_CAP


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact"])
def test_session_start_injects_the_map_index_for_every_source(tmp_path: Path, source: str) -> None:
    build_map(SESSION, suns=2, planets_per_sun=3, facts_per_planet=2)
    payload = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "source": source,
        "hook_event_name": "SessionStart",
    }
    done = run_hook_process("SessionStart", payload)
    text = context_of(assert_clean_reply(done), "SessionStart")
    assert_framed(text, SESSION)
    assert "Subtopic 1.2" in text and "Topic 0" in text
    assert "fact 0.0.0" not in text  # titles only, never fact texts


def test_session_start_with_nothing_stored_prints_nothing(tmp_path: Path) -> None:
    done = run_hook_process(
        "SessionStart", {"session_id": "new-chat", "cwd": str(tmp_path), "source": "startup"}
    )
    assert assert_clean_reply(done) is None


def test_a_new_chat_of_a_project_with_only_passages_still_gets_the_search_command(
    tmp_path: Path,
) -> None:
    from cms.observations.factsync import index_passages

    memory = open_project_memory(str(tmp_path), create=True)
    assert memory is not None
    said = [("user", "The nightly export runs at 02:15 UTC from the reports cron.")]
    memory.store.write(lambda c: index_passages(c, "old-chat", 1, said, now=1000.0))
    memory.close()
    text = reply_context(
        "SessionStart", {"session_id": "new-chat", "cwd": str(tmp_path), "source": "startup"}
    )
    assert_framed(text, "new-chat")
    assert "[Project memory]" in text and "02:15" not in text  # pointed at, not pushed
    command = text.splitlines()[-2].removeprefix("To read stored facts verbatim run: ")
    done = subprocess.run(
        ["sh", "-c", command.replace('"<query>"', "'nightly export'")],
        capture_output=True, text=True, env=hook_env(), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "02:15 UTC" in done.stdout, done.stderr


def test_session_start_text_is_identical_for_the_same_map(tmp_path: Path) -> None:
    build_map(SESSION, suns=3, planets_per_sun=4, facts_per_planet=1)
    payload = {"session_id": SESSION, "cwd": str(tmp_path), "source": "resume"}
    assert call("SessionStart", payload) == call("SessionStart", payload)


def test_prompt_hook_is_silent_until_the_map_changes_then_sends_only_the_change(
    tmp_path: Path,
) -> None:
    cmap = build_map(SESSION, suns=2, planets_per_sun=5, facts_per_planet=3)
    payload = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "prompt": "hello",
        "transcript_path": str(tmp_path / "t.jsonl"),
    }
    first = context_of(
        assert_clean_reply(run_hook_process("UserPromptSubmit", payload)), "UserPromptSubmit"
    )
    assert "[Chat map index]" in first
    assert assert_clean_reply(run_hook_process("UserPromptSubmit", payload)) is None

    sun = cmap.suns[0].id
    apply_ops(
        SESSION,
        [
            {
                "op": "add_planet",
                "sun": sun,
                "title": "Deploy window",
                "sats": ["the deploy runs at noon"],
            }
        ],
    )
    third = context_of(
        assert_clean_reply(run_hook_process("UserPromptSubmit", payload)), "UserPromptSubmit"
    )
    assert_framed(third, SESSION)
    assert "[Chat map index update: now 2 topics, 11 subtopics, 31 facts" in third
    assert "+ Topic 0" in third and "/ Deploy window (mass 1, 1 fact)" in third
    assert "Subtopic 0.1" not in third  # unchanged subtopics are not repeated
    assert len(third) < len(first)
    assert assert_clean_reply(run_hook_process("UserPromptSubmit", payload)) is None


def test_more_facts_or_mass_alone_do_not_resend_the_index(tmp_path: Path) -> None:
    cmap = build_map(SESSION, suns=1, planets_per_sun=3, facts_per_planet=1)
    payload = {"session_id": SESSION, "cwd": str(tmp_path), "prompt": "hi", "transcript_path": "/x"}
    assert call("UserPromptSubmit", payload) is not None
    planet = cmap.suns[0].planets[0].id
    apply_ops(
        SESSION,
        [
            {"op": "add_sat", "planet": planet, "text": "one more fact"},
            {"op": "inc_mass", "planet": planet},
        ],
    )
    assert call("UserPromptSubmit", payload) is None
    text = reply_context("SessionStart", {**payload, "source": "resume"})
    assert "(mass 2, 2 facts)" in text  # the next full index carries the new counts


def test_an_archived_subtopic_is_announced(tmp_path: Path) -> None:
    Path(paths.config_path()).write_text("[map]\nmax_planets = 3\n", encoding="utf-8")
    cmap = build_map(SESSION, suns=1, planets_per_sun=3, facts_per_planet=1)
    payload = {"session_id": SESSION, "cwd": str(tmp_path), "prompt": "hi", "transcript_path": "/x"}
    assert call("UserPromptSubmit", payload) is not None
    from cms.map.ops import apply_answer as apply_with_cap

    def change(c):  # type: ignore[no-untyped-def]
        report = apply_with_cap(
            c,
            {"ops": [{"op": "add_planet", "sun": cmap.suns[0].id, "title": "Newcomer"}]},
            max_planets=3,
        )
        return report, report.changed

    edit_map(paths.map_path(SESSION), change, session_id=SESSION, project="p")
    text = reply_context("UserPromptSubmit", payload)
    assert "/ Newcomer (mass 1, 0 facts)" in text
    assert "(archived; still searchable)" in text


def test_session_start_resets_what_the_chat_has_seen(tmp_path: Path) -> None:
    build_map(SESSION, suns=1, planets_per_sun=2, facts_per_planet=1)
    prompt = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "prompt": "hi",
        "transcript_path": "/x.jsonl",
    }
    assert call("UserPromptSubmit", prompt) is not None
    assert call("UserPromptSubmit", prompt) is None
    assert (
        call("SessionStart", {"session_id": SESSION, "cwd": str(tmp_path), "source": "compact"})
        is not None
    )
    assert call("UserPromptSubmit", prompt) is None  # the compacted chat just got the index


def test_each_injection_is_logged_with_its_size_and_the_first_prompt_names_the_chat(
    tmp_path: Path,
) -> None:
    build_map(SESSION, suns=1, planets_per_sun=2, facts_per_planet=1)
    start = reply_context("SessionStart", {"session_id": SESSION, "cwd": str(tmp_path)})
    secret = "sk-ant-api03-" + "x" * 40
    prompt = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "prompt": f"Set up the deploy with key {secret} please",
        "transcript_path": "/x.jsonl",
    }
    assert call("UserPromptSubmit", prompt) is None  # SessionStart already showed the index
    prompt["prompt"] = "a later prompt"
    assert call("UserPromptSubmit", prompt) is None
    state = inject.load_state(SESSION)
    assert state.first.startswith("Set up the deploy with key ")
    assert secret not in state.first and secret not in Path(inject.state_path(SESSION)).read_text(
        encoding="utf-8"
    )
    assert [entry[1:3] for entry in state.log] == [["SessionStart", len(start)]]
    call("SessionStart", {"session_id": SESSION, "cwd": str(tmp_path), "source": "compact"})
    again = inject.load_state(SESSION)
    assert [entry[1] for entry in again.log] == ["SessionStart", "SessionStart"]
    assert again.first == state.first  # a compacted chat keeps its name


def test_injected_text_stays_under_the_cap_with_a_huge_map(tmp_path: Path) -> None:
    build_map(SESSION, suns=40, planets_per_sun=30, facts_per_planet=1, title_chars=80)
    text = reply_context(
        "SessionStart", {"session_id": SESSION, "cwd": str(tmp_path), "source": "startup"}
    )
    assert len(text) <= 9500
    assert_framed(text, SESSION)
    assert "smaller subtopics not listed" in text
    build_map(SESSION, suns=40, planets_per_sun=30, facts_per_planet=2, title_chars=80)
    changed = reply_context(
        "UserPromptSubmit",
        {"session_id": SESSION, "cwd": str(tmp_path), "prompt": "x", "transcript_path": "/x"},
    )
    assert len(changed) <= 9500  # 1,200 changed planets: the delta is capped as well
    assert_framed(changed, SESSION)


def test_a_smaller_configured_cap_is_respected(tmp_path: Path) -> None:
    Path(paths.config_path()).write_text("[hooks]\ninject_max_chars = 1200\n", encoding="utf-8")
    build_map(SESSION, suns=10, planets_per_sun=10, facts_per_planet=1, title_chars=60)
    text = reply_context(
        "SessionStart", {"session_id": SESSION, "cwd": str(tmp_path), "source": "startup"}
    )
    assert len(text) <= 1200
    assert_framed(text, SESSION)


def test_the_printed_search_command_runs_and_finds_a_stored_fact(tmp_path: Path) -> None:
    build_map(SESSION, suns=1, planets_per_sun=1, facts_per_planet=3)
    text = reply_context(
        "SessionStart", {"session_id": SESSION, "cwd": str(tmp_path), "source": "startup"}
    )
    line = text.splitlines()[-2]
    command = line.removeprefix("To read stored facts verbatim run: ").replace(
        '"<query>"', "subject"
    )
    done = subprocess.run(
        ["sh", "-c", command],
        capture_output=True,
        text=True,
        env=hook_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "fact 0.0.0 about the subject" in done.stdout


def test_search_command_prefers_the_running_cms_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "my env" / "bin" / "cms"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", [str(script), "hook", "UserPromptSubmit"])
    assert inject.cms_executable() == shlex.quote(str(script))
    monkeypatch.setattr(sys, "argv", ["/nowhere/__main__.py"])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert inject.cms_executable() == f"{shlex.quote(sys.executable)} -m cms"


def test_search_line_names_a_non_default_cms_home() -> None:
    line = inject.search_command_line("abc def")
    assert f"CMS_HOME={shlex.quote(str(Path(paths.cms_home()).absolute()))} " in line
    assert "--session 'abc def'" in line


@pytest.mark.parametrize(
    "word",
    ["", "plain", "a b", "it's", 'say "hi"', "$HOME", "x;rm -rf", "tab\there", "é", "@%+=:,./-_"],
)
def test_shell_words_are_quoted_exactly_as_shlex_quotes_them(word: str) -> None:
    assert inject.shell_word(word) == shlex.quote(word)


def _store_notes(cwd: Path) -> None:
    memory = open_project_memory(cwd, create=True)
    assert memory is not None
    with memory:
        memory.store.add(
            NewObservation(
                "decision",
                "Use Postgres 16 for the billing service",
                "Chosen over DynamoDB for joins.",
                importance=5,
            )
        )
        memory.store.add(
            NewObservation(
                "command", "Run the linter with ruff check", "ruff check cms tests", importance=2
            )
        )


def test_prompt_gets_relevant_observations_once(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _store_notes(project)
    payload = {
        "session_id": SESSION,
        "cwd": str(project),
        "transcript_path": "/x",
        "prompt": "which database does the billing service use, postgres?",
    }
    text = reply_context("UserPromptSubmit", payload)
    assert_framed(text, SESSION)
    assert "Use Postgres 16 for the billing service" in text
    assert "ruff" not in text
    assert call("UserPromptSubmit", payload) is None  # already shown in this chat


def test_session_start_briefs_the_top_observations(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _store_notes(project)
    text = reply_context(
        "SessionStart", {"session_id": "fresh", "cwd": str(project), "source": "startup"}
    )
    assert "[Project observations from earlier sessions]" in text
    assert text.index("Use Postgres 16") < text.index("Run the linter")


def test_index_delta_lists_new_and_archived_subtopics_only() -> None:
    from cms.hooks.indexview import IndexView

    old = {"P1": ["A", "one", 1, 1], "P2": ["A", "two", 1, 1], "P3": ["B", "gone", 2, 5]}
    view = IndexView(
        "text",
        {"P1": ["A", "one", 1, 1], "P2": ["A", "two", 2, 3], "P9": ["C", "new", 1, 0]},
        "3 topics",
    )
    assert inject.structure_changed(old, view)
    assert inject.delta_lines(old, view) == [
        "+ C / new (mass 1, 0 facts)",
        "- B / gone (archived; still searchable)",
    ]
    same = IndexView(
        "text", {"P1": ["A", "one", 9, 9], "P2": ["A", "two", 1, 1], "P3": ["B", "gone", 2, 6]}, "x"
    )
    assert not inject.structure_changed(old, same)


def test_compose_drops_observations_before_the_index_and_keeps_the_frame() -> None:
    index = ["[Chat map index]", *(f"- topic {i}" for i in range(50))]
    notes = ["[notes]", *(f"- note {i} " + "x" * 80 for i in range(50))]
    text = inject.compose_context([index, notes], "s", 1500)
    assert len(text) <= 1500
    assert "- topic 0" in text
    assert text.endswith(inject.CLOSE_TAG)
    assert inject.compose_context([], "s", 1500) == ""


def test_a_receipt_line_tells_items_characters_and_budget_when_asked_for(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _store_notes(project)
    build_map(SESSION, suns=1, planets_per_sun=2, facts_per_planet=1)
    start = {"session_id": SESSION, "cwd": str(project), "source": "startup"}
    plain = reply_context("SessionStart", start)
    assert "[cms:" not in plain  # off by default
    Path(paths.config_path()).write_text(
        "[hooks]\ninject_max_chars = 3000\nreceipt = true\n", encoding="utf-8"
    )
    text = reply_context("SessionStart", start)
    assert_framed(text, SESSION)
    receipt = text.splitlines()[-3]
    items = sum(line.startswith("- ") for line in text.splitlines()) + 2  # + 2 index lines
    assert receipt == f"[cms: {items} items, {len(text):,} of 3,000 characters]"
    prompt = {**start, "session_id": "another-chat", "prompt": "which database for billing?"}
    assert reply_context("UserPromptSubmit", prompt).splitlines()[-3].startswith("[cms: ")


def test_a_receipt_that_is_not_a_boolean_is_a_config_error() -> None:
    from cms.config import parse_config
    from cms.errors import ConfigError

    with pytest.raises(ConfigError, match=r"hooks\.receipt: expected true or false"):
        parse_config({"hooks": {"receipt": "yes"}})
