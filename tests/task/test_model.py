"""The task record's file: atomic, private, redacted, tolerant to read, within its budget."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from cms import paths
from cms.task.model import (
    FILE_NAME,
    MAX_DONE,
    TASK_CHARS,
    CurrentTask,
    load_task,
    save_task,
    task_heading,
    task_lines,
    task_size,
    within_budget,
)

SESSION = "chat-task-model"


def task_path() -> Path:
    return Path(paths.chat_dir(SESSION)) / FILE_NAME


def test_a_saved_task_reads_back_and_is_private() -> None:
    task = CurrentTask(
        goal="Add rate limiting to the API.",
        refined=["Make the limit configurable per route."],
        done=["Implemented the token bucket."],
        next=["Step 2: wire it into the middleware."],
        previous_goal="Fix the flaky login test.",
        goal_turn=3,
        turn=7,
        key="claude_code:u7",
        updated_at="2026-11-29T10:00:00Z",
    )
    save_task(SESSION, task)
    assert load_task(SESSION) == task
    assert stat.S_IMODE(os.stat(task_path()).st_mode) == 0o600
    assert json.loads(task_path().read_text(encoding="utf-8"))["version"] == 1
    assert task_heading(task).startswith("[Current task of this chat, as of turn 7")
    assert task_lines(task) == [
        "Goal: Add rate limiting to the API.",
        "Refined: Make the limit configurable per route.",
        "Done: Implemented the token bucket.",
        "Next: Step 2: wire it into the middleware.",
        "Earlier goal: Fix the flaky login test.",
    ]


def test_every_text_is_redacted_before_it_reaches_the_disk() -> None:
    secret = "sk-ant-api03-Zq8xW3vB7nM2kL9pR4tY6uI1oP5aS0dF-abcdefghij"
    task = CurrentTask(
        goal=f"Deploy staging with the key {secret}",
        done=["Ran curl -u deploy:Cu7lPassw0rdX https://api.example.com/v1/deploy"],
        next=["export DB_PASSWORD=envSecretValue42 then migrate"],
        previous_goal="My password is Pr0sePassw0rdW for the staging box",
    )
    save_task(SESSION, task)
    text = task_path().read_text(encoding="utf-8")
    for needle in (secret, "Cu7lPassw0rdX", "envSecretValue42", "Pr0sePassw0rdW"):
        assert needle not in text
    assert "Deploy staging" in text and "REDACTED" in text


def test_a_missing_damaged_or_foreign_file_is_no_task() -> None:
    assert load_task(SESSION) is None
    folder = task_path().parent
    folder.mkdir(parents=True)
    for content in (b"\x00\xff not json", b"[1, 2]", b'{"version": 2, "goal": "x"}', b"{}"):
        task_path().write_bytes(content)
        assert load_task(SESSION) is None
    task_path().write_text(
        json.dumps(
            {
                "version": 1,
                "goal": 5,
                "done": ["ok", 3, None, ""],
                "turn": True,
                "refined": [f"r{n}" for n in range(9)],
                "next": [f"n{n}" for n in range(6)],
            }
        ),
        encoding="utf-8",
    )
    task = load_task(SESSION)
    assert task == CurrentTask(done=["ok"], refined=["r7", "r8"], next=["n0", "n1", "n2", "n3"])


def test_the_task_is_cut_to_its_budget_by_whole_items_newest_done_last_to_go() -> None:
    task = CurrentTask(
        goal="g " * 100,
        refined=["r" * 150] * 2,
        done=[f"done {n} " + "d" * 140 for n in range(MAX_DONE)],
        next=["n" * 150] * 4,
        previous_goal="p" * 200,
    )
    cut = within_budget(task)
    assert task_size(cut) <= TASK_CHARS
    assert cut.goal == task.goal and cut.done[-1] == task.done[-1]
    assert cut.previous_goal == "" and cut.refined == []
    assert cut.next[0] == task.next[0]
    small = CurrentTask(goal="Add rate limiting.")
    assert within_budget(small) is small
