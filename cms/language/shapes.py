"""What a sentence unit is by its shape, before what it says: the local extractor's noise gates.

Code lines (by character classes), menu and checklist items, table verdict cells, emoji cheers
and praise, evaluative remarks, deictic rule references and announcements, plans for the next
minute. Each gate is a general mechanism (mood, punctuation, sentence frame), never a list of
sentences. Pure functions on text: no classification of kinds (that is rules), no map, no I/O.
"""

from __future__ import annotations

import re
import unicodedata

# -- code lines ---------------------------------------------------------------------------------

_CODE_CHARS = frozenset("{}();=<>[]|&$\\")
_CODE_OPENING = re.compile(r"^\s*(?:[})\]]|//|/\*|#include\b|import\s+\{|<[a-zA-Z/]|\.\w+\()")
_CODE_ENDING = re.compile(r"(?:[{;]|\)\s*;?|=>|\);?\s*\}?)\s*$")
_CODE_TOKEN = re.compile(r"\w\(|\)\s*[{;.]|=>|->|::|\b(?:const|let|var|def|fn|return)\s+\w")


def is_code_line(raw: str) -> bool:
    """A line of source code, not prose: it opens or ends like code, or code punctuation and
    call tokens outweigh the words (`} catch (error) { logger.error(...)`). Code quoted in
    backticks inside a sentence does not count (it is part of the statement)."""
    text = re.sub(r"`[^`]*`", " x ", raw).strip()
    if not text:
        return False
    visible = [c for c in text if not c.isspace()]
    marks = sum(c in _CODE_CHARS for c in visible)
    tokens = len(_CODE_TOKEN.findall(text))
    words = len(re.findall(r"[A-Za-z]{2,}", text))
    if _CODE_OPENING.match(text) and (marks >= 2 or tokens):
        return True
    if _CODE_ENDING.search(text) and tokens and marks >= 3:
        return True
    return marks >= 4 and marks / max(len(visible), 1) > 0.08 and tokens >= 1 and words < 12


# -- menus, checklists, table cells ----------------------------------------------------------------

_MENU = re.compile(r"^\s*(?:\[[A-Za-z0-9]\]|\([A-Za-z0-9]\)|[A-Za-z]\))\s+\S")
_CHECKBOX = re.compile(r"^\s*(?:[-*+]\s+)?\[[ xX]\]\s+")
_CROSS = re.compile(r"[\u274c\u2716\u2717]")
_TICK_AFTER = re.compile(r"\S.*[\u2705\u2714\u2713]")  # a tick after the text: a cell's verdict
_PLAN_CONTEXT = re.compile(
    r"\b(?:plan|steps?|checklist|criteria|acceptance|definition of done|verification|verify|"
    r"success|phases?|"
    r"milestones?|options?|choices?|next|would|will|to do|proposed|proposal|approach(?:es)?|"
    r"alternatives?|goals?|scope|deliverables?)\b"
)


def is_menu_item(raw: str) -> bool:
    """An option of a menu or a checklist entry ("[b] Begin Development", "- [ ] tests pass"):
    a choice offered or a plan item, never a result."""
    return bool(_MENU.match(raw) or _CHECKBOX.match(raw))


def is_verdict_cell(text: str) -> bool:
    """A table cell or list line judged by a check or cross mark ("... \u274c No"): the mark
    is the content; without its table the line states nothing."""
    return bool(_CROSS.search(text) or _TICK_AFTER.search(text.strip()))


_PLAN_OUTLINE = re.compile(
    r"\b(?:plans?|planned|proposed|proposals?|options?|alternatives?|acceptance criteria|"
    r"roadmap|next steps)\b"
)


def under_plan(context: str, outline: str = "") -> bool:
    """The unit sits under a heading or lead-in about a plan, options or criteria (its lead-in
    or nearest heading, or any heading above it: "Proposed Beads" / "Task 1" / "Output files"):
    its items are what would be done or checked, not what was done."""
    return bool(_PLAN_CONTEXT.search(context) or _PLAN_OUTLINE.search(outline))


# -- cheers, praise, evaluative remarks -------------------------------------------------------

