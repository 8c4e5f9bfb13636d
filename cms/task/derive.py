"""The current task brought up to date from one exchange, in code: the same with every provider,
offline too.

The user's request becomes the goal, or refines it when it goes on with it; a question, an
acknowledgement, "go on" or a standing rule leaves the goal as it is; a new, unrelated request
starts a new goal and keeps the old one as the earlier goal. What the assistant reports as
finished becomes `done` (the newest few, short whole sentences); the next steps stated near the
end of its answer (and by the user), and the open items of its todo list, become `next`;
finished work takes the steps it covers out of `next`. Pure: no I/O.
"""

from __future__ import annotations

import re

from cms.excerpt import fit_text
from cms.language import taskcues
from cms.providers.local.sentences import Unit, prompt_text, text_units
from cms.providers.local.tools import PLAN_TOOLS, plan_items
from cms.task.model import (
    GOAL_CHARS,
    ITEM_CHARS,
    MAX_DONE,
    MAX_NEXT,
    MAX_REFINED,
    CurrentTask,
    within_budget,
)
from cms.transcripts.exchange import Exchange

TAIL_UNITS = 10  # next steps are read from an answer's last sentences (its final message)
DONE_PER_TURN = 3  # finished work one exchange adds at most (its latest reports)
LONG_UNIT = 1200  # a longer "sentence" is pasted text (a log, a file), not the request
SHORT_ASK = 5  # an ask of fewer words takes the sentence before it along ("... Can you look?")
_OPEN = ("in_progress", "pending")

# "**Next steps:**" on a line of its own is a lead-in, as "Next steps:" is.
_BOLD_LEAD = re.compile(
    r"^([ \t]*)(?:\*\*|__)([^*_\n]{1,80}?)(?::(?:\*\*|__)|(?:\*\*|__):)\s*$", re.M
)


def _units(text: str, source: str) -> list[Unit]:
    """The sentences and bullets of a text (no code, no pasted blocks, no lead-ins: a lead-in
    is the context of the units below it)."""
    units = text_units(_BOLD_LEAD.sub(r"\1\2:", text), source)
    return [u for u in units if not (u.command or u.lead) and len(u.text) <= LONG_UNIT]


def _push(items: list[str], text: str, keep: int) -> list[str]:
    """items (oldest first) with text added as the newest, shortened to whole words; an older
    item saying the same goes, and only the newest `keep` stay."""
    item = fit_text(text, ITEM_CHARS)
    if not item:
        return items
    return [*(i for i in items if not taskcues.same_item(i, item)), item][-keep:]


def _append(items: list[str], text: str, keep: int) -> list[str]:
    """items (first first) with text added at the end, unless one says the same or `keep` are
    there already."""
    item = fit_text(text, ITEM_CHARS)
    if not item or len(items) >= keep or any(taskcues.same_item(i, item) for i in items):
        return items
    return [*items, item]


# ----------------------------------------------------------------------------- the request


def read_request(exchange: Exchange) -> tuple[str, bool, list[str]]:
    """The work the prompt asks for ("" when it asks none: a question, an acknowledgement, a
    rule, "go on"), whether it says it goes on with what came before ("Also ...") and the next
    steps it states."""
    units = _units(prompt_text(exchange), "user")
    steps = [s for s in (taskcues.next_step(u.text, u.context) for u in units) if s]
    asks = [i for i, u in enumerate(units) if taskcues.is_request(u.text)]
    if not asks or taskcues.carries_on(" ".join(units[i].text for i in asks)):
        return "", False, steps
    first = asks[0]
    ask = taskcues.clean_ask(units[first].text)
    parts = [ask]
    if first > 0 and (len(ask.split()) < SHORT_ASK or taskcues.points_back(ask)):
        before = units[first - 1].text
        if taskcues.is_statement(before):
            parts = [before, units[first].text]
    for unit in units[first + 1 :]:
        if not (taskcues.is_request(unit.text) or taskcues.is_statement(unit.text)):
            break
        parts.append(unit.text)
    return fit_text(" ".join(parts), GOAL_CHARS), taskcues.says_go_on(units[first].text), steps


