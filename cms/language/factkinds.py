"""The kind and importance of a chat map fact promoted to an observation, from its wording.

Owns the evidence rules (a rule asked of the listener is a preference, a made choice a
decision, a problem with its cause or fix a bugfix, a command at the head a command, ...) and
which facts are memory at all. Pure functions on text: no store, no map, no I/O.
"""

from __future__ import annotations

import re

from cms.language.kinds import STANDING_KINDS
from cms.language.subject import is_vague
from cms.language.wording import (
    has_literal,
    is_courtesy,
    is_directive,
    is_exclusion,
    is_firm,
    is_personal,
    is_question,
    is_rule,
    is_specific,
)

_FILE = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}|[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|"
    r"json|jsonl|toml|yaml|yml|md|rs|go|java|kt|rb|sh|sql|css|scss|html|c|h|cc|cpp|hpp|lock|"
    r"cfg|ini|txt|env))(?![\w/])"
)
# a shell command at the head of a fact (markdown, backticks included, is stripped from map
# facts): "Run bd ready to ...", "npm run start", "mix credo gen.config generates ..."
_CLI = (
    r"(?:git|npm|pnpm|npx|yarn|bun|deno|pip|pipx|uv|python3?|pytest|make|cargo|go|docker|"
    r"kubectl|helm|node|mix|iex|elixir|bundle|rake|rails|gradle|mvn|dotnet|ruff|mypy|tox|"
    r"poetry|terraform|bd|gh|cms|bash|sh|curl|psql|redis-cli|brew|apt|apt-get)"
)
_KIND_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "decision",
        re.compile(
            r"\b(decid(e|ed|es|ing)|decision|chose|chosen|choose|opted|went with|going with|"
            r"settled on|switch(ed)? (to|from)|agreed|in favou?r of)\b|\buse\b.*\binstead\b",
            re.IGNORECASE,
        ),
    ),
    (
        "bugfix",
        re.compile(
            r"\b(fix(ed|es|ing)?|bug(s|fix)?|errors?|exceptions?|traceback|crash(es|ed)?|broken|"
            r"regression|root cause|workaround)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "command",
        re.compile(
            rf"(^|\s)\$ \S|\brun(s|ning)?\s+`[^`]+`|`{_CLI}\b[^`]*`",
            re.IGNORECASE,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(prefers?|preferred|preference|always|never|(user|they) wants?|avoid)\b",
            re.IGNORECASE,
        ),
    ),
    ("file_summary", _FILE),
    (
        "learning",
        re.compile(
            r"\b(learn(ed|t|ing)?|turns? out|turned out|notes?|noted|noticed|discovered|"
            r"realis(ed|ed)|realized|TIL|found that|apparently)\b",
            re.IGNORECASE,
        ),
    ),
)


def guess_kind(text: str) -> str:
    """The observation kind a fact's wording suggests (first matching rule wins), else other."""
    for kind, pattern in _KIND_RULES:
        if pattern.search(text):
            return kind
    return "other"


def files_in(text: str) -> list[str]:
    """File paths named in a text, in order, without repeats."""
    return list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text)))


_NOT_MEMORY = re.compile(r"^(?:open question|task|question)\s*:", re.I)
_OPEN_ITEM = re.compile(r"^(?:todo|problem)\s*:", re.I)
_CAUSE = re.compile(
    r"\b(?:root cause|caused by|because|the fix|fixed by|resolved by|was causing)\b", re.I
)


_ASKED = re.compile(
    r"\b(?:that|if) you (?:always|never)\b|\byour\b.*\b(?:always|never)\b|"
    r"^(?:make sure|be sure|ensure|remember to)\b.*\byour?\b",
    re.I,
)


def is_memory(text: str) -> bool:
    """Whether a fact is worth keeping as project memory: never a question, a request or a task
    (a request is the chat's current task, not knowledge for later chats)."""
    flat = text.strip()
    return (
        bool(flat)
        and not is_question(flat)
        and not _NOT_MEMORY.match(flat)
        and not is_courtesy(flat)
    )