_EVALUATIVE = (
    r"(?:great|good|fantastic|awesome|amazing|excellent|wonderful|brilliant|perfect|nice|"
    r"solid|valuable|important|essential|crucial|exciting|versatile|powerful|helpful|useful|"
    r"beneficial|impressive|outstanding)"
)
_CHEER = re.compile(
    rf"\b{_EVALUATIVE}\b|\bready\b|\b(?:congrat\w*|well done|kudos|bravo|hooray)\b", re.I
)
_APPRAISAL = re.compile(
    rf"^(?:[\w'-]+\s+){{0,4}}(?:is|are|was|were|'s|has been|have been|has|have|had)\s+(?:\w+ly\s+)?(?:such\s+|really\s+|"
    rf"truly\s+|definitely\s+|always\s+)?(?:(?:a|an|the)\s+)?(?:\w+\s+)?{_EVALUATIVE}\b",
    re.I,
)
_RULE_FRAME = re.compile(r"\b(?:important|essential|crucial|good|best)\s+(?:to|that)\b", re.I)
_BENEFIT = re.compile(
    r"^(?:this|that|it|these|those|doing so|which)\s+(?:\w+\s+)?(?:helps?|will help|can help|"
    r"allows?|will allow|ensures?|will ensure|makes?|will make|improves?|promotes?|keeps?|"
    r"is (?:a|an) (?:\w+ )?(?:practice|way|step|habit|approach|idea|tool))\b",
    re.I,
)


_WORTH = re.compile(
    rf"\b(?:is|are|was|were)\s+(?:such\s+|really\s+|truly\s+)?(?:a|an)\s+{_EVALUATIVE}\s+"
    r"(?:example|idea|way|tool|place|practice|start|opportunity|resource|asset|habit|step)\b|"
    r"^(?:it's|it is|that's|that is) all (?:part of|about)\b|^(?:that|this) reminds me\b",
    re.I,
)
_ENCOURAGE = re.compile(
    r"^(?:and |so )?(?:don'?t|do not) (?:be afraid|worry|hesitate)\b|\byou'?ve got this\b|"
    r"\bkeep (?:it )?up\b",
    re.I,
)
_HEDGED = re.compile(
    r"^(?:i (?:also |really )?(?:think|believe|feel|guess|suppose)|maybe|perhaps)\b"
    r".*\b(?:might|could|may|would)\b",
    re.I,
)


def _has_symbol(text: str) -> bool:
    return any(unicodedata.category(c) == "So" for c in text)


def is_cheer(text: str) -> bool:
    """An exclamation of praise or cheer ("The spec is now ready for development! \U0001f680",
    "Voting is a fantastic idea!"): an emoji or an exclamation mark with an evaluative word."""
    exclaims = text.rstrip().endswith("!") or "!" in text[-4:]
    return (exclaims or _has_symbol(text)) and bool(_CHEER.search(text))


def is_appraisal(text: str) -> bool:
    """A judgement of worth rather than a fact ("X is a great place to start", "Linters are a
    great tool", "This helps ensure the code is robust"): the sentence's frame is an evaluative
    copula or the benefit of something said before."""
    if _RULE_FRAME.search(text):
        return False  # "It's important to run migrations first": a rule in an evaluative frame
    return bool(_APPRAISAL.match(text) or _BENEFIT.match(text) or _WORTH.search(text))


def is_encouragement(text: str) -> bool:
    """Encouragement or a hedged opinion ("Don't be afraid to speak up", "I think it might
    help us feel more connected"): said to the listener, nothing settled."""
    return bool(_ENCOURAGE.search(text) or _HEDGED.match(text))


# -- rules referred to, announced, or promised ---------------------------------------------------

