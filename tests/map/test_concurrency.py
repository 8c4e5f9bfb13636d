"""Eight processes apply 50 batches each to one map while a reader keeps reading it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import orjson
import pytest

from cms.map.model import new_map
from cms.map.ops import apply_ops
from cms.map.store import load_map, save_map

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from cms.map.ops import apply_answer
    from cms.map.store import edit_map
    path, worker = Path(sys.argv[2]), sys.argv[3]
    for batch in range(50):
        answer = {"ops": [
            {"op": "add_sat", "planet": "P2", "text": f"writer {worker} batch {batch}"},
            {"op": "inc_mass", "planet": "P2"},
        ]}
        def change(cmap):
            report = apply_answer(cmap, answer, max_planets=50)
            assert len(report.accepted) == 2, report.reasons()
            return report, report.changed
        edit_map(path, change, session_id="s", project="p")
    """
)


@pytest.mark.slow
def test_eight_concurrent_writers_lose_nothing_and_readers_always_see_valid_json(
    tmp_path: Path,
) -> None:
    path = tmp_path / "map.json"
    cmap = new_map("s", "p")
    apply_ops(cmap, [{"op": "add_sun", "title": "Shared", "planets": [{"title": "Hot"}]}])
    save_map(path, cmap)

    stop = threading.Event()
    reads: list[int] = []
    errors: list[str] = []

    def reader() -> None:
        while not stop.is_set():
            try:
                orjson.loads(path.read_bytes())
                load_map(path)
                reads.append(1)
            except Exception as exc:  # noqa: BLE001 - any failure is a finding
                errors.append(repr(exc))

    thread = threading.Thread(target=reader)
    thread.start()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(ROOT), str(path), str(n)])
        for n in range(8)
    ]
    codes = [w.wait(timeout=300) for w in writers]
    stop.set()
    thread.join()

    assert codes == [0] * 8
    assert errors == []
    assert len(reads) > 10
    final = load_map(path)
    planet = final.find_planet("P2")[1]  # type: ignore[index]
    texts = [s.text for s in planet.satellites]
    expected = {f"writer {w} batch {b}" for w in range(8) for b in range(50)}
    assert set(texts) == expected
    assert len(texts) == len(expected)  # none twice
    assert planet.mass == 1 + 400
    ids = [s.id for s in planet.satellites]
    assert len(set(ids)) == len(ids)
