"""The ui driven by a real headless browser (Debian's chromium through Playwright): the pages
render the memory, the search box returns facts verbatim, a wrong token is refused.

Set CMS_UI_SCREENSHOTS=<folder> to save a screenshot of each page there (docs/ui/ holds them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cms.observations.access import open_project_memory
from cms.observations.capture import capture_observations
from cms.observations.ids import chat_tag
from cms.observations.model import NewObservation
from cms.ui.server import UiServer
from tests.hooks.test_project_memory import CHAT_A
from tests.observations.gitrepo import make_repo
from tests.ui.conftest import BuiltMemory

ROOT = Path(__file__).resolve().parents[2]


def run_cms(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cms", *args, "--cwd", str(repo)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    return done.stdout + done.stderr


pytestmark = pytest.mark.browser

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    required = os.environ.get("CMS_REQUIRE_BROWSER") == "1"
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        executable = None
    if executable is None:
        if required:
            pytest.fail("CMS_REQUIRE_BROWSER=1 but chromium or playwright is missing")
        pytest.skip("chromium (Debian package) or playwright is not installed")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


def screenshot(page: Any, name: str) -> None:
    folder = os.environ.get("CMS_UI_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def open_project(page: Any, server: UiServer, memory: BuiltMemory) -> None:
    """From the home page, click through to the fixture's main project."""
    page.goto(server.url)
    page.click(f"text={memory.project}")


def test_the_home_page_lists_projects_and_the_usage_chart(
    page: Any, ui_server: UiServer, memory: BuiltMemory
) -> None:
    page.goto(ui_server.url)
    projects = page.locator("#projects").inner_text()
    assert memory.project in projects and memory.other_project in projects
    assert page.locator("#usage .bar").count() == 3
    screenshot(page, "home")


def test_a_project_page_shows_chats_rules_in_force_and_observations(
    page: Any, ui_server: UiServer, memory: BuiltMemory
) -> None:
    open_project(page, ui_server, memory)
    chats = page.locator("#chats").inner_text()
    assert "We decided to use PostgreSQL 16" in chats and "From now on, start function" in chats
    rules = page.locator("#in-force").inner_text()
    assert "'j_'" in rules and "replaced" in rules and "'e_'" in rules
    observations = " ".join(page.locator("table.observations").all_inner_texts())
    assert "await refresh() before retrying" in observations and "main" in observations
    assert "Redis" not in page.content()  # another project's memory stays on its own page
    screenshot(page, "project")


def test_the_search_box_returns_stored_facts_verbatim(
    page: Any, ui_server: UiServer, memory: BuiltMemory
) -> None:
    open_project(page, ui_server, memory)
    page.fill("#search input[name=q]", "root cause token refresh")
    page.click("#search button")
    page.wait_for_selector("#results")
    texts = page.locator("#results td.hit").all_inner_texts()
    answer = CHAT_A[1][1]
    assert any(text in answer for text in texts if len(text) > 40), texts
    assert "token=" in page.url and "q=root" in page.url
    screenshot(page, "search")


def test_a_chat_page_shows_the_map_tree_and_the_injections(
    page: Any, ui_server: UiServer, memory: BuiltMemory
) -> None:
    open_project(page, ui_server, memory)
    page.click("text=We decided to use PostgreSQL 16")
    topics = page.locator("details.planet summary").all_inner_texts()
    assert any("Orders database" in topic and "mass" in topic for topic in topics), topics
    facts = page.locator("ul.facts li").all_inner_texts()
    assert any("PostgreSQL 16" in fact for fact in facts)
    assert page.locator("#injections tr").count() >= 2  # a heading row and one injection
    replaced = page.locator("li.archived").all_inner_texts()  # chat B changed the 'e_' rule
    assert any("'e_'" in fact and "superseded" in fact for fact in replaced), replaced
    screenshot(page, "chat")


def test_a_wrong_token_is_refused_in_the_browser(page: Any, ui_server: UiServer) -> None:
    reply = page.goto(ui_server.url.replace(ui_server.token, "not-the-token"))
    assert reply is not None and reply.status == 403
    assert "Forbidden" in page.content() and "PostgreSQL" not in page.content()


