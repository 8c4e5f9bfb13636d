"""Statements of how things are that carry no cue word: the local extractor's findings.

A finding is the agent's declarative sentence about a named piece of code or a product ("The
record has hex_trace_id as a binary already."); a transient one says what is going on now.
Sentence frames only (subject, finite verb, person, tense),
never word lists of the sessions. Pure functions on text: no kinds, no map, no I/O.
"""

from __future__ import annotations

import re

# the subject: a determiner and a noun phrase, or a piece of code, at the head; not a person
# ("I", "we", "you"), a pronoun or a demonstrative standing alone ("This is ...")
_SUBJECT = re.compile(
    r"^(?:(?:the|a|an|its|their|both|each|every|all|no|none of the|only the)\s+|"
    r"(?=`|\S*[_.(/]\S|(?-i:[A-Z][a-z]+[A-Z])))",
    re.I,
)
# a finite verb of a statement: a copula or an auxiliary, or a verb in the third person
_FINITE = re.compile(
    r"\b(?:is|are|was|were|isn't|aren't|wasn't|weren't|has|have|had|hasn't|haven't|does|do|"
    r"doesn't|don't|did|didn't|can|cannot|can't|won't|will|must|should|needs|expects|returns|"
    r"takes|requires|accepts|uses|reads|writes|runs|calls|holds|lives|means|shows|documents|"
    r"defines|sets|lists|contains|handles|stops|starts|fails|breaks|works|says|show|say|"
    r"need|expect|return|take|require|accept|use)\b",
    re.I,
)
# what is happening right now or how it went, not how things are: "is starting in the
# background", "is now ready", "are passing"
_TRANSIENT = re.compile(
    r"\b(?:is|are)\s+(?:now\s+|currently\s+|still\s+)?(?!being\b)[a-z]+ing\b|"
    r"\b(?:in|for) this (?:session|conversation|chat)\b|"
    r"\b(?:is|are)\s+(?:now\s+)?(?:ready|green|small|fine|clean)\b",
    re.I,
)
# code proper, or a name written with a capital inside the sentence (not an acronym)
_NAMED = re.compile(
    r"`[^`]+`|\b[\w-]+\.[a-z]{1,5}\b|\b[a-z0-9]+_[a-z0-9_]+\b|\w\(\)|\b\w+/\w+|"
    r"\b[A-Z][a-z]+[A-Z]\w*\b|(?<=[a-z,;:] )[A-Z][a-z]{2,}\b"
)


def is_finding(text: str, raw: str) -> bool:
    """The agent stating how a named thing is: a determiner or code as the subject, a finite
    verb, code or a product named ("The record is accessed as a tuple in Elixir, not a map",
    "The `do` block is being passed as an argument to `with_span`"); not what is going on right
    now ("Phoenix server is starting in the background") nor a status."""
    head = " ".join(text.split()[:8])
    return bool(
        _SUBJECT.match(text)
        and _FINITE.search(head)
        and not _TRANSIENT.search(text)
        and (_NAMED.search(raw) or _NAMED.search(text))
    )


def is_transient(text: str) -> bool:
    """A statement of what is going on now or in this session, not of how things are ("The
    graph MCP tools are not exposed in this session", "Phoenix server is starting")."""
    return bool(_TRANSIENT.search(text))
