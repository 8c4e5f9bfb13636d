"""Each exchange is applied to a chat map once (issue 13, item 6): a Stop repeated for the same
exchange (the same last transcript record) changes nothing the second and third time."""

from __future__ import annotations

from pathlib import Path

from cms import paths
from cms.config import Config
from cms.map.store import load_map
from cms.transcripts.exchange import Exchange
from cms.worker.update import APPLIED_FILE, APPLIED_KEEP, exchange_key, update_chat_map
from tests.hooks.helpers import (
    assert_clean_reply,
    hook_env,
    numbered_turn,
    run_hook_process,
    write_transcript,
)

SESSION = "chat-once-1"


def exchange(record: str | None, turn: int = 1) -> Exchange:
    return Exchange(
        user="We decided to keep sessions in Redis 7. Please note it.",
        assistant="Decision recorded: sessions live in Redis 7; updated src/session.py.",
        turn=turn,
        extra={"last_record": record} if record else {},
    )


def update(path: Path, ex: Exchange) -> int:
    report = update_chat_map(
        path, ex, config=Config(), session_id=SESSION, project="p", provider=None
    )
    return len(report.accepted)


def masses(path: Path) -> list[int]:
    return [p.mass for sun in load_map(path).suns for p in sun.planets]


def test_the_same_exchange_three_times_is_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "chat" / "map.json"
    assert update(path, exchange("uuid-9")) > 0
    first = path.read_bytes()
    assert update(path, exchange("uuid-9")) == 0
    assert update(path, exchange("uuid-9")) == 0
    assert path.read_bytes() == first


def test_a_later_exchange_of_the_chat_is_applied(tmp_path: Path) -> None:
    path = tmp_path / "chat" / "map.json"
    update(path, exchange("uuid-9"))
    before = masses(path)
    assert update(path, exchange("uuid-10", turn=2)) > 0
    assert masses(path) != before


def test_an_exchange_without_a_record_id_cannot_be_told_apart_and_is_applied(
    tmp_path: Path,
) -> None:
    path = tmp_path / "chat" / "map.json"
    assert exchange_key(exchange(None)) is None
    update(path, exchange(None))
    before = masses(path)
    update(path, exchange(None))
    assert masses(path) != before


def test_a_map_made_afresh_takes_the_same_exchange_again(tmp_path: Path) -> None:
    path = tmp_path / "chat" / "map.json"
    update(path, exchange("uuid-9"))
    path.unlink()  # e.g. `cms replay --fresh`
    assert update(path, exchange("uuid-9")) > 0


def test_the_kept_keys_are_bounded(tmp_path: Path) -> None:
    path = tmp_path / "chat" / "map.json"
    for n in range(APPLIED_KEEP + 20):
        update(path, exchange(f"uuid-{n}", turn=n + 1))
    kept = (path.parent / APPLIED_FILE).read_text(encoding="utf-8")
    assert kept.count('"claude_code:uuid-') == APPLIED_KEEP
    assert '"claude_code:uuid-0"' not in kept


def test_three_stops_for_the_same_exchange_leave_the_map_as_the_first_made_it(
    tmp_path: Path,
) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    payload = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "hook_event_name": "Stop",
        "transcript_path": str(transcript),
        "stop_hook_active": False,
    }
    maps = []
    for _ in range(3):
        assert_clean_reply(run_hook_process("Stop", payload, env=hook_env({"CMS_SYNC": "1"})))
        maps.append(Path(paths.map_path(SESSION)).read_bytes())
    assert maps[0] == maps[1] == maps[2]
    found = masses(paths.map_path(SESSION))
    assert found and found == [1] * len(found)


def test_a_corrupt_map_is_set_aside_and_the_chat_goes_on_with_a_new_one(tmp_path: Path) -> None:
    path = tmp_path / "chat" / "map.json"
    update(path, exchange("uuid-1"))
    broken = path.read_bytes()[:40]
    path.write_bytes(broken)
    assert update(path, exchange("uuid-2", turn=2)) > 0
    assert load_map(path).suns
    (aside,) = [p for p in path.parent.iterdir() if p.name.startswith("map.json.corrupt-")]
    assert aside.read_bytes() == broken
    assert "map_set_aside" in Path(paths.log_path()).read_text(encoding="utf-8")
