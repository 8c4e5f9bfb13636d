"""The current task from exchanges, in code: requests become or refine the goal, questions and
acknowledgements never do, finished work becomes `done`, stated next steps become `next`."""

from __future__ import annotations

import json

import pytest

from cms.task.derive import fold, read_answer, read_request
from cms.task.model import GOAL_CHARS, ITEM_CHARS, MAX_DONE, TASK_CHARS, CurrentTask, task_size
from cms.transcripts.exchange import Exchange, ToolCall


def exchange(
    user: str, assistant: str = "", turn: int = 1, tools: tuple[ToolCall, ...] = ()
) -> Exchange:
    return Exchange(user=user, assistant=assistant, turn=turn, tools=tools)


def run(*turns: tuple[str, str]) -> CurrentTask:
    task = CurrentTask()
    for n, (user, assistant) in enumerate(turns, start=1):
        task = fold(task, exchange(user, assistant, n))
    return task


@pytest.mark.parametrize(
    ("prompt", "goal"),
    [
        ("Could you add a --verbose flag to the CLI?", "Add a --verbose flag to the CLI."),
        ("I want you to refactor the parser into modules.", "Refactor the parser into modules."),
        ("Let's add caching to the search endpoint.", "Add caching to the search endpoint."),
        ("OK, now fix the typo in README.md", "Fix the typo in README.md"),
        (
            "We need to fix the memory leak in the worker.",
            "We need to fix the memory leak in the worker.",
        ),
        (
            "The login test keeps failing on CI. Can you look?",
            "The login test keeps failing on CI. Can you look?",
        ),
        (
            "The login test is flaky on CI, can you look into it?",
            "The login test is flaky on CI, can you look into it?",
        ),
    ],
)
def test_a_request_becomes_the_goal(prompt: str, goal: str) -> None:
    assert read_request(exchange(prompt))[0] == goal
    assert run((prompt, "")).goal == goal


@pytest.mark.parametrize(
    "prompt",
    [
        "Can you explain how the cache works?",
        "How do I run the tests?",
        "What does the refill rate default to?",
        "Do we still use Postgres 16",
        "Remind me what we decided about the database.",
        "Continue.",
        "Yes, do it.",
        "Please keep going",
        "ok go ahead with step 2",
        "Great work, thanks!",
        "From now on, always run ruff before committing.",
        "Use Postgres 16 for billing.",
        "Continue implementation",
        "Let's see how it renders!",
        "Can you help me if I get stuck?",
        "Can you also show me how to write a decorator that takes parameters?",
    ],
)
def test_questions_acknowledgements_and_rules_are_never_a_goal(prompt: str) -> None:
    assert read_request(exchange(prompt))[0] == ""
    assert run((prompt, "It is 10 tokens per second.")).goal == ""
    started = run(("Add rate limiting to the API.", ""), (prompt, ""))
    assert started.goal == "Add rate limiting to the API." and started.refined == []


def test_the_sequence_of_a_task_request_progress_and_step_2_next() -> None:
    first = run(
        (
            "Can you add rate limiting to the API? We get hammered by bots.",
            "I'll start with a token bucket. I implemented the token bucket in "
            "`src/ratelimit.py`; its unit tests pass. Step 2 next: wiring it into the request "
            "middleware.",
        )
    )
    assert first.goal == "Add rate limiting to the API. We get hammered by bots."
    assert first.done == [
        "I implemented the token bucket in `src/ratelimit.py`; its unit tests pass."
    ]
    assert first.next == [
        "Step 2: wiring it into the request middleware."
    ]  # a plan is no next step

    later = fold(
        fold(first, exchange("What does the refill rate default to?", "10 per second.", 2)),
        exchange(
            "Go ahead with step 2.",
            "The bucket is now wired into the request middleware in src/app.py. All 14 tests "
            "pass.\n\n**Next steps:**\n1. Make the limit configurable per route\n2. Document the "
            "rate limit headers",
            3,
        ),
    )
    assert later.goal == first.goal and later.refined == []
    assert later.done[-2:] == [
        "The bucket is now wired into the request middleware in src/app.py.",
        "All 14 tests pass.",
    ]
    assert later.next == [
        "Make the limit configurable per route",
        "Document the rate limit headers",
    ]


def test_a_related_request_refines_the_goal_and_an_unrelated_one_starts_a_new_goal() -> None:
    task = run(
        ("Add rate limiting to the API.", "Added a token bucket in src/ratelimit.py."),
        ("Also make the limit configurable per route.", "Then I'll document the headers."),
    )
    assert task.goal == "Add rate limiting to the API."
    assert task.refined == ["Make the limit configurable per route."]
    assert task.next == ["Document the headers."]
    same = fold(task, exchange("Could you also add the Retry-After header?", "", 3))
    assert same.refined[-1] == "Add the Retry-After header."  # says it goes on
    task = fold(task, exchange("Add tests for it.", "", 3))  # names no subject of its own
    assert task.refined == ["Make the limit configurable per route.", "Add tests for it."]

    new = fold(
        task,
        exchange(
            "The login test is flaky on CI, can you look into it?",
            "The root cause was a race in the token refresh. I fixed it by awaiting refresh() "
            "before the retry. Want me to add a regression test?",
            4,
        ),
    )
    assert new.goal == "The login test is flaky on CI, can you look into it?"
    assert new.previous_goal == "Add rate limiting to the API."  # history of one
    assert new.refined == [] and new.next == []  # an offer is no next step
    assert new.done == ["I fixed it by awaiting refresh() before the retry."]
    again = fold(new, exchange("Fix the typo in the deploy docs.", "", 5))
    assert again.previous_goal == new.goal  # only the last earlier goal is kept


