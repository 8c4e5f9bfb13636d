"""What a stored statement is about (its subject) and what it says of it (its value).

Owns the one rule that decides whether a later statement restates, changes or has nothing to do
with an earlier one: both for facts of different chats and for observations. Pure functions on
text: no store, no I/O, standard library only.
"""

from __future__ import annotations

import re
from functools import lru_cache

from cms.lazypattern import LazyPattern
from cms.textindex import STOPWORDS, stem

# Words that say how a rule is given, not what it governs: "from now on", "I want you to",
# "switch to", "instead of" are ways to state or change a rule, never its subject.
TEXTS_KEPT = 65_536  # statements whose reading is kept: a reindex compares each with many
_CUE_WORDS = frozenset(
    """
    always never from now onwards forward going moving want wanted like please make sure
    remember instead rather switch switched switching change changed changing longer anymore
    use using used prefer preferred preference must should need needs let lets
    firstly secondly thirdly lastly finally additionally also besides moreover furthermore
    important note ensure rule rules convention conventions practice practices standard
    standards follow following team our we us i you your keep stick consistent consistency
    update updated new old instead okay ok right well now currently just really
    decide decided decision chose chosen choose agreed agree noted note
    """.split()
)
_CLITICS = frozenset(["ll", "ve", "re"])  # what is left of "I'll", "we've", "you're"
# Words that state an aspect of their own: two rules that differ by one of these govern
# different things ("start names with x_" and "end names with _y" both stay in force).
_ASPECTS = (  # words naming one aspect count as one word: "start with" is "prefix"
    ("head", "start begin prefix first before leading"),
    ("tail", "end suffix last after trailing"),
    ("min", "min minimum"),
    ("max", "max maximum"),
    ("upper", "upper uppercase"),
    ("lower", "lower lowercase"),
    ("read", "read"),
    ("write", "write"),
    ("input", "input"),
    ("output", "output"),
    ("client", "client"),
    ("server", "server"),
    ("include", "include"),
    ("exclude", "exclude"),
    ("enable", "enable"),
    ("disable", "disable"),
    ("open", "open"),
    ("close", "close"),
)
_ASPECT_OF = {
    stem(_w).removesuffix("e"): f"<{_name}>" for _name, _words in _ASPECTS for _w in _words.split()
}
_CHANGE_CUE = LazyPattern(
    r"\b(?:from now on|going forward|moving forward|from here on|instead of|instead|rather than|"
    r"no longer|not anymore|switch(?:ed|ing)? (?:over )?to|changed? (?:it |this |that )?to|"
    r"replac(?:e|ed|ing)|updat(?:e|ed|ing)|now (?:use|uses|we|i want|please))\b",
    re.I,
)
_NEGATION = LazyPattern(
    r"\b(?:never|don'?t|do not|doesn'?t|does not|no longer|not|avoid|stop|without)\b", re.I
)
_QUOTED = LazyPattern(  # a quote is not an apostrophe: no letter before it opens or after it closes
    r"(?<!\w)'([^'\s][^']{0,60}?)'(?!\w)|(?<!\w)\"([^\"]{1,60}?)\"(?!\w)|`([^`]{1,80})`"
)
_TOKEN = LazyPattern(r"@?[\w][\w.+#/:-]*")
_WORD = LazyPattern(r"[^\W\d_]+")
_SENTENCE_START = LazyPattern(r"(?:^|[.!?:;]\s+)([A-Z][a-z]+)")


def _is_value_token(token: str) -> bool:
    """Identifiers, versions, numbers, decorators, paths and product names carry a value."""
    if token.startswith("@"):
        return True
    if any(c.isdigit() for c in token):
        return True
    if any(c in token for c in "_./:#+-") and len(token) > 1:
        return True
    if len(token) > 1 and token.isupper():
        return True
    return any(c.isupper() for c in token[1:]) and any(c.islower() for c in token)


