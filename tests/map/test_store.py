"""Map files: exact round trips, atomic replacement, damaged files kept and reported."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from cms.errors import CorruptMapError, MapNotFoundError, MapVersionError
from cms.map.model import new_map
from cms.map.ops import apply_ops
from cms.map.store import dump_map, edit_map, load_map, save_map

NOW = "2026-11-30T00:00:00Z"


def _map():
    cmap = new_map("sess", "proj", NOW)
    apply_ops(
        cmap,
        [
            {
                "op": "add_sun",
                "title": "Ünïcode ✓",
                "planets": [{"title": "P", "sats": ["naïve — fact", "second"]}],
            }
        ],
        now=NOW,
    )
    return cmap


def test_save_then_load_round_trips_exactly(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    cmap = _map()
    save_map(path, cmap)
    loaded = load_map(path)
    assert loaded == cmap
    assert dump_map(loaded) == path.read_bytes()


def test_file_has_the_documented_top_level_keys(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    save_map(path, _map())
    data = orjson.loads(path.read_bytes())
    assert list(data) == [
        "version",
        "session_id",
        "project",
        "next_id",
        "created_at",
        "updated_at",
        "suns",
        "archive",
    ]
    assert data["suns"][0]["planets"][0]["satellites"][0]["id"] == "F3"


@pytest.mark.parametrize(
    ("content", "error", "message"),
    [
        (b'{"version": 1, "suns": [', CorruptMapError, "not valid JSON"),
        (b"", CorruptMapError, "not valid JSON"),
        (b"[]", CorruptMapError, "map is not an object"),
        (b'{"version": 1}', CorruptMapError, "map.suns is missing"),
        (b'{"version": 2, "suns": []}', MapVersionError, "version 2 is newer"),
    ],
)
def test_damaged_or_future_map_raises_one_line_error(
    tmp_path: Path, content: bytes, error: type[Exception], message: str
) -> None:
    path = tmp_path / "map.json"
    path.write_bytes(content)
    with pytest.raises(error, match=message) as info:
        load_map(path)
    assert "\n" not in str(info.value)


def test_duplicate_ids_or_ids_beyond_next_id_are_damage(tmp_path: Path) -> None:
    data = _map().to_dict()
    data["next_id"] = 3
    path = tmp_path / "map.json"
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(CorruptMapError, match="not below next_id"):
        load_map(path)


def test_edit_never_overwrites_a_damaged_map(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    path.write_bytes(b"{broken")
    with pytest.raises(CorruptMapError):
        edit_map(path, lambda m: (None, True), session_id="s", project="p")
    assert path.read_bytes() == b"{broken"


def test_edit_starts_a_new_map_when_none_exists(tmp_path: Path) -> None:
    path = tmp_path / "chat" / "map.json"
    edit_map(
        path,
        lambda m: (apply_ops(m, [{"op": "add_sun", "title": "A"}]), True),
        session_id="s",
        project="p",
    )
    assert load_map(path).suns[0].title == "A"
    with pytest.raises(MapNotFoundError):
        load_map(tmp_path / "nope.json")


def test_writer_killed_mid_write_leaves_the_previous_map(tmp_path: Path) -> None:
    """A child process writes huge maps in a loop and is SIGKILLed at a random moment."""
    path = tmp_path / "map.json"
    save_map(path, _map())
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from pathlib import Path
        from cms.map.store import load_map, save_map
        from cms.map.ops import apply_ops
        path = Path({str(path)!r})
        cmap = load_map(path)
        apply_ops(cmap, [{{"op": "add_sun", "title": "Big", "planets": [
            {{"title": f"p{{i}}", "sats": [("x" * 150) + str(j) for j in range(40)]}}
            for i in range(40)]}}], max_planets=1000)
        print("ready", flush=True)
        while True:
            save_map(path, cmap)
        """
    )
    for delay in (0.05, 0.13, 0.31):
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        load_map(path)  # always a whole map: old or new, never a torn file
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(leftovers) <= 3  # a killed writer may leave its temp file, never a torn map
