"""Eight processes capturing and recalling at once lose nothing and never see a locked database.

Runs for CMS_STRESS_SECONDS (default 60, the issue's minute); each worker opens the store anew
on every round, as hook and worker processes do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cms.observations.access import open_project_memory

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 8

WORKER = """
import json, sys, time, uuid
from pathlib import Path
from cms.observations.access import open_project_memory
from cms.observations.capture import capture_observations
from cms.observations.recall import recall
from cms.observations.model import NewObservation

folder, worker, seconds = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
ids, errors, recalls, rounds = [], [], 0, 0
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    try:
        with open_project_memory(folder) as memory:
            note = NewObservation(
                "learning",
                f"worker {worker} note {rounds}",
                f"marker {uuid.uuid4().hex} from worker {worker}: cache token refresh round {rounds}",
            )
            ids += capture_observations(
                memory.store, [note], session=f"w{worker}", agent="stress", cwd=folder
            )
            recall(memory.store, "cache token refresh note", scope=memory.scope, limit=3)
            recalls += 1
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    rounds += 1
print(json.dumps({"ids": ids, "rounds": rounds, "recalls": recalls, "errors": errors}))
"""


@pytest.mark.slow
def test_eight_processes_writing_and_recalling_for_a_minute_lose_nothing(tmp_path: Path) -> None:
    seconds = float(os.environ.get("CMS_STRESS_SECONDS", "60"))
    folder = tmp_path / "project"
    folder.mkdir()
    script = tmp_path / "worker.py"
    script.write_text(WORKER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(folder), str(n), str(seconds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for n in range(WORKERS)
    ]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=seconds + 300)
        assert proc.returncode == 0, err
        assert "locked" not in err.lower()
        reports.append(json.loads(out))

    for report in reports:
        assert report["errors"] == []
        assert len(report["ids"]) == report["rounds"] == report["recalls"] > 0
    written = [i for report in reports for i in report["ids"]]
    assert len(written) == len(set(written))
    memory = open_project_memory(folder, create=False)
    assert memory is not None
    with memory:  # each note restates one subject with a new value: later ones supersede
        stored = memory.store.list_observations(include_superseded=True)
    assert sorted(o.id for o in stored) == sorted(written)
    assert {o.session for o in stored} == {f"w{n}" for n in range(WORKERS)}
