"""The current task record, its file (<chat dir>/task.json) and its text.

A chat's task: the goal (the request it works on, with at most two later asks that refined it),
the last few pieces of finished work (`done`), the stated next steps (`next`), the goal before
it (one, as history), and the turn and time it was last brought up to date from. The record is
kept within TASK_CHARS rendered characters. The worker writes it (atomically, every text
redacted on the way to the disk); SessionStart reads it after compaction or on resume and
`cms show` prints it. Reading is standard library only: it runs on the hook fast path.
"""

from __future__ import annotations

import os

from cms import jsonio, paths
from cms.privatefile import write_atomically
from cms.record import Record, field

FILE_NAME = "task.json"
VERSION = 1
TASK_CHARS = 800  # the whole rendered task (the lines of task_lines) stays within this
GOAL_CHARS = 240
ITEM_CHARS = 160  # one refinement, done item or next step
MAX_REFINED = 2
MAX_DONE = 5
MAX_NEXT = 4


class CurrentTask(Record, frozen=True):
    """What a chat is doing. Lists are oldest first (`next` in the order to do them)."""

    goal: str = ""
    refined: list[str] = field(default_factory=list)  # later asks that refined the goal
    done: list[str] = field(default_factory=list)
    next: list[str] = field(default_factory=list)
    previous_goal: str = ""
    goal_turn: int = 0  # the turn the goal was asked in
    turn: int = 0  # the last turn folded in (0: unknown, e.g. no transcript)
    key: str = ""  # that exchange's key (agent and last transcript record), when it had one
    updated_at: str = ""  # ISO 8601 UTC

    def is_empty(self) -> bool:
        return not (self.goal or self.done or self.next or self.previous_goal)

    def to_dict(self) -> dict[str, object]:
        return {
            "version": VERSION,
            "goal": self.goal,
            "refined": list(self.refined),
            "done": list(self.done),
            "next": list(self.next),
            "previous_goal": self.previous_goal,
            "goal_turn": self.goal_turn,
            "turn": self.turn,
            "key": self.key,
            "updated_at": self.updated_at,
        }


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _texts(value: object, keep: int, *, newest_last: bool = True) -> list[str]:
    """The non-empty texts of a list: the last `keep` (newest_last), else the first."""
    if not isinstance(value, list):
        return []
    found = [t for t in (_text(v) for v in value) if t]
    return found[-keep:] if newest_last else found[:keep]


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def task_from_dict(data: object) -> CurrentTask | None:
    """The task a file holds (tolerant: odd fields are left out); None for anything else, or a
    file of a later version."""
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    task = CurrentTask(
        goal=_text(data.get("goal")),
        refined=_texts(data.get("refined"), MAX_REFINED),
        done=_texts(data.get("done"), MAX_DONE),
        next=_texts(data.get("next"), MAX_NEXT, newest_last=False),
        previous_goal=_text(data.get("previous_goal")),
        goal_turn=_count(data.get("goal_turn")),
        turn=_count(data.get("turn")),
        key=_text(data.get("key")),
        updated_at=_text(data.get("updated_at")),
    )
    return None if task.is_empty() else within_budget(task)


# ----------------------------------------------------------------------------- the text


def task_heading(task: CurrentTask) -> str:
    """The heading the hooks inject the task under."""
    when = f", as of turn {task.turn}" if task.turn else ""
    return f"[Current task of this chat{when} (goal, done, next; read from its exchanges)]"


def task_lines(task: CurrentTask) -> list[str]:
    """The task as lines: the goal and its refinements, what is done, what comes next, the
    earlier goal."""
    lines = [f"Goal: {task.goal}"] if task.goal else []
    lines += [f"Refined: {text}" for text in task.refined]
    lines += [f"Done: {text}" for text in task.done]
    lines += [f"Next: {text}" for text in task.next]
    if task.previous_goal:
        lines.append(f"Earlier goal: {task.previous_goal}")
    return lines


def task_size(task: CurrentTask) -> int:
    """Characters of the rendered task: its heading and lines, one per line."""
    return len("\n".join([task_heading(task), *task_lines(task)]))


def within_budget(task: CurrentTask, budget: int = TASK_CHARS) -> CurrentTask:
    """The task cut down to `budget` rendered characters by whole items: the oldest done items
    first (the newest is kept longest), then the earlier goal, the oldest refinements, the last
    next steps. Never cuts inside an item."""
    if task_size(task) <= budget:
        return task
    done, refined, steps = list(task.done), list(task.refined), list(task.next)
    previous = task.previous_goal
    trimmed = task
    while True:
        if len(done) > 1:
            done.pop(0)
        elif previous:
            previous = ""
        elif refined:
            refined.pop(0)
        elif len(steps) > 1:
            steps.pop()
        elif done:
            done.pop()
        elif steps:
            steps.pop()
        else:
            return trimmed  # a goal alone is kept: it is at most GOAL_CHARS long
        trimmed = task.replace(done=done, refined=refined, next=steps, previous_goal=previous)
        if task_size(trimmed) <= budget:
            return trimmed


# ----------------------------------------------------------------------------- the file


def task_file(chat_folder: str) -> str:
    """The task file of the chat whose files (its map among them) live in chat_folder."""
    return os.path.join(chat_folder, FILE_NAME)


def read_task_file(path: str) -> CurrentTask | None:
    """The task stored at path; None when there is none or it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = jsonio.loads(handle.read())
    except (OSError, ValueError):
        return None
    return task_from_dict(data)


def load_task(session_id: str) -> CurrentTask | None:
    """The chat's current task, or None."""
    return read_task_file(task_file(paths.chat_dir(session_id)))


def save_task(session_id: str, task: CurrentTask) -> None:
    """Store the chat's task (atomic replace; every text redacted first); raise OSError."""
    from cms.transcripts.redact import redact_text

    clean = within_budget(
        task.replace(
            goal=redact_text(task.goal),
            refined=[redact_text(t) for t in task.refined],
            done=[redact_text(t) for t in task.done],
            next=[redact_text(t) for t in task.next],
            previous_goal=redact_text(task.previous_goal),
        )
    )
    data = jsonio.dumps(clean.to_dict(), ensure_ascii=False).encode("utf-8")
    write_atomically(task_file(paths.chat_dir(session_id)), data)