def with_request(task: CurrentTask, ask: str, turn: int, *, goes_on: bool = False) -> CurrentTask:
    """The task after the user asked for `ask`: unchanged when it asks the same again, refined
    when it goes on with the goal (`goes_on`: it says so), else a new goal (the old one kept as
    the earlier goal)."""
    if not ask:
        return task
    if not task.goal:
        return task.replace(goal=ask, goal_turn=turn)
    if any(taskcues.same_item(ask, text) for text in (task.goal, *task.refined)):
        return task
    if goes_on or taskcues.relates(ask, [task.goal, *task.refined, *task.next, *task.done]):
        return task.replace(refined=_push(list(task.refined), ask, MAX_REFINED))
    return CurrentTask(
        goal=ask,
        previous_goal=task.goal,
        goal_turn=turn,
        turn=task.turn,
        key=task.key,
        updated_at=task.updated_at,
    )


# ----------------------------------------------------------------------------- the answer


def read_answer(exchange: Exchange) -> tuple[list[str], list[str]]:
    """What the assistant reports as finished (its latest DONE_PER_TURN reports) and the next
    steps it states in its last TAIL_UNITS sentences."""
    units = _units(exchange.assistant, "assistant")
    tail = len(units) - TAIL_UNITS
    done: list[str] = []
    steps: list[str] = []
    for n, unit in enumerate(units):
        text = taskcues.strip_opener(unit.text)
        step = taskcues.next_step(text, unit.context) if n >= tail else ""
        if step:
            steps.append(step)
        elif taskcues.is_done(text, unit.context):
            done.append(text)
    return done[-DONE_PER_TURN:], steps


def read_plan(exchange: Exchange, earlier_next: list[str]) -> tuple[list[str], list[str]] | None:
    """From the agent's last todo list (TodoWrite, update_plan) of the exchange: the items it
    finished in this exchange (open in an earlier list of it, or a next step before) and its
    open items (in progress first); None without a todo list."""
    plans = [t for t in exchange.tools if t.name.lower() in PLAN_TOOLS and not t.is_error]
    if not plans:
        return None
    last = [(text.strip(), status) for text, status in plan_items(plans[-1]) if text.strip()]
    was_open = {
        t.strip() for tool in plans[:-1] for t, status in plan_items(tool) if status in _OPEN
    }
    finished = [
        text
        for text, status in last
        if status == "completed"
        and (text in was_open or any(taskcues.same_item(text, s) for s in earlier_next))
    ]
    opened = sorted((item for item in last if item[1] in _OPEN), key=lambda i: i[1] != _OPEN[0])
    return finished, [text for text, _ in opened]


# ----------------------------------------------------------------------------- the fold


def fold(task: CurrentTask, exchange: Exchange) -> CurrentTask:
    """The task brought up to date from one exchange (its turn, key and time are the caller's
    to set)."""
    ask, goes_on, asked_steps = read_request(exchange)
    task = with_request(task, ask, exchange.turn, goes_on=goes_on)
    done, said_steps = read_answer(exchange)
    plan = read_plan(exchange, list(task.next))
    if plan is not None:
        done = [*plan[0], *done][-DONE_PER_TURN:]
    kept_done = list(task.done)
    for text in done:
        kept_done = _push(kept_done, text, MAX_DONE)
    fresh = [*plan[1]] if plan is not None else []
    fresh += [*said_steps, *asked_steps]
    earlier = [] if plan is not None else [s for s in task.next if not _covered(s, done)]
    steps: list[str] = []
    for text in [*fresh, *earlier]:
        steps = _append(steps, text, MAX_NEXT)
    return within_budget(task.replace(done=kept_done, next=steps))


def _covered(step: str, done: list[str]) -> bool:
    return any(taskcues.covers(text, step) for text in done)
