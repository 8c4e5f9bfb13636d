"""The ui server over real HTTP: the token, the host, 127.0.0.1 only, GET only, nothing written."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from cms.ui.server import HOST, UiError, UiServer
from tests.hooks.helpers import hook_env
from tests.ui.conftest import BuiltMemory, files_under


def fetch(url: str, method: str = "GET", host: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, method=method)
    if host is not None:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def base(server: UiServer) -> str:
    return f"http://{HOST}:{server.port}"


def test_pages_render_with_the_token(ui_server: UiServer, memory: BuiltMemory) -> None:
    status, home = fetch(ui_server.url)
    assert status == 200 and memory.project in home and "<svg id=usage" in home
    token = quote(ui_server.token)
    status, page = fetch(f"{base(ui_server)}/project/{memory.project}?token={token}")
    assert status == 200 and "We decided to use PostgreSQL 16" in page
    status, chat = fetch(f"{base(ui_server)}/chat/chat-a-0001?token={token}")
    assert status == 200 and "root cause" in chat.casefold()


@pytest.mark.parametrize("token", ["", "wrong-token"])
def test_a_wrong_or_missing_token_gets_403(ui_server: UiServer, token: str) -> None:
    for path in ("/", "/chat/chat-a-0001", "/project/x"):
        status, text = fetch(f"{base(ui_server)}{path}?token={token}")
        assert status == 403 and "PostgreSQL" not in text


def test_a_foreign_host_name_gets_403_even_with_the_token(ui_server: UiServer) -> None:
    status, _ = fetch(ui_server.url, host="evil.example:80")
    assert status == 403


def test_only_get_exists(ui_server: UiServer) -> None:
    status, _ = fetch(ui_server.url, method="POST")
    assert status == 405


def test_it_listens_on_loopback_only(ui_server: UiServer) -> None:
    assert ui_server.address == (HOST, ui_server.port)
    outside = _non_loopback_address()
    if outside is None:
        pytest.skip("this machine has no non-loopback IPv4 address to try")
    with pytest.raises(OSError):
        socket.create_connection((outside, ui_server.port), timeout=5).close()


def _non_loopback_address() -> str | None:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def test_browsing_every_page_changes_no_file(ui_server: UiServer, memory: BuiltMemory) -> None:
    before = files_under(memory.cms_home)
    token = quote(ui_server.token)
    for path, query in (
        ("/", ""),
        (f"/project/{memory.project}", ""),
        (f"/project/{memory.project}", "&q=orders+database"),
        (f"/project/{memory.other_project}", ""),
        ("/chat/chat-a-0001", ""),
        ("/chat/chat-b-0002", ""),
        ("/chat/nothing-here", ""),
    ):
        status, _ = fetch(f"{base(ui_server)}{path}?token={token}{query}")
        assert status in (200, 404)
    assert files_under(memory.cms_home) == before


def test_unknown_projects_and_chats_are_404(ui_server: UiServer) -> None:
    token = quote(ui_server.token)
    assert fetch(f"{base(ui_server)}/project/nope?token={token}")[0] == 404
    assert fetch(f"{base(ui_server)}/chat/nope?token={token}")[0] == 404


def test_a_taken_port_is_one_clear_error(ui_server: UiServer) -> None:
    with pytest.raises(UiError, match=f"cannot listen on {HOST}:{ui_server.port}"):
        UiServer(ui_server.port)


def test_the_command_prints_the_url_first_and_serves_until_stopped(memory: BuiltMemory) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "cms", "ui", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=hook_env(),
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith(f"http://{HOST}:") and "token=" in url
        status, page = fetch(url)
        assert status == 200 and memory.project in page
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert process.stderr is not None and "Traceback" not in process.stderr.read()


def test_a_response_forbids_framing_and_scripts(ui_server: UiServer) -> None:
    connection = http.client.HTTPConnection(HOST, ui_server.port, timeout=30)
    connection.request("GET", ui_server.url.split(str(ui_server.port), 1)[1])
    reply = connection.getresponse()
    assert reply.status == 200
    assert reply.getheader("X-Frame-Options") == "DENY"
    assert "default-src 'none'" in (reply.getheader("Content-Security-Policy") or "")
    connection.close()


def test_a_non_ascii_token_is_refused_not_an_error(ui_server: UiServer) -> None:
    assert fetch(f"{base(ui_server)}/?token=%C3%A9t%C3%A9")[0] == 403


def test_a_store_of_an_older_schema_is_reported_and_left_as_it_was(
    isolated_home: Path, tmp_path: Path
) -> None:
    import sqlite3

    from cms import paths
    from cms.hooks import inject
    from cms.observations.access import open_project_memory

    folder = tmp_path / "old"
    folder.mkdir()
    memory = open_project_memory(folder, create=True)
    assert memory is not None
    with memory:
        db = Path(memory.store.path)
        project = memory.project.id
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 9")  # as an older cms left it
    inject.save_state("chat-old", inject.InjectionState(cwd=str(folder)))
    before = files_under(Path(paths.cms_home()))
    server = UiServer(0)
    thread = server.start_in_thread()
    try:
        status, page = fetch(f"{base(server)}/project/{project}?token={quote(server.token)}")
    finally:
        server.stop()
        thread.join(timeout=10)
    assert status == 500 and "schema 9" in page and "upgrade" in page
    assert files_under(Path(paths.cms_home())) == before


def test_odd_values_in_a_chats_state_file_break_no_page(
    ui_server: UiServer, memory: BuiltMemory
) -> None:
    import json

    from cms import paths

    state = Path(paths.chat_dir("chat-odd")) / "injected.json"
    state.parent.mkdir(parents=True)
    state.write_text(
        json.dumps({"at": 1e300, "log": [[1e300, "x", 5, []], ["a", 1, "b", None], [1.0]]}),
        encoding="utf-8",
    )
    try:
        token = quote(ui_server.token)
        assert fetch(ui_server.url)[0] == 200
        assert fetch(f"{base(ui_server)}/chat/chat-odd?token={token}")[0] == 200
    finally:
        state.unlink()
        state.parent.rmdir()


def test_the_browser_gets_a_private_redirect_file_not_the_token_on_its_command_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os
    import stat
    import webbrowser

    from cms.ui.server import open_in_browser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda target: opened.append(target) or True)
    cleanup = open_in_browser("http://127.0.0.1:9/?token=secret-token")
    assert cleanup is not None and opened and "secret-token" not in opened[0]
    path = opened[0].removeprefix("file://")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert "secret-token" in Path(path).read_text(encoding="utf-8")
    cleanup()
    assert not os.path.exists(path)