def _plain(word: str) -> str:
    """A word without its plural or verb -s ("names" -> "name", "classes" -> "class")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if (len(word) > 4 and word.endswith("es") and word[-3] in "sxz") or word.endswith(
        ("ches", "shes")
    ):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def canonical(word: str) -> str:
    """One form for the words of one meaning, as frames compare them: plural, tense and a final
    e folded ("name", "names", "naming" -> "nam"); aspect words to their aspect ("start",
    "prefix" -> "<head>")."""
    base = stem(_plain(word)).removesuffix("e")
    return _ASPECT_OF.get(base, base)


@lru_cache(maxsize=TEXTS_KEPT)  # a sync or reindex compares each statement with many
def values_of(text: str) -> frozenset[str]:
    """The values a statement names: quoted literals and value-like tokens, case kept for
    affixes, plus "not" when the statement is negative (a rule turned around is a new value)."""
    found: set[str] = set()
    for match in _QUOTED.finditer(text):
        literal = next(g for g in match.groups() if g is not None)
        found.add(literal.strip().strip(".,;:").lower())
    rest = _QUOTED.sub(" ", text)
    sentence_starts = {m.group(1) for m in _SENTENCE_START.finditer(rest)}
    for token in _TOKEN.findall(rest):
        token = token.rstrip(".,;:-/")
        if not token:
            continue
        proper = token[0].isupper() and token[1:].islower() and token not in sentence_starts
        if _is_value_token(token) or (proper and len(token) > 2 and token.lower() not in STOPWORDS):
            found.add(token.lower())
    if _NEGATION.search(text):
        found.add("not")
    return frozenset(found)


@lru_cache(maxsize=TEXTS_KEPT)
def frame_of(text: str) -> frozenset[str]:
    """What a statement is about: its stemmed content words, without values, cue words and
    stopwords ("always start function argument names with 'e_'" -> start, function, argument,
    name)."""
    rest = _QUOTED.sub(" ", text)
    terms: set[str] = set()
    for token in _TOKEN.findall(rest):
        token = token.rstrip(".,;:-/")
        if not token or _is_value_token(token):
            continue
        for word in _WORD.findall(token.lower()):
            if len(word) < 2 or word in STOPWORDS or word in _CUE_WORDS or word in _CLITICS:
                continue
            terms.add(canonical(word))
    return frozenset(terms)


def subject_words(text: str) -> list[str]:
    """The words to look a statement's subject up by (unstemmed, in order, quoted literals left
    out: a changed rule names another literal than the one it replaces)."""
    words: list[str] = []
    for token in _TOKEN.findall(_QUOTED.sub(" ", text)):
        for word in _WORD.findall(token.lower()):
            if len(word) > 1 and word not in STOPWORDS and word not in _CUE_WORDS:
                words.append(word)
    return list(dict.fromkeys(words))


_META_WORDS = frozenset(
    canonical(w)
    for w in """
    code coding coder style instruction instructions guideline guidelines practice practices
    convention conventions standard standards rule rules consistency consistent consistently
    process approach update updates specific certain important importance emphasize emphasise
    stress reinforce readability readable maintainability quality apply adopt adopting follow
    implement incorporate incorporating focus ensure ensuring going move moving regarding topic
    shifting gears give wanted mention mentioned different related touch base quick thing things
    way ways idea ideas part point points habit habits workflow effective effectively clear
    uniform uniformity help helps key best great good better really promote promotes ensure
    """.split()
)


_GENERALISERS = frozenset(canonical(w) for w in "every everything everywhere whenever".split())
# Verbs that only say a thing is used where it goes ("add a decorator to methods" is "use a
# decorator on methods"): what a question asks of is the thing and the place, not the verb.
_LIGHT_VERBS = frozenset(canonical(w) for w in "add adding put place attach".split())


def names_no_subject(word: str) -> bool:
    """Whether a canonical word (frame_of's) of a question talks about rules or code in general
    ("convention", "code", "style"), says how far a rule reaches ("every") or only that a thing
    is used ("add", "put"), rather than naming what it governs."""
    return word in _META_WORDS or word in _GENERALISERS or word in _LIGHT_VERBS


def is_vague(text: str) -> bool:
    """A rule that names nothing to follow ("I want you to adopt a specific coding style",
    "just make sure to apply it consistently"): no word of its own beyond cue and meta words,
    and no value."""
    own = frame_of(text) - _META_WORDS
    named = values_of(text) - {"not"}
    return not own and not named


@lru_cache(maxsize=TEXTS_KEPT)
def has_change_cue(text: str) -> bool:
    """Whether a statement says it changes an earlier rule or value ("from now on", "instead")."""
    return bool(_CHANGE_CUE.search(text))


SAME = "same"  # the same subject, no new value: a restatement
CHANGED = "changed"  # the same subject with another value: the newer supersedes
SLOT_REACH = 2  # words before a number that may name what it measures ("port 5433", "port: 5433")
SLOT_NUMBERS = 3  # numbered tokens a statement may hold for its numbers to be compared


@lru_cache(maxsize=TEXTS_KEPT)
def value_slots(text: str) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """The numbers a statement gives and what each measures: {noun: its numbers} for a number
    a word names within SLOT_REACH words before it ("port 5433", "node 18", "limit: 100"), and
    the numbered tokens nothing names ("db1", "checkout_v2"): names that tell subjects apart.
    Read from the shape of tokens (a digit in it), not from a list of words."""
    tokens = [t.rstrip(".,;:-/").casefold() for t in _TOKEN.findall(text)]
    named: dict[str, set[str]] = {}
    loose: set[str] = set()
    for n, token in enumerate(tokens):
        if not any(c.isdigit() for c in token):
            continue
        noun = None
        for word in tokens[max(0, n - SLOT_REACH) : n][::-1]:
            if any(c.isdigit() for c in word):
                break
            if word not in STOPWORDS and word not in _CUE_WORDS:
                noun = stem(_plain(word))
                break
        if noun:
            named.setdefault(noun, set()).add(token)
        else:
            loose.add(token)
    return {noun: frozenset(v) for noun, v in named.items()}, frozenset(loose)


def numbers_changed(newer: str, older: str) -> bool:
    """Whether a later statement gives another number for what an earlier one measured ("on
    port 6543" after "on port 5433"), agreeing on every other measure both give, both naming
    the same numbered things ("the db1 replica": another replica, or no replica, is another
    subject), neither a log or a table (more than SLOT_NUMBERS numbers). Precise on what the user states (3 of 3 labelled pairs),
    not on the agent's narration, where a verb takes the noun's place ("returns 422"): callers
    ask it of the user's own rules and decisions only (docs/benchmarks.md)."""
    (new_named, new_loose), (old_named, old_loose) = value_slots(newer), value_slots(older)
    counts = (sum(map(len, named.values())) + len(loose) for named, loose in
              ((new_named, new_loose), (old_named, old_loose)))  # fmt: skip
    if max(counts) > SLOT_NUMBERS:
        return False
    shared = new_named.keys() & old_named.keys()
    changed = {noun for noun in shared if not new_named[noun] & old_named[noun]}
    if not changed or len(changed) < len(shared):
        return False
    return old_loose == new_loose  # "port 7001" alone says nothing of "the db1 replica"


def names_apart(newer: str, older: str) -> bool:
    """Whether two statements name different numbered things no word measures ("the db1
    replica" and "the db2 replica"): two subjects, whatever else they share."""
    new_loose, old_loose = value_slots(newer)[1], value_slots(older)[1]
    return bool(new_loose and old_loose and not new_loose & old_loose)


def relation(newer: str, older: str, *, by_rule: bool = False) -> str | None:
    """SAME, CHANGED or None (unrelated) for a later statement and an earlier one: CHANGED when
    the later one names a value the earlier did not (a new version, prefix, tool or a negation);
    never for two that name different numbered things (names_apart); when the later is a rule
    or decision (by_rule), also when it gives another number for one thing (numbers_changed);
    for verbs whose objects add up (add, include, import) only when it says it replaces.

    Same subject: one frame holds the other, they share at least two words and at least half of
    the larger frame, and they do not name different aspects (start/end, prefix/suffix, ...).
    A change cue in the newer statement ("from now on", "instead of") allows extra words on the
    older side (a reason, say), down to one shared word when the newer frame lies inside it.
    """
    if names_apart(newer, older):
        return None  # "db1" and "db2": two things, however alike the sentences
    if by_rule and numbers_changed(newer, older):
        return CHANGED  # the user's rule or decision gives another number for one thing
    fn, fo = frame_of(newer), frame_of(older)
    if not fn or not fo:
        return None
    shared = fn & fo
    contained = fn <= fo or fo <= fn
    if not contained:
        return None
    if _kinds_differ(newer, older):
        return None  # "function names" and "function argument names": two kinds of name
    aspects_new, aspects_old = fn & _ASPECT_STEMS, fo & _ASPECT_STEMS
    if aspects_new and aspects_old and not aspects_new & aspects_old:
        return None  # "start names with x_" and "end names with _y": two rules
    cue = has_change_cue(newer)
    topical = shared - _ASPECT_STEMS  # "start" alone says nothing of what is started
    if len(shared) < 2 and not (topical and fn <= fo and cue):
        return None
    if not cue and 2 * len(shared) < max(len(fn), len(fo)):
        return None  # a small frame inside a much larger one: a different, narrower statement
    if values_of(newer) <= values_of(older):
        return SAME
    if fn & _ADDITIVE_STEMS and not _REPLACE_CUE.search(newer):
        return None  # "add the '@retry' decorator" beside "add the '@timer' decorator": both
    return CHANGED


@lru_cache(maxsize=TEXTS_KEPT)
def compounds(text: str) -> frozenset[tuple[str, ...]]:
    """The compound nouns of a statement: runs of two or more adjacent content words, canonical
    ("function argument names" -> (function, argument, nam)). Stopwords, cue and aspect words,
    values and punctuation end a run."""
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    rest = _QUOTED.sub(" , ", text)
    end = 0
    for match in _TOKEN.finditer(rest):
        if rest[end : match.start()].strip():  # punctuation between two words ends a run
            if len(run) > 1:
                runs.append(tuple(run))
            run = []
        end = match.end()
        raw = match.group()
        token = raw.rstrip(".,;:-/")
        word = token.lower()
        content = (
            word.isalpha()
            and not _is_value_token(token)
            and word not in STOPWORDS
            and word not in _CUE_WORDS
            and canonical(word) not in _ASPECT_STEMS
        )
        if content:
            run.append(canonical(word))
        if not content or token != raw:  # a break, or punctuation after the word
            if len(run) > 1:
                runs.append(tuple(run))
            run = []
    if len(run) > 1:
        runs.append(tuple(run))
    return frozenset(runs)


def modifier_words(text: str) -> frozenset[str]:
    """The words a statement uses only to qualify another noun: all but the last word of its
    compound nouns, unless a compound ends with it ("function" in "start function names with
    x_", not in "use annotations for functions", whose subject is the functions themselves)."""
    runs = compounds(text)
    return frozenset(w for c in runs for w in c[:-1]) - {c[-1] for c in runs}


def _kinds_differ(newer: str, older: str) -> bool:
    """Whether the two statements name different kinds of one thing: compounds with the same
    head word that refine it alike but not the same way ("function names" and "function argument
    names" share "function"; neither ends the other). "Class names" and "declaring class names"
    are one kind; "the variable name" of a rule on naming function arguments shares no word with
    "function argument names" and is left to the frames."""
    new, old = compounds(newer), compounds(older)
    for head in {c[-1] for c in new} & {c[-1] for c in old}:
        pairs = [(a, b) for a in new if a[-1] == head for b in old if b[-1] == head]
        if any(a[-len(b) :] == b or b[-len(a) :] == a for a, b in pairs):
            continue
        if any(set(a[:-1]) & set(b[:-1]) for a, b in pairs):
            return True
    return False


def is_poorer(newer: str, older: str) -> bool:
    """Whether a restatement names strictly fewer values than the statement it repeats (it
    leaves out a version, a reason's term...): the older one then stays in force beside it."""
    return values_of(newer) < values_of(older)


_ASPECT_STEMS = frozenset(f"<{name}>" for name, _words in _ASPECTS)
# Verbs whose objects add up: a new value stands beside the old unless the text says it replaces.
_ADDITIVE_STEMS = frozenset(canonical(w) for w in ("add", "include", "import", "install", "append"))
_REPLACE_CUE = LazyPattern(
    r"\b(?:instead|rather than|no longer|not anymore|any ?more|switch(?:ed|ing)?|replac\w*|"
    r"chang\w*|updat\w*|drop(?:ped)?|remove[ds]?|stop)\b",
    re.I,
)
