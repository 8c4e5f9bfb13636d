"""One machine of the concurrency test: `python -m tests.team.writer REPO SECONDS TAG` runs three
writer threads that each store observations and sync after each one (a sync already running
on this machine is waited for briefly, then skipped; a server that is down fails the sync and
the writer goes on). Prints how many items each thread stored, as JSON."""

from __future__ import annotations

import json
import sys
import threading
import time

from cms.config import load_config
from cms.errors import TeamError
from cms.observations.access import open_project_memory
from cms.observations.model import NewObservation
from cms.team.identity import project_key
from cms.team.sync import sync_store

WRITERS = 3


def write(repo: str, seconds: float, tag: str, writer: int, counts: list[int]) -> None:
    url = load_config().team.url or __import__("os").environ["CMS_TEAM_URL"]
    memory = open_project_memory(repo)
    assert memory is not None
    key = project_key(repo)
    assert key is not None
    deadline = time.monotonic() + seconds
    with memory:
        while time.monotonic() < deadline:
            title = f"Note {tag}-{writer}-{counts[writer]} about the stress run"
            memory.store.add(NewObservation("learning", title, "written during the run"))
            counts[writer] += 1
            try:
                sync_store(memory.store, key, url, timeout=2.0, wait=0.5)
            except TeamError:
                time.sleep(0.2)


def main() -> int:
    repo, seconds, tag = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    counts = [0] * WRITERS
    threads = [
        threading.Thread(target=write, args=(repo, seconds, tag, n, counts)) for n in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