@pytest.mark.parametrize(
    ("answer", "step"),
    [
        ("Next, I'll add the Retry-After header.", "Add the Retry-After header."),
        ("Then I'll update the changelog.", "Update the changelog."),
        ("TODO: handle the burst size of zero", "Handle the burst size of zero"),
        ("Remaining: the per-route overrides.", "The per-route overrides."),
        ("Rate limiting: step 1 done, step 2 next.", "Rate limiting: step 1 done, step 2 next."),
        ("I'll wire the metrics next.", "I'll wire the metrics next."),
        (
            "The docs still need to mention the 429 status.",
            "The docs still need to mention the 429 status.",
        ),
    ],
)
def test_stated_next_steps_become_next(answer: str, step: str) -> None:
    assert read_answer(exchange("", answer))[1] == [step]


@pytest.mark.parametrize(
    "answer",
    [
        "Then the tests failed again.",
        "Next, I looked at the logs.",
        "Should I add the header next?",
        "I can add metrics next if you like.",
        "Let me check the config.",
    ],
)
def test_narration_questions_and_offers_are_no_next_step(answer: str) -> None:
    assert read_answer(exchange("", answer)) == ([], [])


def test_a_summary_lists_finished_work() -> None:
    answer = "Summary:\n- Token bucket in src/ratelimit.py\n- Middleware wired in src/app.py"
    done, steps = read_answer(exchange("", answer))
    assert done == ["Token bucket in src/ratelimit.py", "Middleware wired in src/app.py"]
    assert steps == []


def test_next_steps_are_read_from_the_end_of_the_answer_only() -> None:
    # (module names, not "module 0. ... module 1.": a segmenter reads a run of numbers as a list)
    narration = " ".join(f"I looked at the {name} module." for name in "abcdefghijkl")
    answer = f"Next, I'll update the config. {narration} Updated the config in cms.toml."
    done, steps = read_answer(exchange("", answer))
    assert steps == [] and done == ["Updated the config in cms.toml."]


def test_finished_work_takes_the_steps_it_covers_out_of_next() -> None:
    task = run(
        ("Add rate limiting.", "Step 2 next: wire the bucket into the request middleware."),
        ("Go on.", "Wired the bucket into the request middleware."),
    )
    assert task.next == []
    assert task.done == ["Wired the bucket into the request middleware."]


def test_a_short_step_is_dropped_once_the_work_reported_holds_all_its_words() -> None:
    task = run(
        (
            "Add rate limiting to the API.",
            "I added a token bucket in app/limit.py.\n\nNext steps:\n1. Add tests for the "
            "limiter.\n2. Document the limits in README.md.",
        ),
        ("Go on.", "Added the limiter to the upload endpoint."),
    )
    assert task.next == ["Add tests for the limiter.", "Document the limits in README.md."]
    task = run(
        (
            "Add rate limiting to the API.",
            "I added a token bucket in app/limit.py.\n\nNext steps:\n1. Add tests for the "
            "limiter.\n2. Document the limits in README.md.",
        ),
        ("Go on.", "I added tests for the limiter in tests/test_limit.py; they pass."),
    )
    assert task.next == ["Document the limits in README.md."]


def test_done_keeps_the_newest_few_and_says_each_thing_once() -> None:
    parts = ("parser", "lexer", "cache", "router", "logger", "scheduler", "mailer", "exporter")
    turns = [("Add rate limiting.", "")] + [
        ("Continue.", f"Added the {part} hooks to src/{part}.py.") for part in parts
    ]
    task = run(*turns)
    assert len(task.done) == MAX_DONE
    assert task.done[0] == "Added the router hooks to src/router.py."
    assert task.done[-1] == "Added the exporter hooks to src/exporter.py."
    again = fold(task, exchange("Continue.", "I added the exporter hooks to src/exporter.py.", 20))
    assert again.done[:-1] == task.done[:-1]  # said again: kept once, as the newest wording
    assert again.done[-1] == "I added the exporter hooks to src/exporter.py."


def test_the_agents_todo_list_gives_next_and_what_it_finished() -> None:
    def todo(*items: tuple[str, str]) -> ToolCall:
        todos = [{"content": text, "status": status} for text, status in items]
        return ToolCall("TodoWrite", json.dumps({"todos": todos}))

    start = todo(
        ("Add the token bucket", "in_progress"),
        ("Wire the middleware", "pending"),
        ("Write the docs", "pending"),
    )
    later = todo(
        ("Add the token bucket", "completed"),
        ("Write the docs", "pending"),
        ("Wire the middleware", "in_progress"),
    )
    task = fold(CurrentTask(), exchange("Add rate limiting.", "Working on it.", 1, (start, later)))
    assert task.done == ["Add the token bucket"]
    assert task.next == ["Wire the middleware", "Write the docs"]  # in progress first
    plan = todo(
        ("Add the token bucket", "completed"),
        ("Wire the middleware", "completed"),
        ("Write the docs", "in_progress"),
    )
    task = fold(task, exchange("Continue.", "", 2, (plan,)))
    assert task.done == ["Add the token bucket", "Wire the middleware"]
    assert task.next == ["Write the docs"]


def test_the_task_stays_small_and_never_cuts_a_word() -> None:
    words = " ".join(f"word{n}" for n in range(100))
    task = run(
        (f"Please refactor {words}.", f"Refactored {words}. Next, I'll document {words}."),
        ("Also clean up the tests.", "Previously: " + words),
    )
    assert len(task.goal) <= GOAL_CHARS and task.goal.endswith("\u2026")
    for item in [*task.refined, *task.done, *task.next]:
        assert len(item) <= ITEM_CHARS
        body = item.rstrip("\u2026").rstrip(".")
        assert body.split(" ")[-1] in [*words.split(" "), "tests"]  # whole words only
    assert task_size(task) <= TASK_CHARS
