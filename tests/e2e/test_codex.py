"""cms inside the real Codex CLI (0.171.0): hooks from ~/.codex/hooks.json, a fake Responses API.

install.py --agent codex writes the hooks; `codex exec` runs with --dangerously-bypass-hook-trust
(the review step a user does once in the TUI). cms's own update calls go to the fake Anthropic
server. See docs/e2e.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Run, Sandbox, map_facts
from tests.e2e.memory_text import OPEN, memory_blocks, search_command, with_query
from tests.e2e.responses_server import FakeResponsesServer

pytestmark = pytest.mark.e2e

SUN = "Release process"
PLANET = "Version tags"
FACT = "Releases are tagged vMAJOR.MINOR.PATCH on main and pushed with git push --tags"
OPS = {"ops": [{"op": "add_sun", "title": SUN, "planets": [{"title": PLANET, "sats": [FACT]}]}]}
CODEX_FLAGS = [
    "--json",
    "--skip-git-repo-check",
    "--dangerously-bypass-hook-trust",
    "--dangerously-bypass-approvals-and-sandbox",
]


@pytest.fixture
def codex_box(sandbox: Sandbox, codex_bin: Path) -> Iterator[Sandbox]:
    with FakeResponsesServer() as responses:
        sandbox.responses = responses
        sandbox.bin_dirs = [codex_bin]
        codex_home = sandbox.home / ".codex"
        codex_home.mkdir(parents=True)
        (codex_home / "config.toml").write_text(
            'model = "fake-model"\n'
            'model_provider = "fake"\n\n'
            "[model_providers.fake]\n"
            'name = "fake"\n'
            f'base_url = "{responses.base_url}"\n'
            'env_key = "FAKE_OPENAI_KEY"\n'
            'wire_api = "responses"\n',
            encoding="utf-8",
        )
        sandbox.install(agent="codex")
        yield sandbox


def _thread_id(done: Run) -> str:
    assert done.returncode == 0, done.describe()
    for line in done.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "thread.started":
            return str(event["thread_id"])
    raise AssertionError(f"no thread.started event:\n{done.describe()}")


def test_codex_turn_updates_map_and_resumed_turn_carries_index(codex_box: Sandbox) -> None:
    box = codex_box
    assert box.responses is not None
    hooks = json.loads((box.home / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert {"SessionStart", "UserPromptSubmit", "Stop"} <= set(hooks["hooks"])

    box.model.push_update(OPS)
    prompt = "How do we tag releases? We use vMAJOR.MINOR.PATCH tags on main."
    thread = _thread_id(box.run(["codex", "exec", *CODEX_FLAGS, prompt], box.env()))
    box.settle(thread)

    assert FACT in map_facts(box.read_map(thread))
    updates = box.model.of("update")
    assert len(updates) == 1, box.model.kinds()
    assert "vMAJOR.MINOR.PATCH" in updates[0].all_text  # the exchange reached the update model

    resumed = box.run(
        ["codex", "exec", *CODEX_FLAGS, "resume", thread, "Remind me of the tag format."],
        box.env(),
    )
    assert _thread_id(resumed) == thread
    box.settle(thread)
    last = box.responses.response_requests[-1]
    developer = "\n".join(last.input_texts("developer"))
    blocks = memory_blocks(developer)
    assert blocks, f"no {OPEN} in a developer message of the resumed turn:\n{box.log_tail()}"
    assert SUN in blocks[-1] and PLANET in blocks[-1] and FACT not in blocks[-1]

    command = with_query(search_command(blocks[-1], box.cms), "release tag format")
    done = box.run(["sh", "-c", command], box.env())
    assert done.returncode == 0 and FACT in done.stdout, done.describe()
    assert not box.crashes()
