"""The `cms ui` web server: a Starlette app built by `build_app(token)`, served by uvicorn on
127.0.0.1 only, for as long as the command runs.

The only module that imports starlette and uvicorn. Every request must carry the token (else
403) and name this host (else 403: no DNS rebinding). Read-only by default (only GET); with
editing enabled (`cms ui --edit`) two POST forms correct or forget an observation, each refused
unless it carries the server's CSRF token and comes from this origin.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from collections.abc import Callable
from urllib.parse import parse_qs, quote

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from cms.errors import CmsError
from cms.log import log_event
from cms.search.project import MemoryHit, search_project
from cms.ui import catalog, edits, pages

HOST = "127.0.0.1"
SEARCH_RESULTS = 10  # hits per search, as many as `cms search -k 10`


class UiError(CmsError):
    """The ui server could not start (the port is taken, say)."""


def _allowed(request: Request, token: str) -> bool:
    given = request.query_params.get("token", "")
    host = request.headers.get("host", "").rsplit(":", 1)[0]
    same = secrets.compare_digest(given.encode("utf-8"), token.encode("utf-8"))
    return same and host in (HOST, "localhost")


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        text,
        status_code=status,
        headers={
            "Cache-Control": "no-store",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
            "Referrer-Policy": "same-origin",  # a form post carries its Origin
            "X-Frame-Options": "DENY",
        },
    )


def _same_origin(request: Request) -> bool:
    """A form post from this server's own pages: its Origin (or, without one, its Referer)
    names this host and port."""
    host = request.headers.get("host", "")
    origin = request.headers.get("origin") or request.headers.get("referer") or ""
    return bool(host) and origin.split("?", 1)[0].rstrip("/").split("/")[2:3] == [host]


def build_app(token: str, *, editable: bool = False) -> Starlette:
    """The app; every page reads $CMS_HOME afresh, so it shows memory as it is now. With
    editable, observations can be corrected or forgotten through forms (CSRF-checked)."""
    csrf = secrets.token_urlsafe(18)

    def guarded(page: Callable[[Request], Response]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:  # plain def: Starlette's threadpool runs it
            if not _allowed(request, token):
                return _html(pages.message_page("Forbidden", "Wrong or missing token.", ""), 403)
            try:
                return page(request)
            except CmsError as exc:
                log_event("warning", "ui_error", str(exc), path=request.url.path)
                return _html(pages.message_page("Cannot read memory", str(exc), token), 500)

        return endpoint

    def home(request: Request) -> Response:
        return _html(
            pages.home_page(
                catalog.list_projects(), catalog.usage_by_day(), token, catalog.context_by_day()
            )
        )

    def project(request: Request) -> Response:
        found = catalog.find_project(request.path_params["project"])
        if found is None:
            return _html(pages.message_page("Not found", "No such project.", token), 404)
        query = request.query_params.get("q", "").strip()
        memory = catalog.open_memory(found)
        hits: list[MemoryHit] = []
        view = None
        if memory is not None:
            with memory:
                hits = search_project(memory, query, k=SEARCH_RESULTS) if query else []
                view = catalog.memory_view(memory)
        return _html(pages.project_page(found, view, query, hits, token, editable))

    def chat(request: Request) -> Response:
        view = catalog.chat_view(request.path_params["session"])
        if view is None:
            return _html(pages.message_page("Not found", "No such chat.", token), 404)
        return _html(pages.chat_page(view, token))

    def favicon(request: Request) -> Response:
        return Response(status_code=204)

    def _item(request: Request) -> tuple[catalog.ProjectInfo | None, int]:
        found = catalog.find_project(request.path_params["project"])
        number = request.path_params["number"]
        return found, int(number) if str(number).isdigit() else 0

    def item(request: Request) -> Response:
        found, number = _item(request)
        obs = edits.read_item(found, number) if found is not None and number else None
        if found is None or obs is None:
            return _html(pages.message_page("Not found", "No such observation.", token), 404)
        return _html(pages.item_page(found, obs, token, csrf))

    async def change(request: Request) -> Response:
        if not _allowed(request, token) or not _same_origin(request):
            return _html(pages.message_page("Forbidden", "Not from this page.", ""), 403)
        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode("utf-8")).items()}
        if not secrets.compare_digest(form.get("csrf", "").encode(), csrf.encode()):
            return _html(pages.message_page("Forbidden", "Missing or stale form token.", ""), 403)
        found, number = _item(request)
        if found is None or not number:
            return _html(pages.message_page("Not found", "No such observation.", token), 404)
        action = request.path_params["action"]
        try:
            if action == "correct":
                edits.correct_item(found, number, form.get("title", ""), form.get("body", ""))
            elif form.get("confirm") != "yes":
                return _html(pages.message_page("Not forgotten", "Confirm to forget.", token), 400)
            elif not edits.forget_item(found, number):
                return _html(pages.message_page("Not found", "No such observation.", token), 404)
        except CmsError as exc:
            log_event("warning", "ui_edit_refused", str(exc), path=request.url.path)
            return _html(pages.message_page("Not changed", str(exc), token), 409)
        log_event("info", "ui_edit", action=action, item=f"O{number}", project=found.id)
        back = f"/project/{quote(found.id, safe='')}?token={quote(token)}"
        return Response(status_code=303, headers={"Location": back, "Cache-Control": "no-store"})

    routes = [
        Route("/", guarded(home), methods=["GET"]),
        Route("/project/{project}", guarded(project), methods=["GET"]),
        Route("/chat/{session}", guarded(chat), methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
    ]
    if editable:
        routes += [
            Route("/project/{project}/item/{number}", guarded(item), methods=["GET"]),
            Route("/project/{project}/item/{number}/{action:str}", change, methods=["POST"]),
        ]
    return Starlette(routes=routes)


class UiServer:
    """The app on a socket bound to 127.0.0.1 (a free port unless one is given): `url` is known
    before serving starts; `run()` blocks until `stop()` or Ctrl-C."""

    def __init__(self, port: int = 0, token: str | None = None, *, editable: bool = False) -> None:
        self.token = token or secrets.token_urlsafe(18)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._socket.bind((HOST, port))
            self._socket.listen(64)
        except OSError as exc:
            self._socket.close()
            raise UiError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from exc
        self.port = int(self._socket.getsockname()[1])
        config = uvicorn.Config(
            build_app(self.token, editable=editable),
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
        self._server = uvicorn.Server(config)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={quote(self.token)}"

    @property
    def address(self) -> tuple[str, int]:
        return self._socket.getsockname()[:2]  # type: ignore[no-any-return]

    def run(self) -> None:
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self._socket.close()

    def start_in_thread(self) -> threading.Thread:
        """Serve from a daemon thread (tests); returns once the server accepts requests."""
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        return thread

    def stop(self) -> None:
        self._server.should_exit = True


def open_in_browser(url: str) -> Callable[[], None] | None:
    """Open url in the user's browser through a private redirect file (so the token is not on a
    browser's command line, where other local users could read it); returns what removes that
    file, or None when no browser could be started (a headless machine)."""
    import contextlib
    import os
    import tempfile
    import webbrowser
    from html import escape

    handle, path = tempfile.mkstemp(prefix="cms-ui-", suffix=".html")  # 0600
    with os.fdopen(handle, "w", encoding="utf-8") as page:
        page.write(
            f'<!doctype html><meta charset=utf-8><meta http-equiv="refresh" '
            f'content="0;url={escape(url)}"><a href="{escape(url)}">cms memory</a>'
        )

    def remove() -> None:
        with contextlib.suppress(OSError):
            os.unlink(path)

    try:
        opened = webbrowser.open(f"file://{path}")
    except webbrowser.Error:
        opened = False
    if not opened:
        remove()
        return None
    return remove
