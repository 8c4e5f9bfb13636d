"""The one error boundary of `cms` commands, as pre-commit's error_handler: a CmsError is one
line and exit 1; Ctrl-C is one line and exit 130; anything else is one line naming the log file
that holds its traceback, exit 3. Never a traceback on the terminal.

Knows nothing of typer (the light `cms search` entry uses it too). Hooks have their own boundary
(cms.hooks.runner: a hook always exits 0).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from cms.errors import CmsError

UNEXPECTED = 3
INTERRUPTED = 130


def _one_line(text: str, limit: int = 300) -> str:
    from cms.transcripts.redact import redact_text

    return " ".join(redact_text(text).split())[:limit]


@contextmanager
def error_handler() -> Iterator[None]:
    """Run a command's body; turn what escapes it into one line on stderr and an exit code."""
    try:
        yield
    except CmsError as exc:
        print(f"cms: error: {_one_line(str(exc))}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        print("cms: interrupted", file=sys.stderr)
        raise SystemExit(INTERRUPTED) from None
    except Exception as exc:  # noqa: BLE001 - the unexpected-error branch: logged, never shown
        import traceback

        from cms import paths
        from cms.log import log_event

        log_event("error", "unexpected_error", "".join(traceback.format_exception(exc)))
        what = _one_line(f"{type(exc).__name__}: {exc}")
        print(
            f"cms: unexpected error ({what}); the traceback is in {paths.log_path()}",
            file=sys.stderr,
        )
        raise SystemExit(UNEXPECTED) from None
