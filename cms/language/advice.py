"""Talk about how to work that is no rule of this project: the local extractor's advice gates.

A wish that only opens the topic of the concrete rule said next, a rule that asks for a manner
and names nothing, a maxim said to nobody. Sentence frames and who says what next, never word
lists of the sessions. Pure functions on text: no kinds, no map, no I/O.
"""

from __future__ import annotations

import re

from cms.language.shapes import names_code
from cms.language.wording import has_literal, is_directive, is_general, is_rule

# the speaker's wish, not yet the rule: "I want you to focus on ...", "I'd like you to ..."
_WISH = re.compile(r"\b(?:i|we)(?: want| wanted| need| would like|'d like)\b", re.I)


def _concrete(text: str) -> bool:
    """A literal value, an identifier, a decorator, a path or code in backticks."""
    return has_literal(text) or names_code(text)


def opens_topic(text: str, following: str) -> bool:
    """The speaker's wish without a literal or a generaliser ("Jacob, as you refine your
    skills, I want you to focus on efficiency in your code."), followed at once by the same
    speaker's concrete rule ("Always add the @timer decorator to all your functions."): it
    names the area the rule belongs to, the rule is what is remembered."""
    if not _WISH.search(text) or is_general(text) or _concrete(text):
        return False
    return (
        bool(following) and _concrete(following) and (is_rule(following) or is_directive(following))
    )


# a manner made of adjectives: "in a clear and intuitive manner", "in a consistent way"
_MANNER = re.compile(
    r"\bin an? (?:more |less |very |really )?[a-z-]+(?:,? (?:and|or) [a-z-]+)? "
    r"(?:manner|fashion|way)\b(?! (?:that|which|to|of|for)\b)",
    re.I,
)


def asks_only_manner(text: str) -> bool:
    """A rule whose demand is a manner and that names nothing one could check ("Make sure you
    organize the repository in a clear and intuitive manner."): advice, not a convention."""
    if not _MANNER.search(text) or _concrete(text):
        return False
    return is_rule(text) or is_directive(text)


# "It's important to ...": a rule in an evaluative frame with no one it is asked of
_MAXIM = re.compile(
    r"^(?:(?:and|but|so|also|remember|again),? )*it(?:'s| is) (?:also |always |just as |very )?"
    r"(?:important|essential|crucial|vital|key|critical) to\b",
    re.I,
)
_OURS = re.compile(
    r"\b(?:you|your|we|our|us|here|this (?:project|repo|repository|codebase|code|app|module))\b",
    re.I,
)
# a product or tool named inside the sentence; an acronym alone is not one ("API", "HR")
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]\w*")


def is_maxim(text: str) -> bool:
    """A maxim of the craft said to nobody ("It's important to never store plain-text
    passwords."): it asks nothing of this project's people and names nothing of its own, so
    it is true everywhere and worth nothing tomorrow. "It's important that you always ..." or
    "it's important to run `mix ecto.migrate` first" stay."""
    if not _MAXIM.match(text.strip()):
        return False
    return not (_OURS.search(text) or _concrete(text) or _NAME.search(text))
