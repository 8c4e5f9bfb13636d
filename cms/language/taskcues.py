"""What one sentence says about the task: a request, finished work, a next step, or none.

Pure rules on the wording of a sentence (the local extractor cuts the texts into sentences);
no record, no I/O. A question, an acknowledgement, a standing rule or an offer is never a
request, a piece of finished work or a next step.
"""

from __future__ import annotations

import re

from cms.language.wording import is_courtesy, is_question
from cms.textindex import tokenize

# Words that open a sentence without saying anything ("OK, so now ...").
_FILLER = (
    r"(?:(?:ok(?:ay)?|so|and|but|also|now|hey|hi|great|thanks|thank you|alright|all right|"
    r"right|cool|perfect|good|nice|first|just)[,!.]*\s+)*"
)
# A request put as a question or a wish: stripped from the goal, which keeps what is asked.
_ASK_LEAD = re.compile(
    rf"^{_FILLER}(?:please\s+)?(?:(?:can|could|would|will) you(?:\s+(?:please|also|just))*"
    r"(?:\s+help me)?|"
    r"i(?:'d| would) like you to|i (?:want|need) you to|please|let'?s|help me|go ahead and)\s+",
    re.I,
)
# Asking to be told something is a question, however it is put.
_INFO = re.compile(
    r"^(?:tell|explain|remind|describe|clarify|confirm|summari[sz]e|recap|say|walk me through|"
    r"help me understand|show me (?:what|how|why|where|which|who)|what|how|why|where|which|who|"
    r"is|are|do|does|if|when|whether|see|think|talk|discuss|understand|learn|know|consider)\b",
    re.I,
)
_MID_ASK = re.compile(
    r"[,;:]\s*(?:so\s+)?(?:can|could|would|will) you(?:\s+please)?\s+(?!(?:tell|explain|remind|"
    r"describe|clarify|confirm|summari[sz]e|recap|say)\b)\w",
    re.I,
)
_WISH = re.compile(
    rf"^{_FILLER}(?:we|i) (?:(?:need|want|would like|'d like)(?: to)?|have to)\s+", re.I
)
_WORK_VERBS = (
    "add|implement|build|create|write|fix|debug|investigate|look into|look at|refactor|rename|"
    "move|remove|delete|drop|update|upgrade|change|make|set up|setup|configure|wire|hook up|"
    "integrate|migrate|port|convert|replace|optimi[sz]e|speed up|clean up|split|merge|rebase|"
    "deploy|release|test|document|profile|benchmark|review|finish|complete|switch|introduce|"
    "extract|support|handle|enable|disable|bump|install|generate|rewrite|redo|revert|restore|"
    "publish|ship|prepare|draft|design|verify|validate|ensure|improve|reduce|increase|limit|"
    "cap|allow|prevent|commit|resolve|address|tackle|translate|format|rework|simplify|expose|"
    "parse|cache|log|measure|track|schedule|retry|wrap|mock|patch|bisect|reproduce|trace|"
    "get|run|try|check|continue|proceed|go|do|start"
)
_IMPERATIVE = re.compile(rf"^{_FILLER}(?:please\s+)?(?:{_WORK_VERBS})\b", re.I)
# A rule for the whole project is memory, not the task at hand.
_STANDING = re.compile(
    r"\b(?:from now on|going forward|moving forward|from here on|as a rule|by convention|"
    r"whenever|every time)\b|^(?:please\s+)?(?:always|never)\b",
    re.I,
)
_OFFER = re.compile(
    r"\b(?:if you (?:like|want|wish|prefer|'d like)|want me to|shall i|should i|would you like|"
    r"do you want|let me know)\b",
    re.I,
)

_DONE = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)?\s+(?:(?:now|just|also|already|successfully|finally)\s+)*)?"
    r"(?:added|implemented|created|fixed|updated|changed|removed|deleted|renamed|refactored|"
    r"replaced|moved|wired(?: up)?|wrote|rewrote|rewritten|configured|enabled|disabled|"
    r"installed|upgraded|bumped|extracted|introduced|merged|converted|set up|documented|tested|"
    r"verified|committed|pushed|finished|completed|migrated|cleaned up|resolved|built|"
    r"adjusted|corrected|restored|reverted|simplified|optimi[sz]ed|ported|deployed|released|"
    r"published|generated|integrated|hooked up|switched)\b"
    r"|\b(?:is|are|was|were|has been|have been|'s|'re)\s+(?:now\s+|all\s+)?(?:done|complete|"
    r"completed|finished|implemented|fixed|in place|merged|wired(?: up| in)?|working|green)\b"
    r"|\b(?:all (?:\d+ )?(?:the )?tests? (?:now )?pass|tests? (?:now )?pass(?:es|ed)?|"
    r"(?:the )?build (?:now )?(?:succeeds|succeeded|passes|is green))\b"
    r"|^(?:done|completed|finished|fixed)\s*[:\-\u2013\u2014]\s*\S",
    re.I,
)
_UNDONE = re.compile(
    r"\b(?:haven'?t|hasn'?t|didn'?t|couldn'?t|wasn'?t|weren'?t|isn'?t|aren'?t|not yet|not been|"
    r"not (?:done|complete|finished|implemented|fixed|working)|yet to|failed to|unable to)\b"
    r"|^(?:once|when|after|if|before|as soon as|until|unless)\b",
    re.I,
)
_DONE_CONTEXT = re.compile(
    r"\b(?:summary|changes|changed|what (?:i|we) did|done|completed|implemented|fixed)\b"
)

