"""cms inside the real Claude Code CLI (2.1.332 native, 2.1.100 JS), headless, offline.

Each test installs cms into a scratch HOME with install.py, runs `claude -p` turns against the
fake model server (which also answers cms's own update and search calls) and checks the map
files and the recorded requests. See docs/e2e.md.
"""

from __future__ import annotations

import secrets
import string
from typing import Any

import pytest

from tests.e2e.clis import CLAUDE_VERSIONS
from tests.e2e.conftest import Sandbox, map_facts, map_titles
from tests.e2e.memory_text import (
    CLOSE,
    OPEN,
    hook_contexts,
    memory_blocks,
    search_command,
    transcript_path,
    transcript_records,
    with_query,
)
from tests.e2e.model_server import COMPACT_SUMMARY, exchange_user_text
from tests.fakes.anthropic_server import FakeReply

pytestmark = pytest.mark.e2e

SUN = "Orders service"
PLANET = "Database choice"
FACT = "Orders service database: PostgreSQL 16, listening on port 5433 (not the default 5432)"
SECOND_PLANET = "Deploy target"
SECOND_FACT = "Orders service deploys to the staging cluster stg-eu-2 first"
TURN_ONE = "For the orders service we settled on PostgreSQL 16 on port 5433."
OPS_TURN_ONE = {
    "ops": [
        {
            "op": "add_sun",
            "title": SUN,
            "planets": [
                {"title": PLANET, "sats": [FACT]},
                {"title": SECOND_PLANET, "sats": [SECOND_FACT]},
            ],
        }
    ]
}


@pytest.fixture(params=CLAUDE_VERSIONS, ids=lambda v: f"claude-{v}")
def claude_box(request: pytest.FixtureRequest, sandbox: Sandbox, claude_bin: Any) -> Sandbox:
    """A sandbox whose PATH starts with the pinned claude version and that has cms installed."""
    sandbox.bin_dirs = [claude_bin(request.param)]
    sandbox.install()
    return sandbox


def _turn_one(box: Sandbox) -> str:
    box.model.push_update(OPS_TURN_ONE)
    result = box.claude(TURN_ONE)
    session = result["session_id"]
    assert isinstance(session, str) and session
    return session


def test_turn_one_fills_map_and_resumed_turn_sees_index_and_working_search_line(
    claude_box: Sandbox,
) -> None:
    box = claude_box
    session = _turn_one(box)

    data = box.read_map(session)
    assert FACT in map_facts(data) and SECOND_FACT in map_facts(data)
    assert {SUN, PLANET, SECOND_PLANET} <= set(map_titles(data))
    updates = box.model.of("update")
    assert len(updates) == 1, box.model.kinds()
    assert TURN_ONE in updates[0].all_text  # the update model saw the real exchange

    box.claude("Which port does the orders database use?", "--resume", session)

    main = box.model.of("main")
    assert len(main) == 2, box.model.kinds()
    blocks = memory_blocks(main[-1].all_text)
    assert blocks, f"no {OPEN} in the resumed turn's request; cms log:\n{box.log_tail()}"
    latest = blocks[-1]
    assert SUN in latest and PLANET in latest and SECOND_PLANET in latest
    assert FACT not in latest  # titles only: facts are pulled with the search command
    assert latest.endswith(CLOSE)

    command = with_query(search_command(latest, box.cms), "orders database port")
    done = box.run(["sh", "-c", command], box.env())
    assert done.returncode == 0, done.describe()
    assert FACT in done.stdout, done.describe()
    assert len(box.model.of("search")) == 1  # the anthropic provider picked the fact
    assert not box.crashes()


def test_compact_reinjects_the_index(claude_box: Sandbox) -> None:
    box = claude_box
    session = _turn_one(box)
    transcript = transcript_path(box.home, box.project, session)
    before = len(transcript_records(transcript))

    box.claude("/compact", "--resume", session)

    assert len(box.model.of("compact")) == 1, box.model.kinds()
    records = transcript_records(transcript)[before:]
    boundary = next(
        (i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary"), None
    )
    assert boundary is not None, "no compact_boundary written by /compact"
    after = [c for c in hook_contexts(records[boundary:], "SessionStart") if OPEN in c]
    assert after, "SessionStart(compact) injected no <cms-memory> after the compaction"
    assert SUN in after[-1] and PLANET in after[-1]

    box.claude("What did we decide about the database?", "--resume", session)

    request = box.model.of("main")[-1]
    text = request.all_text
    assert COMPACT_SUMMARY in text  # the conversation really was compacted
    blocks = memory_blocks(text)
    assert blocks and SUN in blocks[-1] and PLANET in blocks[-1], box.log_tail()
    assert not box.crashes()


def test_compact_brings_back_the_current_task_first(claude_box: Sandbox) -> None:
    box = claude_box
    box.model.push_main(
        "I implemented the token bucket in src/ratelimit.py; its unit tests pass. "
        "Step 2 next: wiring it into the request middleware."
    )
    box.model.push_update({"ops": []})
    session = box.claude("Could you add rate limiting to the orders API?")["session_id"]
    transcript = transcript_path(box.home, box.project, session)
    before = len(transcript_records(transcript))

    box.claude("/compact", "--resume", session)

    records = transcript_records(transcript)[before:]
    boundary = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    after = [c for c in hook_contexts(records[boundary:], "SessionStart") if OPEN in c]
    assert after, f"SessionStart(compact) injected nothing; cms log:\n{box.log_tail()}"
    lines = after[-1].splitlines()
    assert lines[2].startswith("[Current task of this chat, as of turn 1"), after[-1]
    assert lines[3] == "Goal: Add rate limiting to the orders API."
    assert "Next: Step 2: wiring it into the request middleware." in lines
    box.claude("Go ahead with step 2.", "--resume", session)
    request = box.model.of("main")[-1].all_text
    assert "Goal: Add rate limiting to the orders API." in request  # the model saw it
    assert not box.crashes()


def test_cms_disable_injects_nothing_and_writes_no_map(claude_box: Sandbox) -> None:
    box = claude_box
    off = box.env(disable=True)
    box.model.push_update(OPS_TURN_ONE, OPS_TURN_ONE)
    session = box.claude(TURN_ONE, env=off)["session_id"]
    box.claude("And the port again?", "--resume", session, env=off)

    assert box.model.kinds() == ["main", "main"]
    assert OPEN not in box.model.all_bodies()
    assert not box.map_path(session).exists()
    assert not list(box.cms_home.rglob("map.json"))


def _copy_user_text(request: Any) -> dict[str, Any]:
    """A naive update model: stores what the user said, as it was shown to the model."""
    said = exchange_user_text(request)[:190] or "(nothing)"
    return {
        "ops": [
            {
                "op": "add_sun",
                "title": "Credentials",
                "planets": [{"title": "Staging access", "sats": [said]}],
            }
        ]
    }


def test_secret_in_prompt_reaches_no_file_under_cms_home(claude_box: Sandbox) -> None:
    box = claude_box
    tail = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(40))
    secret = f"sk-ant-api03-{tail}"
    box.model.push_update(_copy_user_text)
    session = box.claude(f"Use the deploy key {secret} for the staging box.")["session_id"]

    facts = map_facts(box.read_map(session))
    assert any("deploy key" in fact for fact in facts), facts  # the update did happen
    updates = box.model.of("update")
    assert updates and all(tail not in r.raw.decode() for r in updates)
    leaks = [path for path in box.files_under(box.cms_home) if tail.encode() in path.read_bytes()]
    assert not leaks, f"secret written to {leaks}"


