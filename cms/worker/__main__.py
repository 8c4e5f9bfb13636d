"""`python -m cms.worker --session ID`: the detached worker process the hooks start.

Its first step is taking a machine-wide worker slot, before the job machinery is imported: a
worker that finds every slot busy exits in milliseconds (a slot's holder will run the job).
It never raises and never prints (cms.worker.drain.main is the error boundary).
"""

from __future__ import annotations

import sys

from cms.hooks.queue import try_worker_slot


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        slot = try_worker_slot()
    except OSError:
        slot = None  # cannot tell: run without a slot rather than strand the job
    else:
        if slot is None:
            return 0
    from cms.worker.drain import main as drain  # the job machinery, once a slot is ours

    return drain(args, slot=slot)


if __name__ == "__main__":
    sys.exit(main())
