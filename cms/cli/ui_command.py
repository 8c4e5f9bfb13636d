"""`cms ui`: serve the memory viewer on 127.0.0.1 until Ctrl-C (read-only unless --edit).

Prints the URL (with its access token) as the first line, opens the browser unless --no-open,
and logs start and stop; starlette and uvicorn load only for this command.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cms.console import config_checked
from cms.log import log_event


@config_checked
def ui(
    port: Annotated[
        int,
        typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (default: a free one)."),
    ] = 0,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="Do not open a browser; just print the URL.")
    ] = False,
    edit: Annotated[
        bool,
        typer.Option("--edit", help="Allow correcting and forgetting observations on the page."),
    ] = False,
) -> None:
    """Browse the memory in a local web page (127.0.0.1, a token in the URL); read-only unless
    --edit, which adds forms to correct or forget an observation."""
    from cms.ui.server import UiServer, open_in_browser

    server = UiServer(port, editable=edit)
    print(server.url, flush=True)
    log_event("info", "ui_start", port=server.port)
    cleanup = None if no_open else open_in_browser(server.url)
    if not no_open and cleanup is None:
        print("cms: no browser could be opened; open the URL above", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if cleanup is not None:
            cleanup()
        log_event("info", "ui_stop", port=server.port)


def register(app: typer.Typer) -> None:
    app.command()(ui)
