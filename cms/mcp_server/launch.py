"""`cms mcp [--cwd FOLDER]`: the front (front.py) on stdio, the SDK's server (server.py) behind
it for the folder's project, started in a thread once the client has its handshake. The
process's error boundary: a failure is one line in the log, never on stdout (the protocol).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from cms.mcp_server.front import INSTRUCTIONS, package_version, serve


def main(args: list[str]) -> int:
    """Serve MCP on stdio until stdin ends; always 0."""
    from cms.config import load_hook_config
    from cms.log import log_event

    cwd = args[args.index("--cwd") + 1] if "--cwd" in args[:-1] else os.getcwd()
    folder = os.path.realpath(os.path.expanduser(cwd))
    config = load_hook_config()

    def start_sdk(read_fd: int, write_line: Callable[[str], None]) -> None:
        try:
            from pathlib import Path

            from cms.mcp_server.server import build_server, run_behind_front

            run_behind_front(build_server(config=config, cwd=Path(folder)), read_fd, write_line)
        except BaseException as exc:  # noqa: BLE001 - the thread's boundary: logged, not printed
            log_event("error", "mcp_failed", f"{type(exc).__name__}: {str(exc)[:300]}")

    log_event("info", "mcp_start", cwd=folder)
    try:
        serve(start_sdk, INSTRUCTIONS, package_version())
    except KeyboardInterrupt:
        pass
    finally:
        log_event("info", "mcp_stop")
    return 0