def test_a_chat_page_shows_its_task_one_chat_id_and_what_each_injection_said(
    page: Any, ui_server: UiServer, memory: BuiltMemory
) -> None:
    open_project(page, ui_server, memory)
    tag = chat_tag("chat-a-0001")
    assert f"chat {tag}" in page.locator("#chats").inner_text()
    assert "chat-a-0001" not in page.locator("#chats").inner_text()  # one id per chat
    page.click("text=We decided to use PostgreSQL 16")
    assert f"chat {tag}" in page.locator("main p.muted").first.inner_text()
    task = page.locator("#task").inner_text()
    assert "Goal:" in task, task
    expandable = page.locator("#injections details")
    assert expandable.count() >= 1
    expandable.first.locator("summary").click()
    said = expandable.first.locator("pre.injected").inner_text()
    assert "Reference data from cms memory" in said, said
    screenshot(page, "chat-task")


def test_the_home_page_shows_what_memory_cost_in_context_per_day(
    page: Any, ui_server: UiServer, memory: BuiltMemory
) -> None:
    page.goto(ui_server.url)
    table = page.locator("#context").inner_text()
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert today in table and chat_tag("chat-a-0001") in table, table
    row = page.locator("#context tr", has_text=today).inner_text()
    assert "3,000" in row  # the model tokens of the day beside the characters (2,500 + 500)


@pytest.fixture
def edit_server(tmp_path: Path) -> Iterator[tuple[UiServer, str, Path]]:
    """`cms ui --edit` over a project of its own (this test's CMS_HOME) with two decisions."""
    repo = make_repo(tmp_path / "shop")
    with open_project_memory(repo, create=True) as memory:  # type: ignore[union-attr]
        capture_observations(
            memory.store,
            [
                NewObservation("decision", "The database port is 5433", "staging and prod"),
                NewObservation("decision", "Deploys go through make deploy", ""),
            ],
            session=None,
            agent=None,
            cwd=repo,
        )
        project = memory.project.id
    server = UiServer(0, editable=True)
    thread = server.start_in_thread()
    try:
        yield server, project, repo
    finally:
        server.stop()
        thread.join(timeout=10)


def test_with_edit_a_user_corrects_and_forgets_an_observation_on_the_page(
    page: Any, edit_server: tuple[UiServer, str, Path]
) -> None:
    server, project, repo = edit_server
    page.goto(server.url)
    page.click(f"text={project}")
    assert "editing enabled" in page.locator("header").inner_text()
    page.locator("#in-force a.edit").first.click()
    page.fill("#correct input[name=title]", "The database port is 6543")
    page.fill("#correct textarea[name=body]", "through pgbouncer")
    page.click("#correct button")
    rules = page.locator("#in-force").inner_text()
    assert "O3" in rules and "6543" in rules and "replaced" in rules and "5433" in rules, rules
    item = run_cms(repo, "get", "O1")
    assert "superseded by O3 (corrected by the user)" in item
    page.locator("#in-force li", has_text="make deploy").locator("a.edit").click()
    page.click("#forget button")  # not confirmed: the browser refuses the form
    assert "/item/" in page.url
    page.check("#forget input[name=confirm]")
    page.click("#forget button")
    assert "make deploy" not in page.locator("#in-force").inner_text()
    screenshot(page, "edit")


def test_an_edit_post_without_the_form_token_or_from_another_origin_is_refused(
    edit_server: tuple[UiServer, str, Path],
) -> None:
    server, project, repo = edit_server
    base = f"http://127.0.0.1:{server.port}/project/{project}/item/1/forget?token={server.token}"
    for headers, body in (
        ({"Origin": f"http://127.0.0.1:{server.port}"}, "confirm=yes&csrf=wrong"),
        ({"Origin": "http://evil.example"}, "confirm=yes&csrf=wrong"),
        ({}, "confirm=yes"),
    ):
        request = urllib.request.Request(base, data=body.encode(), headers=headers, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403
    assert "The database port is 5433" in run_cms(repo, "get", "O1")
    read_only = UiServer(0)
    thread = read_only.start_in_thread()
    try:
        url = f"http://127.0.0.1:{read_only.port}/project/{project}/item/1?token={read_only.token}"
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url, timeout=10)
        assert missing.value.code == 404  # without --edit there is no such page
    finally:
        read_only.stop()
        thread.join(timeout=10)
