"""The detached worker process (`python -m cms.worker`): its slot comes before the job machinery."""

from __future__ import annotations

import subprocess
import sys

from cms.hooks import queue as hook_queue
from cms.worker import queue
from tests.hooks.helpers import hook_env
from tests.worker.test_drain import SESSION, queue_exchange

PROBE = (
    "import sys\n"
    "from cms.worker.__main__ import main\n"
    "code = main(['--session', sys.argv[1]])\n"
    "print(code, 'cms.worker.drain' in sys.modules)\n"
)


def test_a_worker_without_a_slot_exits_before_importing_the_drain() -> None:
    made = queue_exchange(1)
    held = [hook_queue.try_worker_slot() for _ in range(hook_queue.MAX_WORKERS)]
    try:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, SESSION],
            capture_output=True,
            env=hook_env(),
            timeout=120,
            check=False,
        )
    finally:
        for slot in held:
            assert slot is not None
            slot.release()
    assert done.returncode == 0 and done.stderr == b"", done
    assert done.stdout.split() == [b"0", b"False"]
    assert queue.list_jobs(SESSION) == [made]


def test_a_worker_with_a_slot_drains_its_chat() -> None:
    queue_exchange(1)
    done = subprocess.run(
        [sys.executable, "-m", "cms.worker", "--session", SESSION],
        capture_output=True,
        env=hook_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b"", done
    assert queue.list_jobs(SESSION) == []
