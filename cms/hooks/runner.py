"""`cms hook EVENT`: the one error boundary of every hook process.

Reads one JSON payload from stdin (size-capped), skips disabled and excluded sessions, runs the
event's handler and prints only a valid reply or nothing. It always returns 0, never prints a
traceback and logs failures to the log file. Everything past os and sys is imported inside
that boundary (a broken install still exits 0 in silence), the event's module from the table.
A hook process skips the interpreter's teardown (module and object cleanup): once the
reply is flushed and every file closed there is nothing left for it to do.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cms.config import Config
    from cms.hooks.events import HookEvent

MAX_STDIN_BYTES = 8 * 1024 * 1024
REPLYING_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse")
# the module under cms.hooks whose handle(event, config) runs each event
HANDLER_MODULES = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt_submit",
    "PreToolUse": "pre_tool_use",
    "Stop": "stop",
    "SessionEnd": "session_end",
    "PreCompact": "session_end",
}
_TRUE = ("1", "true", "yes", "on")


def hooks_disabled() -> bool:
    return os.environ.get("CMS_DISABLE", "").strip().lower() in _TRUE


def read_stdin(limit: int = MAX_STDIN_BYTES) -> bytes | None:
    """All of stdin up to limit bytes; b"" when there is none (or a terminal), None when over."""
    try:
        fd = sys.stdin.fileno() if sys.stdin is not None else 0
        if os.isatty(fd):
            return b""
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > limit:
                return None
            chunks.append(chunk)
    except (OSError, ValueError):
        return b""


def is_excluded(cwd: str, patterns: tuple[str, ...]) -> bool:
    """Whether cwd matches an `exclude` glob (a pattern also covers the folders below it)."""
    if not patterns:
        return False
    from fnmatch import fnmatchcase

    candidates = {cwd.rstrip("/") or "/"}
    try:  # noqa: SIM105 - contextlib stays off the hook path (tests/hooks/test_imports.py)
        candidates.add(os.path.realpath(cwd).rstrip("/") or "/")
    except (OSError, ValueError):
        pass
    for raw in patterns:
        pattern = os.path.expanduser(raw.strip()).rstrip("/")
        if not pattern:
            continue
        for path in candidates:
            if fnmatchcase(path, pattern) or fnmatchcase(path, pattern + "/*"):
                return True
    return False


def handle_hook(event_arg: str | None, raw: bytes | None) -> str | None:
    """The reply for one hook call (JSON text) or None. May raise; run_hook catches."""
    from cms.config import load_hook_config
    from cms.hooks.events import parse_payload, read_event
    from cms.log import log_event

    if raw is None:
        log_event(
            "warning", "hook_input_too_large", f"stdin over {MAX_STDIN_BYTES} bytes", hook=event_arg
        )
        return None
    payload = parse_payload(raw)
    if payload is None:
        log_event("warning", "hook_input_unusable", "stdin is not a JSON object", hook=event_arg)
        return None
    event = read_event(event_arg, payload)
    if event is None:
        log_event("debug", "hook_ignored", "unknown event or no session id", hook=event_arg)
        return None
    config = load_hook_config()
    if is_excluded(event.cwd, config.hooks.exclude):
        return None
    reply = handle_event(event, config)
    return reply if reply and event.name in REPLYING_EVENTS else None


def handle_event(event: HookEvent, config: Config) -> str | None:
    """Run the event's handler (only its module is imported); subagent payloads (agent_id) are
    left alone."""
    if event.agent_id or event.name not in HANDLER_MODULES:
        return None
    module = __import__(f"cms.hooks.{HANDLER_MODULES[event.name]}", fromlist=["handle"])
    handler: Callable[[HookEvent, Config], str | None] = module.handle
    return handler(event, config)


def _write_reply(reply: str) -> None:
    try:
        out = sys.stdout.buffer
        out.write(reply.encode("utf-8"))
        out.flush()
    except (OSError, ValueError, AttributeError):
        _silence_stdout()


def _silence_stdout() -> None:
    """Point fd 1 at devnull so a broken pipe cannot print at interpreter exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def _describe(exc: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {str(exc)[:300]}{where}"


def _exit_now(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


class _Discard:
    """What a hook's sys.stderr becomes: it takes any text and keeps none (cheaper than
    importing warnings to silence them; the hook's own failures go to the log file)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def skip_teardown(code: int) -> None:
    """End the process with `code` as soon as it starts to exit (once non-daemon threads have
    finished), skipping the interpreter's teardown. Only when nothing else imported atexit before
    (callbacks run in reverse order of registration: ours runs last, after any registered later,
    and none can have been registered before it), and not with CMS_SYNC=1 (the hook then runs
    jobs: the usual exit is kept)."""
    if os.environ.get("CMS_SYNC") == "1" or "atexit" in sys.modules:
        return
    import atexit

    atexit.register(_exit_now, code)


def answer_hook(event_arg: str, raw: bytes) -> str | None:
    """The reply to one hook call made in a long-running process (the MCP server's hook tools):
    as run_hook, disabled and failing hooks answer None, and nothing is raised or printed."""
    try:
        return None if hooks_disabled() else handle_hook(event_arg, raw)
    except Exception as exc:  # noqa: BLE001 - hooks fail open: nothing may escape
        try:
            from cms.log import log_event

            log_event("error", "hook_failed", _describe(exc), hook=event_arg)
        except Exception:  # noqa: BLE001 - even logging failures stay silent
            pass
        return None


def run_hook(args: list[str]) -> int:
    """Run one hook (args = [EVENT]); always returns 0."""
    event_arg = args[0] if args else None
    try:
        if hooks_disabled():
            return 0
        sys.stderr = _Discard()  # a warning or a library's notice must not reach the agent
        reply = handle_hook(event_arg, read_stdin())
        if reply:
            _write_reply(reply)
    except BaseException as exc:  # noqa: BLE001 - hooks fail open: nothing may escape
        try:
            from cms.log import log_event

            log_event("error", "hook_failed", _describe(exc), hook=event_arg)
        except BaseException:  # noqa: BLE001 - even logging failures stay silent
            pass
    return 0