_COMMITTED = re.compile(
    r"^(?=.*\b(?:from now on|going forward|moving forward|in all|always|never|every|"
    r"continue\w*)\b)(?:\w+,? )?i(?:'ll| will) (?:definitely |certainly |also )?(?:make sure to|"
    r"always|never|continue|start|keep|remember to|stick to|follow)\b",
    re.I,
)
_DECIDED = re.compile(
    r"^(?:[^,]{1,40}, )?(?:we(?:'ll| will) be "
    r"(?:using|switching|moving)|we(?:'re| are) (?:now )?(?:using|switching)|you (?:can|should) "
    r"use|consider using)\b",
    re.I,
)
# the agent's step with the reason it was chosen for
_STEP_WITH_REASON = re.compile(
    r"^(?:now,? )?(?:let me|let's|i'll|i will|we'll|we will)\b(?!.*\b(?:might|maybe|try)\b).*"
    r"\b(?:so (?:that|both|the|it|we|they|all|each|every)|since|because|without|instead)\b",
    re.I,
)
_OPENER = re.compile(
    r"^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|lastly|finally|also|additionally|moreover|"
    r"one more thing|another thing|and|but|so|now|importantly)\s*[,:]\s+",
    re.I,
)
_COMMAND_HEAD = re.compile(
    rf"^(?:(?:[Rr]un|[Ee]xecute|[Uu]se|[Tt]ry|[Vv]erify(?: with)?)\s*:?\s+)?{_CLI}\s+[\w.:@/=-]+"
    rf"|^(?:[Rr]un|[Ee]xecute)\s+[a-z][\w.-]*\s+[a-z][\w.:-]*"
)
# what the local extractor writes for a command it saw run: "Run the tests with `mix test`"
_TOOL_COMMAND = re.compile(r"^[A-Z][a-z]+(?: [a-z]+){0,3} with `[^`]+`$")
# a command named as the subject of a statement about what it can do ("mix igniter.install can
# add them to mix.exs"): a finding about the tool, not a command to run
_CAPABILITY = re.compile(
    rf"^{_CLI}\s+[\w.:@/=-]+\s+(?:can|could|will|would|may|might|is|are|was|were|has|have|"
    r"does|doesn't|cannot|can't|should|must)\b"
)
# a clause after a dash that rules something out or keeps it as it is: the plan's decision
_RULED_OUT = re.compile(
    r"\s[\u2014\u2013-]\s+(?:just\s+\w+,\s+)?(?:don't|do not|never|keep|leave)\b", re.I
)
_FILE_HEAD = re.compile(
    r"^(?:[\w./-]+\.[A-Za-z][A-Za-z0-9]{0,5}|[\w.-]+/[\w./-]+)(?::\d+)?(?:\s*(?::|\u2014|\u2013| - )\s*\S|"
    r"\s+(?:is|are|holds|lists|contains|defines|declares|configures|sets|exports|reads|"
    r"writes|runs|stores|keeps|maps|owns|loads|starts|wires|registers)\b)"
)
_BUG_SEEN = re.compile(
    r"\b(?:that's|that is|this is|here's|found) the (?:bug|issue|problem|culprit)\b|"
    r"\bthe (?:bug|issue|problem) (?:is|was) (?:that|the|a)\b",
    re.I,
)


def kind_of_fact(text: str) -> str:
    """The observation kind of one fact, from evidence in its wording: a user's standing rule is
    a preference, a made choice a decision, a problem with its cause or fix a bugfix, a shell
    command at its head a command, a file named with its description a file summary, ..."""
    text = _OPENER.sub("", text.strip()) or text
    if _OPEN_ITEM.match(text):
        return "other"  # an open task or problem: the store has no kind for it, none fits
    if is_vague(text):
        return "other"  # "I want you to adopt a specific coding style": names nothing
    if is_personal(text):
        return "preference"  # the user's own ("I prefer ...", "call me Sam"): the user tier's
    if _TOOL_COMMAND.match(text):
        return "command"
    # code quoted in backticks is named, not prescribed: "Updated all hook scripts (`a.sh`)"
    # and "`hex_trace_id` always returns a binary" are no rules, "Run `bd ready`" a command
    text = text.replace("`", "")
    if is_exclusion(text) or _RULED_OUT.search(text):
        return "decision"  # "No custom Credo checks", "... - just document, don't optimize"
    if is_rule(text) and not _CAUSE.search(text):
        return "decision" if guess_kind(text) == "decision" else "preference"
    if _COMMAND_HEAD.match(text) and not _CAPABILITY.match(text):
        return "command"
    if _COMMITTED.match(text) and is_specific(text):
        return "preference"  # the agent restating a standing rule as its commitment
    if _STEP_WITH_REASON.search(text) and is_specific(text):
        return "decision"  # "I'll make get_current_trace_id public so both ... can use it"
    if _DECIDED.search(text) and is_specific(text):
        return "decision"  # "we'll be using GitHub", "you can use bcrypt": a choice made
    if _ASKED.search(text) and is_specific(text) and not _CAUSE.search(text):
        return "preference"  # "it's important that you always ...": asked of the listener
    if _BUG_SEEN.search(text):
        return "bugfix"  # a cause found ("that's the bug - my code treated it as ...")
    kind = guess_kind(text)
    if kind == "file_summary" and not _FILE_HEAD.match(text):
        kind = "learning" if is_specific(text) else "other"  # it names a file, not about it
    if kind == "preference" and not is_directive(text) and not _ASKED.search(text):
        # "it's always a pleasure": a remark, not a wish; "AGENTS.md says to prefer ...": a fact
        return "learning" if is_specific(text) else "other"
    if kind == "bugfix" and not _CAUSE.search(text) and not re.search(r"\bfix", text, re.I):
        return "learning"
    if kind == "other" and is_specific(text):
        return "learning"  # a fact about the project's code, files or tools
    return kind


def importance_of_fact(text: str, kind: str, mass: int = 1, archived: bool = False) -> int:
    """1-5 from the same evidence: an explicit rule outranks a remark, a rule that names its
    value (a literal, a tool, a version) outranks a vague one; a subtopic the talk kept coming
    back to (mass) adds one; archived facts lose one."""
    base = {"preference": 3, "decision": 3, "bugfix": 4, "command": 3, "learning": 3}.get(kind, 2)
    if kind in STANDING_KINDS:
        base += is_rule(text) or (is_firm(text) and (kind == "decision" or is_directive(text)))
        base += has_literal(text)
    if mass >= 4:
        base += 1
    if archived:
        base -= 1
    return max(1, min(5, base))