# A next step: its cue opens the sentence (stripped from the item) or sits inside it.
_NEXT_LEAD = re.compile(
    r"^(?:next(?: up| steps?)?|todo|to-?do|remaining|still to do|left to do|what'?s left|"
    r"follow[- ]ups?|open items?)(?:\s+(?:is|are))?\s*[:\-\u2013\u2014]\s*"
    r"|^(?:next|then|after that|afterwards|after this),?\s+(?:(?:i|we)(?:'ll| will| am going to|"
    rf" are going to| need to| should| can)\s+|(?=(?:{_WORK_VERBS})\b))",
    re.I,
)
_NEXT_INSIDE = re.compile(
    r"\bstep \w+ (?:is |comes )?next\b|\b(?:i|we)(?:'ll| will| am going to| are going to| need "
    r"to| should)\b[^.;!?]{0,120}\bnext\W*$|\bthen (?:i|we)(?:'ll| will| am going to| are going "
    r"to)\b|\bafter (?:that|this),? (?:i|we)(?:'ll| will)\b|\btodo\s*:|\bremaining\s*:|"
    r"\bstill (?:need|needs|have|has) to\b|\bremains? to be\b|\byet to be\b|"
    r"\bnot (?:done|implemented|wired(?: up| in)?|finished|started) yet\b",
    re.I,
)
_STEP_NEXT = re.compile(r"^(step \w+) (?:is |comes )?next\b\s*[:,\-\u2013\u2014]?\s*", re.I)
_NEXT_CONTEXT = re.compile(
    r"\b(?:next steps?|next up|todo|to-?do|remaining|still to do|left to do|what'?s left|"
    r"follow[- ]?ups?|open items)\b"
)

# Marks and words that only open a sentence of the answer ("Done: ...", "OK, ...").
_OPENER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|great|alright|all right|perfect|good|nice|cool|right|sure|yes|thanks|"
    r"thank you|done|completed|finished|update|note)\s*[,!.:\-\u2013\u2014]+\s*)+",
    re.I,
)
_LEAD_FILLER = re.compile(rf"^{_FILLER}(?:please\s+)?", re.I)
_POINTER = re.compile(r"\b(?:it|its|them|these|those)\b", re.I)
_GO_ON = re.compile(
    r"^(?:(?:ok(?:ay)?|so|great|thanks|now|good|cool|perfect|nice|right)[,!.]*\s+)*(?:please\s+)?"
    r"(?:(?:can|could|would|will) you\s+)?(?:also|and|then|next|plus|additionally|instead|"
    r"on top of that|after that|while you'?re at it)\b|\b(?:too|as well|instead)\W*$",
    re.I,
)


def _stems(words: str) -> frozenset[str]:
    return frozenset(tokenize(words))


# What a request says beyond "go on": without other words it continues the goal.
_CARRY_ON = _stems(
    "continue continuing proceed go going ahead do doing done yes sure okay step steps next "
    "keep carry finish finishing start resume same again rest remaining fine right one two "
    "three four five first second third last thing things work working task tasks implement "
    "implementing implementation"
)
# Work verbs say nothing of what a request is about: they never relate two requests.
_GENERIC = _CARRY_ON | _stems(
    "add adding implement implementing fix fixing make making create creating build building "
    "write writing update updating change changing remove removing delete look looking check "
    "checking run running try trying get set need want like new please also code file files "
    "help test tests testing pass passes passing"
)


def terms(text: str) -> frozenset[str]:
    return frozenset(tokenize(text))


def _specific(text: str) -> frozenset[str]:
    """The words of a text that name its subject: no work verb, "step" or number."""
    return frozenset(t for t in terms(text) - _GENERIC if not t.isdigit())


