"""SessionEnd and PreCompact capture with the local provider read the transcript's turns that
no Stop folded into the chat map, so a session whose Stops never ran still leaves memory."""

from __future__ import annotations

from pathlib import Path

from cms import paths
from cms.config import Config
from cms.map.store import load_map
from cms.observations.access import open_project_memory
from cms.worker.capture import run_capture
from tests.hooks.helpers import turn_lines, write_transcript

SESSION = "chat-no-stop-1"
PROMPTS = (
    "We write raw SQL with psycopg 3; never add an ORM to this repository.",
    "The deploy script lives in scripts/deploy.sh and must run from the repo root.",
)
ANSWERS = (
    "Understood: queries stay raw SQL through psycopg 3, and no ORM will be added.",
    "Noted. scripts/deploy.sh reads DEPLOY_ENV and fails without it.",
)


def transcript(tmp_path: Path) -> Path:
    turns = [
        turn_lines(SESSION, i, p, a)
        for i, (p, a) in enumerate(zip(PROMPTS, ANSWERS, strict=True), 1)
    ]
    return write_transcript(tmp_path / "t.jsonl", turns)


def stored_bodies(project: Path) -> list[str]:
    memory = open_project_memory(project, create=False)
    assert memory is not None
    with memory:
        return [o.body or o.title for o in memory.store.list_observations()]


def test_session_end_without_any_stop_captures_from_the_transcript(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    payload = {"transcript": str(transcript(tmp_path)), "cwd": str(project), "reason": "other"}
    summary = run_capture(SESSION, payload, Config(), force_local=True)
    assert "candidates=0" not in summary
    bodies = " ".join(stored_bodies(project))
    assert "psycopg 3" in bodies
    assert "scripts/deploy.sh" in bodies
    facts = [
        s.text for _, p, _ in load_map(paths.map_path(SESSION)).all_planets() for s in p.satellites
    ]
    assert any("ORM" in f for f in facts)


def test_capture_after_stops_does_not_fold_a_turn_twice(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    payload = {"transcript": str(transcript(tmp_path)), "cwd": str(project), "reason": "other"}
    run_capture(SESSION, payload, Config(), force_local=True)
    first = load_map(paths.map_path(SESSION)).to_dict()
    run_capture(SESSION, {**payload, "reason": "PreCompact"}, Config(), force_local=True)
    again = load_map(paths.map_path(SESSION)).to_dict()
    assert again["suns"] == first["suns"]
