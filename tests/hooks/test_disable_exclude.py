"""CMS_DISABLE=1 and the config's exclude globs make every hook a silent no-op."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms import paths
from cms.config import CACHE_NAME
from cms.hooks.runner import is_excluded
from tests.hooks.helpers import (
    EVENTS,
    assert_clean_reply,
    build_map,
    hook_env,
    numbered_turn,
    run_hook_process,
    write_transcript,
)

SESSION = "chat-quiet"


def tree_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file's size and time, but the parsed-config cache (reading the config that names
    the excluded folders may write it; it holds no memory)."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.name != CACHE_NAME
    }


def payload_for(event: str, cwd: Path, transcript: Path) -> dict[str, object]:
    return {
        "session_id": SESSION,
        "cwd": str(cwd),
        "transcript_path": str(transcript),
        "hook_event_name": event,
        "source": "startup",
        "prompt": "what about postgres?",
        "last_assistant_message": "Decided on postgres.",
        "reason": "other",
    }


@pytest.mark.parametrize("event", EVENTS)
def test_cms_disable_prints_nothing_and_touches_nothing(tmp_path: Path, event: str) -> None:
    build_map(SESSION, suns=1, planets_per_sun=2, facts_per_planet=1)
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    before = tree_state(Path(paths.cms_home()))
    done = run_hook_process(
        event, payload_for(event, tmp_path, transcript), env=hook_env({"CMS_DISABLE": "1"})
    )
    assert assert_clean_reply(done) is None
    assert done.stdout == b""
    assert tree_state(Path(paths.cms_home())) == before


@pytest.mark.parametrize("event", EVENTS)
def test_an_excluded_folder_is_skipped_by_every_hook(tmp_path: Path, event: str) -> None:
    Path(paths.config_path()).write_text(
        f'[hooks]\nexclude = ["{tmp_path}/secret-*", "~/private"]\n', encoding="utf-8"
    )
    build_map(SESSION, suns=1, planets_per_sun=2, facts_per_planet=1)
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    excluded = tmp_path / "secret-project" / "src"
    excluded.mkdir(parents=True)
    before = tree_state(Path(paths.cms_home()))
    done = run_hook_process(
        event, payload_for(event, excluded, transcript), env=hook_env({"CMS_SYNC": "1"})
    )
    assert assert_clean_reply(done) is None
    assert tree_state(Path(paths.cms_home())) == before


def test_a_folder_outside_the_exclude_globs_still_gets_its_index(tmp_path: Path) -> None:
    Path(paths.config_path()).write_text(
        f'[hooks]\nexclude = ["{tmp_path}/secret-*"]\n', encoding="utf-8"
    )
    build_map(SESSION, suns=1, planets_per_sun=2, facts_per_planet=1)
    open_folder = tmp_path / "public-project"
    open_folder.mkdir()
    done = run_hook_process(
        "SessionStart", payload_for("SessionStart", open_folder, tmp_path / "t.jsonl")
    )
    assert assert_clean_reply(done) is not None


def test_exclude_patterns_cover_subfolders_and_home() -> None:
    home = str(Path.home())
    assert is_excluded("/work/secret/app", ("/work/secret",))
    assert is_excluded("/work/secret", ("/work/secret/",))
    assert is_excluded("/work/secret-x/deep/er", ("/work/secret-*",))
    assert is_excluded(f"{home}/private/notes", ("~/private",))
    assert not is_excluded("/work/secretive", ("/work/secret",))
    assert not is_excluded("/work/app", ())
