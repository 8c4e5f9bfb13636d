"""cms's `mcp_tool` hooks inside the real Claude Code CLI (2.1.332): UserPromptSubmit and
PreToolUse answered by the hook tools of the `cms mcp` server the CLI runs for the session.

The memory reaches the model's request exactly as with command hooks (the same injected text
for the same prompt), after /compact and /clear too, and two sessions at once each get their
own. docs/hooks.md says what was found; bench/mcp_hooks_bench.py times it.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from tests.e2e.conftest import Sandbox
from tests.e2e.memory_text import memory_blocks

pytestmark = pytest.mark.e2e

VERSION = "2.1.332"
DECISION = "Orders database: PostgreSQL 16 on port 5433, not the default 5432"
PROMPT = "Which port does the orders database listen on?"


@pytest.fixture
def box(sandbox: Sandbox, claude_bin: Any) -> Sandbox:
    sandbox.bin_dirs = [claude_bin(VERSION)]
    done = sandbox.run(
        [str(sandbox.cms), "remember", "--kind", "decision", "--title", DECISION], sandbox.env()
    )
    assert done.returncode == 0, done.describe()
    return sandbox


def prompt_block(box: Sandbox, session: str) -> str:
    """The prompt hook's memory block in the newest main request, its chat id made neutral."""
    blocks = [b for b in memory_blocks(box.model.of("main")[-1].all_text) if "5433" in b]
    assert blocks, box.log_tail()
    return blocks[-1].replace(session, "<session>")


def test_mcp_tool_hooks_inject_what_command_hooks_inject(box: Sandbox) -> None:
    box.install(extra=("--command-hooks",))
    by_command = box.claude(PROMPT)["session_id"]
    command_block = prompt_block(box, by_command)

    box.install()
    settings = json.loads((box.home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    handler = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    assert handler["type"] == "mcp_tool" and handler["tool"] == "hook_user_prompt_submit"
    by_tool = box.claude(PROMPT)["session_id"]
    assert prompt_block(box, by_tool) == command_block
    assert "hook_non_blocking_error" not in (box.log_tail() or "")
    assert not box.crashes()


def test_after_compact_and_clear_the_tool_hooks_still_answer(box: Sandbox) -> None:
    box.install()
    session = box.claude(PROMPT)["session_id"]
    box.claude("/compact", "--resume", session)
    box.claude(PROMPT, "--resume", session)
    assert "5433" in box.model.of("main")[-1].all_text
    cleared = box.claude("/clear", "--resume", session)
    after_clear = box.claude(PROMPT, "--resume", cleared["session_id"])["session_id"]
    assert "5433" in prompt_block(box, after_clear)
    assert not box.crashes()


def test_two_sessions_at_once_each_get_the_memory(box: Sandbox) -> None:
    box.install()
    results: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def one() -> None:
        try:
            results.append(box.claude(PROMPT))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    requests = box.model.of("main")
    assert len(requests) == 2
    assert all(any("5433" in b for b in memory_blocks(r.all_text)) for r in requests)
    assert len({r["session_id"] for r in results}) == 2
    assert not box.crashes()


def _until_request(box: Sandbox, env: dict[str, str]) -> float:
    """Seconds from starting `claude -p` to the fake model receiving its main request."""
    import time

    before = len(box.model.of("main"))
    started = time.monotonic()
    box.claude(PROMPT, env=env)
    return box.model.of("main")[before].received - started


def test_the_first_request_waits_for_cms_about_as_long_as_without_it(box: Sandbox) -> None:
    """Prompt to model request with cms on (SessionStart command hook, mcp_tool prompt hook,
    the `cms mcp` server starting) against CMS_DISABLE=1, interleaved, medians of 5 (figures
    printed; docs/hooks.md). A server slow to answer its handshake would add its start-up."""
    import statistics

    box.install()
    on, off = [], []
    for _ in range(5):
        on.append(_until_request(box, box.env()))
        off.append(_until_request(box, box.env(disable=True)))
    with_cms, without = statistics.median(on), statistics.median(off)
    print(f"\nprompt to request: cms on {with_cms:.3f} s, off {without:.3f} s "
          f"({(with_cms / without - 1) * 100:+.1f}%); on {on}, off {off}")  # fmt: skip
    assert with_cms <= without * 1.25  # a server that loads the SDK first would add ~1 s
