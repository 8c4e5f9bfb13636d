"""Project memory reaches every later chat: three chats of one project through the hook
protocol with the local provider (CMS_SYNC=1 runs each job inside its hook), then a new chat."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from cms.observations.access import open_project_memory
from cms.observations.ids import chat_tag
from tests.hooks.helpers import (
    hook_context,
    hook_env,
    replay_chat_hooks,
)
from tests.observations.gitrepo import commit_file, git, make_repo

CHAT_A = [
    (
        "We decided to use PostgreSQL 16 for the orders database because we need JSONB and "
        "row-level locks.",
        "Noted: the orders database is PostgreSQL 16, chosen for JSONB and row-level locks.",
    ),
    (
        "The login test keeps failing on CI, can you look?",
        "The root cause was a race in the token refresh: the retry ran before refresh() "
        "resolved. The fix is to await refresh() before retrying the request.",
    ),
    (
        "From now on, always start function argument names with 'e_'.",
        "Understood, function argument names will start with 'e_'.",
    ),
]
CHAT_B = [
    (
        "From now on, start function argument names with 'j_' instead.",
        "Got it: function argument names start with 'j_' from now on.",
    ),
    (
        "Remind me: what did we decide about the orders database?",
        "We use PostgreSQL 16 for the orders database.",
    ),
]


def env() -> dict[str, str]:
    return hook_env({"CMS_SYNC": "1", "CMS_PROVIDER": "local"})


def hook(event: str, payload: dict[str, Any]) -> str:
    return hook_context(event, payload, env())


def replay_chat(tmp_path: Path, repo: Path, session: str, turns: list[tuple[str, str]]) -> None:
    replay_chat_hooks(tmp_path, repo, session, turns, env())


def run_search_line(context: str, query: str, cwd: Path) -> str:
    line = next(x for x in context.splitlines() if x.startswith("To read stored facts"))
    command = line.split("run: ", 1)[1].replace('"<query>"', json.dumps(query))
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=env(), cwd=cwd, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_new_chat_gets_the_changed_rule_and_finds_yesterdays_facts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    other = make_repo(tmp_path / "elsewhere")
    replay_chat(tmp_path, repo, "chat-a-0001", CHAT_A)
    replay_chat(tmp_path, repo, "chat-b-0002", CHAT_B)

    start = hook(
        "SessionStart", {"session_id": "chat-c-0003", "cwd": str(repo), "source": "startup"}
    )
    prompt = hook(
        "UserPromptSubmit",
        {
            "session_id": "chat-c-0003",
            "cwd": str(repo),
            "prompt": "What prefix should I use for function argument names?",
        },
    )
    shown = start + "\n" + prompt
    assert "'j_'" in shown
    assert "'e_'" not in shown
    assert "in force" in start

    database = run_search_line(start, "which database do we use for orders", repo)
    assert "PostgreSQL 16" in database and "JSONB" in database
    assert f"chat {chat_tag('chat-a-0001')}" in database  # the hit names the chat it came from
    cause = run_search_line(start, "root cause of the login test failure", repo)
    assert "race in the token refresh" in cause
    assert "'e_'" not in run_search_line(start, "function argument names prefix", repo)

    elsewhere = hook(
        "SessionStart", {"session_id": "chat-x-0004", "cwd": str(other), "source": "startup"}
    )
    assert "j_" not in elsewhere and "PostgreSQL" not in elsewhere
    foreign = subprocess.run(
        ["sh", "-c", run_command_of(start, "orders database")],
        capture_output=True,
        text=True,
        env=env(),
        cwd=other,
        check=False,
    )
    assert "PostgreSQL" in foreign.stdout  # --session names chat C: its project, not the folder
    local = subprocess.run(
        [*python_cms(), "search", "orders database"],
        capture_output=True,
        text=True,
        env=env(),
        cwd=other,
        check=False,
    )
    assert "PostgreSQL" not in local.stdout  # without a chat: the folder's project only

    memory = open_project_memory(repo, create=False)
    assert memory is not None
    with memory:
        stored = [f"{o.title} {o.body}" for o in memory.store.list_observations()]
        facts = memory.store.read(lambda c: [r[0] for r in c.execute("SELECT text FROM facts")])
    assert not any("Remind me" in text or text.endswith("?") for text in stored + facts)


def test_a_new_chats_search_prints_the_changed_port_first_and_the_old_one_as_history(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "ledger")
    replay_chat(
        tmp_path,
        repo,
        "chat-p-0001",
        [("The staging database port is 5433 on staging-db.internal.", "Noted: port 5433.")],
    )
    replay_chat(
        tmp_path,
        repo,
        "chat-p-0002",
        [("Ops moved the staging database behind pgbouncer: its port is 6543 now.", "Updated.")],
    )
    start = hook(
        "SessionStart", {"session_id": "chat-p-0003", "cwd": str(repo), "source": "startup"}
    )
    prompt = hook(
        "UserPromptSubmit",
        {
            "session_id": "chat-p-0003",
            "cwd": str(repo),
            "prompt": "add a readiness check that connects to the staging database port",
        },
    )
    assert "5433" not in start + prompt
    found = [
        line
        for line in subprocess.run(
            [*python_cms(), "search", "staging database port"],
            capture_output=True,
            text=True,
            env=env(),
            cwd=repo,
            check=True,
        ).stdout.splitlines()
        if "5433" in line or "6543" in line
    ]
    assert "6543" in found[0]
    assert any("history, now" in line and "port is 5433" in line for line in found)


def test_a_new_chat_is_pushed_the_users_own_rule_never_the_assistants_narration(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "billing")
    replay_chat(
        tmp_path,
        repo,
        "chat-u-0001",
        [
            (
                "We always use the logging module in app/, never print.",
                "Understood. I replaced the two print calls in app/cli.py with logger.info.",
            ),
            (
                "add JSON error responses to the API",
                "Going forward, every endpoint in app/api.py returns errors as "
                "{error: {code, message}}. I added app/errors.py with the handler.",
            ),
        ],
    )
    start = hook(
        "SessionStart", {"session_id": "chat-u-0002", "cwd": str(repo), "source": "startup"}
    )
    rules = start.split("in force", 1)[1].split("\n[", 1)[0]
    assert "logging module" in rules
    assert "every endpoint" not in rules and "I replaced" not in rules


def search_in(repo: Path, query: str) -> str:
    return subprocess.run(
        [*python_cms(), "search", query],
        capture_output=True,
        text=True,
        env=env(),
        cwd=repo,
        check=True,
    ).stdout


def test_what_a_chat_said_on_an_unmerged_branch_reaches_main_only_once_merged(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "shop")
    git(repo, "checkout", "-q", "-b", "feat/cache")
    commit_file(repo, "cache.py", "# cache\n", "cache work")
    said = "The session cache runs on Valkey 8 with a 15 minute TTL."
    replay_chat(tmp_path, repo, "chat-f-0001", [(said, "Noted: Valkey 8, 15 minute TTL.")])
    assert "Valkey 8" in search_in(repo, "session cache TTL")  # its own branch sees it

    git(repo, "checkout", "-q", "main")
    commit_file(repo, "main.py", "# main\n", "main work")
    assert "Valkey" not in search_in(repo, "session cache TTL")

    git(repo, "merge", "-q", "--no-ff", "-m", "merge feat/cache", "feat/cache")
    assert "Valkey 8" in search_in(repo, "session cache TTL")


def run_command_of(context: str, query: str) -> str:
    line = next(x for x in context.splitlines() if x.startswith("To read stored facts"))
    return line.split("run: ", 1)[1].replace('"<query>"', json.dumps(query))


def python_cms() -> list[str]:
    import sys

    return [sys.executable, "-m", "cms"]


def test_a_rule_shown_at_session_start_is_not_injected_again_by_the_prompt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    replay_chat(tmp_path, repo, "chat-a-0001", CHAT_A)
    start = hook(
        "SessionStart", {"session_id": "chat-c-0003", "cwd": str(repo), "source": "startup"}
    )
    assert "'e_'" in start
    prompt = hook(
        "UserPromptSubmit",
        {"session_id": "chat-c-0003", "cwd": str(repo), "prompt": "function argument names prefix"},
    )
    assert "'e_'" not in prompt  # shown as O<n> already; its fact id counts as shown too
    fresh = hook(  # the same prompt in a chat that was not shown the rule does get it
        "UserPromptSubmit",
        {"session_id": "chat-d-0004", "cwd": str(repo), "prompt": "function argument names prefix"},
    )
    assert "'e_'" in fresh


def test_cms_get_prints_the_rule_in_force_with_the_version_it_replaced(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop")
    replay_chat(tmp_path, repo, "chat-a-0001", CHAT_A)
    replay_chat(tmp_path, repo, "chat-b-0002", CHAT_B)
    run = [*python_cms(), "search", "function argument names prefix", "--json"]
    found = json.loads(
        subprocess.run(run, capture_output=True, text=True, env=env(), cwd=repo, check=True).stdout
    )
    rule = next(r for r in found["results"] if "'j_'" in r["text"] and r["type"] == "fact")
    got = subprocess.run(
        [*python_cms(), "get", rule["id"], "--cwd", str(repo), "--json"],
        capture_output=True, text=True, env=env(), check=True,
    )  # fmt: skip
    item = json.loads(got.stdout)["items"][0]
    assert item["state"] == "in force" and "'j_'" in item["text"]
    assert any("'e_'" in old["text"] for old in item["history"])
    again = subprocess.run(
        [*python_cms(), "reindex", "--cwd", str(repo)], capture_output=True, text=True, env=env(), check=True
    )  # fmt: skip
    assert again.stdout.startswith("indexed ")
    after = json.loads(
        subprocess.run(run, capture_output=True, text=True, env=env(), cwd=repo, check=True).stdout
    )["results"]
    texts = [r["text"] for r in after]
    current = next(n for n, text in enumerate(texts) if "'j_'" in text)
    for n, r in enumerate(after):  # the old rule only as history, after the one in force
        if "'e_'" in r["text"]:
            assert r["replaced_by"] and n > current, r
    unknown = subprocess.run(
        [*python_cms(), "get", "O999", "--cwd", str(repo)], capture_output=True, text=True, env=env()
    )  # fmt: skip
    assert unknown.returncode == 1 and unknown.stderr.count("\n") == 1
