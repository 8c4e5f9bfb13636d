"""The one error boundary of `cms` commands, as pre-commit's error_handler: a CmsError is one
line and exit 1; Ctrl-C is one line and exit 130; anything else is one line naming the log file
that holds its traceback, exit 3. Never a traceback on the terminal.

Knows nothing of typer (the light `cms search` entry uses it too). Hooks have their own boundary
(cms.hooks.runner: a hook always exits 0).
"""

from __future__ import annotations

import sys

from cms.errors import CmsError

TYPE_CHECKING = False
if TYPE_CHECKING:  # cms search runs this: nothing past sys at import
    from collections.abc import Callable

UNEXPECTED = 3
INTERRUPTED = 130


def _one_line(text: str, limit: int = 300) -> str:
    from cms.transcripts.redact import redact_text

    return " ".join(redact_text(text).split())[:limit]


def run_guarded(body: Callable[[], int | None]) -> int:
    """Run a command's body; its exit code, or what escapes it as one line on stderr and a code."""
    try:
        return body() or 0
    except CmsError as exc:
        print(f"cms: error: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("cms: interrupted", file=sys.stderr)
        return INTERRUPTED
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
        return UNEXPECTED