def strip_opener(text: str) -> str:
    """A sentence of the answer without the marks and the word that only open it ("\u2705 Done:
    the bucket is wired in." -> "The bucket is wired in.")."""
    start = 0
    while start < len(text) and not (text[start].isalnum() or text[start] in "`'\"(["):
        start += 1
    rest = text[start:]
    opener = _OPENER.match(rest)
    if opener is None or opener.end() == len(rest):
        return rest
    rest = rest[opener.end() :]
    return rest[0].upper() + rest[1:]


def clean_ask(text: str) -> str:
    """A request without its polite lead, as a task: "Could you add X?" -> "Add X."."""
    polite = _ASK_LEAD.match(text)
    lead = polite or _LEAD_FILLER.match(text)
    rest = text[lead.end() :].strip() if lead is not None else text
    if not rest or (polite is not None and len(rest.split()) < 3):
        return text
    if polite is not None and rest.endswith("?"):
        rest = rest.rstrip("?").rstrip() + "."
    return rest[0].upper() + rest[1:]


def is_request(text: str) -> bool:
    """Whether a sentence of the user asks for work to be done (not for an answer)."""
    if _STANDING.search(text) or is_courtesy(text) or next_step(text):
        return False
    lead = _ASK_LEAD.match(text)
    if lead is not None:
        return not _INFO.match(text[lead.end() :])
    if _MID_ASK.search(text):
        return True
    if is_question(text):
        return False
    wish = _WISH.match(text)
    if wish is not None:
        return not _INFO.match(text[wish.end() :])
    return bool(_IMPERATIVE.match(text))


def is_statement(text: str) -> bool:
    """A plain statement of a few words: no question, acknowledgement, rule, offer or step."""
    return len(text.split()) >= 3 and not (
        is_question(text)
        or is_courtesy(text)
        or _STANDING.search(text)
        or _OFFER.search(text)
        or next_step(text)
    )


def points_back(text: str) -> bool:
    """Whether a sentence points back at something said before ("test it")."""
    return bool(_POINTER.search(text))


def carries_on(text: str) -> bool:
    """A request that only says to go on ("Go ahead with step 2.", "Continue.")."""
    return not {t for t in terms(text) - _CARRY_ON if not t.isdigit()}


def says_go_on(text: str) -> bool:
    """Whether a request says it goes on with what came before ("Also ...", "... as well",
    "... instead")."""
    return bool(_GO_ON.search(text.strip()))


def relates(ask: str, earlier: list[str]) -> bool:
    """Whether a request goes on with the earlier task texts: it names no subject of its own
    ("Add tests for it.") or shares a word beyond the work verbs with one."""
    specific = _specific(ask)
    return len(specific) <= 1 or any(specific & terms(text) for text in earlier)


def is_done(text: str, context: str = "") -> bool:
    """Whether a sentence of the assistant reports finished work (or sits in its summary)."""
    if is_question(text) or _OFFER.search(text) or _UNDONE.search(text):
        return False
    return bool(_DONE.search(text) or _DONE_CONTEXT.search(context))


def next_step(text: str, context: str = "") -> str:
    """The next step a sentence states ("" when none): its opening cue stripped ("Next, I'll
    add X." -> "Add X."), else the whole sentence ("Step 2 next: the middleware." -> "Step 2:
    the middleware.")."""
    if is_question(text) or _OFFER.search(text):
        return ""
    lead = _NEXT_LEAD.match(text)
    if lead is not None and lead.end() > 0:
        rest = text[lead.end() :].strip()
        if len(rest.split()) >= 2:
            return rest[0].upper() + rest[1:]
        return text if _NEXT_INSIDE.search(text) else ""
    if _NEXT_INSIDE.search(text) or _NEXT_CONTEXT.search(context):
        step = _STEP_NEXT.match(text)
        if step is not None and len(text[step.end() :].split()) >= 2:
            return f"{step.group(1)[0].upper()}{step.group(1)[1:]}: {text[step.end() :]}"
        return text
    return ""


def same_item(a: str, b: str) -> bool:
    """Two items that say the same: one's words hold the other's, or most words are shared."""
    ta, tb = terms(a), terms(b)
    if not ta or not tb:
        return a.strip().casefold() == b.strip().casefold()
    shared = len(ta & tb)
    return shared == min(len(ta), len(tb)) or shared >= 0.6 * len(ta | tb)


def covers(done: str, step: str) -> bool:
    """Whether finished work covers a next step: it holds at least two of the step's words
    beyond "step 2" and the work verbs, and half of them; a step with fewer such words than two
    ("Add tests for the limiter.") is covered only by work that holds all its words, the work
    verbs too."""
    words, said = _specific(step), terms(done)
    if len(words) < 2:
        return bool(words) and terms(step) <= said
    shared = len(words & said)
    return shared >= 2 and shared >= 0.5 * len(words)