@pytest.mark.parametrize("version", [CLAUDE_VERSIONS[0]])
def test_cms_sync_applies_the_update_before_claude_returns(
    version: str, sandbox: Sandbox, claude_bin: Any
) -> None:
    box = sandbox
    box.bin_dirs = [claude_bin(version)]
    box.install()
    box.model.push_update(OPS_TURN_ONE)
    done = box.run(["claude", "-p", TURN_ONE, "--output-format", "json"], box.env(sync=True))
    assert done.returncode == 0, done.describe()
    session = done.json()["session_id"]

    # No waiting: the Stop hook itself applied the ops, inside the hook's timeout.
    assert FACT in map_facts(box.read_map(session))
    assert not box.pending_jobs(session)


def test_claude_cli_provider_runs_real_cli_without_recursion_or_transcript(
    sandbox: Sandbox, claude_bin: Any
) -> None:
    box = sandbox
    box.bin_dirs = [claude_bin(CLAUDE_VERSIONS[0])]
    box.install()
    env = box.env(provider="claude_cli")
    box.model.push_update(OPS_TURN_ONE, {"ops": []})
    session = box.claude(TURN_ONE, env=env)["session_id"]
    assert FACT in map_facts(box.read_map(session))
    box.claude("Which port again? Check it in app/db.py.", "--resume", session, env=env)

    updates = box.model.of("update")
    # one per turn (the second names a path, so it is no trivial turn that waits for the next):
    # no hook ran inside the inner call
    assert len(updates) == 2, box.model.kinds()
    for request in updates:
        assert request.headers.get("user-agent", "").startswith("claude-cli/")  # the real CLI
        assert OPEN not in request.all_text
        assert "hook additional context" not in request.all_text.lower()
    assert all(OPEN not in r.all_text for kind in ("search", "observe") for r in box.model.of(kind))
    projects = box.home / ".claude" / "projects"
    slugs = sorted(p.name for p in projects.iterdir()) if projects.is_dir() else []
    assert slugs == [transcript_path(box.home, box.project, session).parent.name], slugs
    assert not list((box.cms_home / "sandbox").rglob("*.jsonl"))
    assert not box.crashes()


def test_pre_tool_use_context_reaches_the_request_before_a_read_of_a_file_with_a_bugfix(
    claude_box: Sandbox,
) -> None:
    box = claude_box
    source = box.project / "src" / "upload.py"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("def upload(data):\n    return send(data)\n", encoding="utf-8")
    body = "uploads failed on 503 from the CDN; fixed by retrying three times with backoff"
    done = box.run(
        [str(box.cms), "remember", "--kind", "bugfix", "--title", "Upload retries",
         "--body", body, "--files", "src/upload.py"],
        box.env(),
    )  # fmt: skip
    assert done.returncode == 0, done.describe()
    # the session briefing and prompt recall would show the bugfix first: only PreToolUse here
    (box.cms_home / "cms.toml").write_text(
        "[hooks]\nbriefing_limit = 0\nrecall_limit = 0\n", encoding="utf-8"
    )
    box.model.push_main(FakeReply.tool_use("Read", {"file_path": str(source)}), "Read it.")

    box.claude("Have a look at the sending code.")

    main = box.model.of("main")
    assert len(main) == 2, box.model.kinds()
    assert body not in main[0].all_text  # nothing was said of the file before the tool ran
    blocks = [b for b in memory_blocks(main[1].all_text) if "upload.py" in b]
    assert blocks, f"no PreToolUse context in the request after the Read; log:\n{box.log_tail()}"
    assert "[Stored memory about upload.py]" in blocks[-1] and body in blocks[-1]
    assert not box.crashes()