_DEICTIC_RULE = re.compile(
    r"\b(?:this|that|these|those|the same|such)\s+(?:\w+\s+)?(?:conventions?|rules?|practices?|"
    r"standards?|guidelines?|approach|habits?|instructions?|strateg(?:y|ies)|points|things|tips|"
    r"advice|suggestions|ideas)\b",
    re.I,
)
_ANNOUNCE = re.compile(
    r"\b(?:emphasi[sz]e|stress|highlight|underline|discuss|talk about|touch on|touch base on|"
    r"mention|bring up|go over|remind you of)\s+(?:\w+\s+){0,3}?(?:importance|value|benefits?|"
    r"aspect|topic|"
    r"matter|something|thing|point|practice|strateg(?:y|ies)|update|change)\b|"
    r"\b(?:a few|a couple of|several|some)\s+(?:\w+\s+)?(?:strateg(?:y|ies)|things|changes|"
    r"practices|guidelines|ideas|tips)\b|\bsomething (?:different|new|else)\b|"
    r"\b(?:a|an|some|a few|a couple of|one|another)\s+(?:\w+\s+)?(?:specific|certain|"
    r"particular|new|important|key|few)\s+(?:\w+\s+)?(?:prefix|suffix|convention|rule|"
    r"practice|strateg(?:y|ies)|guidelines?|approach|standard|style)\b",
    re.I,
)
_LITERAL = re.compile(  # a quoted value (an apostrophe inside a word, "we're", quotes nothing)
    r"(?<!\w)'[^'\s][^']{0,40}'(?!\w)|\"[^\"]{1,40}\"|`[^`]{1,60}`|\b\w+_\w*\b|\b_\w+"
)
_NEXT_MINUTE = re.compile(
    r"^(?:and |so |then |now |first,? )?(?:i|we)(?:'ll| will| am going to|'m going to| are "
    r"going to)\s+(?:also\s+)?(?:go through|show|walk|get|help|work through|start|begin|take a "
    r"look|look|review|check|discuss|talk|cover|set up a|schedule|meet|sit down|pair|try|see)\b",
    re.I,
)


def refers_to_rule(text: str) -> bool:
    """A rule pointed at or announced, not given ("Remember to always follow this convention",
    "I want to emphasize the importance of code annotations", "start all your function names
    with a specific prefix"): no literal value of its own."""
    if _LITERAL.search(text):
        return False
    if _DEICTIC_RULE.search(text):
        return True
    found = _ANNOUNCE.search(text)
    if found is None:
        return False
    return not (found.group(0).lower().endswith("importance") and _names_thing(text[found.end() :]))


_THINGS = re.compile(
    r"(?:docstrings?|annotations?|comments?|tests?|type hints?|assert\w*|linters?|logging|"
    r"exceptions?|decorators?|commits?|branch\w*|reviews?|documentation|formatting|"
    r"indentation|naming|validation|encryption|backups?|migrations?)$",
    re.I,
)


# where or when a practice applies: "in our functions", "for every method", "always"
_PLACE = re.compile(
    r"\b(?:in|for|to|on|across|before|after|when|whenever)\s+(?:your|our|all|every|each|any|"
    r"the|my)\b|\b(?:always|never|every|each|all)\b",
    re.I,
)


def _names_thing(rest: str) -> bool:
    """After "the importance of": a thing one can do or add in code, placed where or when it
    applies ("of docstrings in our functions", "of always using annotations"), which makes the
    sentence the rule itself; a bare topic ("of code annotations") only announces the rule
    that the next sentences give."""
    words = rest.split()
    if not words or words[0].lower() != "of":
        return False  # "of always using annotations": any of the next few words may name it
    named = any(_THINGS.match(word.strip(".,;:!?")) for word in words[1:4])
    return named and bool(_PLACE.search(rest))


_STRICT_CODE = re.compile(
    r"`[^`]+`|\b[\w-]+\.[a-z]{1,5}\b|\b[a-z0-9]+_[a-z0-9_]+\b|\w\(\)|--[a-z]|\b\w+/\w+"
)


def names_code(raw: str) -> bool:
    """Code proper in a sentence: backticks, a file, a snake_case name, a call, a flag, a path
    (not a capitalised word, an acronym or a number, which remarks have too)."""
    return bool(_STRICT_CODE.search(raw))


def is_next_minute(text: str) -> bool:
    """A plan for the next minute or meeting ("We'll go through the pull requests together",
    "I'll show you some tips"): what the speaker is about to do, not a lasting fact."""
    return bool(_NEXT_MINUTE.match(text))
