"""Which sentences of an exchange are worth remembering: the local extractor's text rules.

Classifies sentence units (decision, fix, preference, change, error, open question, ...), drops
filler and narration, and scores the rest into candidate facts of at most 200 characters. Pure
rules on text: no map, no tool calls, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import replace

from cms.language.findings import is_finding, is_transient
from cms.language.shapes import under_plan
from cms.language.wording import (
    announces_rule,
    has_code,
    is_courtesy,
    is_exclusion,
    is_general,
    is_narration,
    is_personal,
    is_question,
    is_rule,
    is_specific,
)
from cms.providers.local.gates import is_noise_unit
from cms.providers.local.sentences import (
    Candidate,
    Unit,
    prompt_text,
    split_clauses,
    split_rules,
    strip_lead,
    text_units,
)
from cms.textindex import tokenize
from cms.transcripts.exchange import Exchange

# -- classifying sentences ----------------------------------------------------------------------

_FIX = re.compile(
    r"\b(?:i|we|was|were|is|are|been|have|has|got|it's|that's|now|and)\s+fixed\b|^fixed\s+"
    r"(?:the|a|an|it|this|that|by|in|so|all|both|two|three)\b|\bfixes\s+(?:the|a|an)\b|"
    r"\b(?:the fix (?:is|was)|(?:that's|that is|this is) the (?:bug|problem|issue)|"
    r"the (?:bug|issue|problem|cause|culprit|error) (?:is|was)|root cause|caused by|was causing|"
    r"(?:fails|failed|failing|broke|breaks) because|resolved by|workaround|turned out)\b",
    re.I,
)
# a cause supposed, not found: "The issue might be that ...", "it's probably caused by ..."
_GUESS = re.compile(
    r"\b(?:might|may|could) (?:be|have|also)\b|\b(?:probably|possibly|perhaps|maybe|likely)\b"
)
# the agent's next step with the reason or the constraint it was chosen for: a decision
_REASON = re.compile(
    r"\b(?:so (?:that|both|the|it|we|they|all|each|every)|since|because|without|instead)\b"
)
_TENTATIVE = re.compile(
    r"^(?:first,? |then,? )?(?:let me|i'll|i will) (?:try|first|quickly)\b|^first,"
)
_SUPPOSED = re.compile(r"^[^,;]{0,60}\b(?:might|may|could) (?:be|have)\b")  # its main verb
_DECISION_STRONG = re.compile(
    r"\b(?:decided|decide to|decision|chose|choose|chosen|opted|opt for|settled on|going with|"
    r"go with|went with|switch(?:ed|ing)? (?:over )?(?:back )?(?:from [^.;]{1,40} )?to|"
    r"migrat(?:e|ed|ing) (?:from [^.;]{1,40} )?to|in favou?r of|the plan is|stick with|"
    r"we(?:'ll| will| are going to| should| shall) use|let's (?:use|go with|keep|switch)|"
    r"we(?:'ll| will) be (?:using|switching|moving)|we(?:'re| are) (?:now )?(?:using|switching)|"
    r"we use|keep using|i(?:'ll| will) use [^.;]{1,40} (?:for|as|instead))\b",
    re.I,
)
_DECISION_WEAK = re.compile(
    r"\b(?:instead of|rather than|replac(?:e|ed|ing) [^.;]{1,40} with)\b|^use\b|"
    r"\buse [^.;]{1,40} (?:for|as|to)\b",
    re.I,
)
# a choice made or a cause found: about this project even in plain words
_SETTLED = re.compile(
    r"\b(?:decided|chose|opted|settled on|went with|going with|stick with|root cause|"
    r"caused by|turned out|the fix (?:is|was)|fixed)\b"
)
_PLAN = re.compile(r"^(?:so |then |ok,? )?(?:we|i)(?:'ll| will| are going to| shall| should)\b")
_PREFERENCE = re.compile(
    r"\b(?:always|never|prefer|preferred|must|mustn't|don't|do not|shouldn't|should not|avoid|"
    r"make sure|no need to|required|not allowed|only ever|keep it)\b",
    re.I,
)
_TODO = re.compile(
    r"(?:^todo\b|\btodo:|\bto-do\b|\bstill (?:need|needs|have|has) to|remains? to be|not yet|left to do|"
    r"\bfollow[- ]up|\bnext steps?|\bopen question|\btbd|\bpending|\bblocked (?:by|on)|"
    r"\b(?:may|might|will) (?:still )?need|\b(?:fix|revisit|handle|do|tune|clean)(?: \w+)? later)\b",
    re.I,
)
# a heading or lead-in over open items; "todo" only as the heading's first or last word ("TODO",
# "Open TODOs:"), not as a noun ("TODO App Creation Complete"), and never under a tick
_TODO_CONTEXT = re.compile(
    r"^(?![\u2705\u2714\u2713])(?:.*\b(?:next steps?|open questions?|remaining|follow[- ]?ups?|"
    r"future work|not done|left)\b|\W*to-?dos?\b|.*\bto-?dos?\W*$)"
)
_CHANGE = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)? )?(?:now |also |\w+ly )?(?:implemented|added|created|updated|"
    r"changed|removed|deleted|renamed|refactored|replaced|moved|wired|configured|enabled|disabled|"
    r"installed|upgraded|bumped|extracted|introduced|rewrote|rewritten|merged|converted|set up|"
    r"wrote|documented|restructured|simplified|registered|instrumented|raised|lowered|increased|"
    r"decreased|reduced|limited|capped)\b|\bnow (?:[a-z]{3,}s|has)\b|\b(?:has|have|was|were) been (?:added|"
    r"created|updated|removed|renamed|moved|replaced|fixed|implemented)\b",
    re.I,
)
_CHANGE_CONTEXT = re.compile(
    r"\b(?:summary|changes|changed|what (?:i|we) did|completed|"
    r"accomplished|implemented|created|modified|done)\b|\u66f4\u65b0|\u5909\u66f4|\u4fee\u6b63|"
    r"\u8ffd\u52a0"
)
_ERROR = re.compile(
    r"\b(?:(?:error|exception)(?! (?:handling|handlers?|messages?|codes?|boundar\w+|spans?|"
    r"logging|reporting|responses?|pages?|states?|types?|tracking|cases?)\b)|errors|traceback|"
    r"fails?|failed|failing|failure|crash(?:es|ed)?|"
    r"broken|doesn'?t (?:seem to )?(?:work|start|run|load|compile|build)|does not (?:work|start)|"
    r"not working|can'?t|cannot|unable to|timed? out|refused|undefined|not found)\b",
    re.I,
)
_FAILURE = re.compile(
    r"\b(?:fails?|failed|failing|crash(?:es|ed)?|broken|doesn'?t|does not|not working|can'?t|"
    r"cannot|unable to|timed? out|refused|undefined|not found|threw|throws)\b",
    re.I,
)
_STATUS = re.compile(
    r"\b(?:all (?:\d+ )?(?:tests? )?(?:pass|passing|passed|green)|"
    r"tests? (?:pass|passes|passed)|compiles? cleanly|build succeeded)\b",
    re.I,
)
_LEARNING = re.compile(
    r"\b(?:returns?|expects?|requires?|accepts?|takes|supports?|defaults? to|lives in|points to|"
    r"maps to|means|is (?:a|an|the|not|only|always|never|set|stored|called|defined|located|"
    r"configured|read|written|ignored)|are (?:a|an|the|not|only|stored|defined)|has (?:a|an|the|"
    r"no)|overrides?|takes precedence|wins over|must be|needs? to be)\b",
    re.I,
)


def _states_learning(low: str) -> bool:
    """A learning verb, not a noun of the same spelling: a lone word of the cue that ends the
    sentence ("Full TypeScript support", "to handle the 3-tuple return") names a thing; "is
    ignored." or "takes precedence." ends as a verb."""
    return any(
        " " in found.group() or re.search(r"\w", low[found.end() :])
        for found in _LEARNING.finditer(low)
    )


_DEFINITION = re.compile(
    r"^(?:(?:a|an|the) )?[\w.+#-]+(?: [\w.+#-]+){0,3} (?:is|are) (?:a|an|the) ", re.I
)
_FILE_DESC = re.compile(
    r"^(?:[\w./-]+\.[A-Za-z0-9]{1,6}|[\w.-]+/[\w./-]+)(?::\d+)?\s*(?::|\u2014|\u2013| - )\s*\S"
)
_REVERT = re.compile(
    r"\b(?:revert(?:ed|ing)?|rolled back|roll back|undo|undid|no longer|(?:not|n't) [^.;]{1,30} "
    r"anymore|scrap(?:ped)?|abandon(?:ed)?|obsolete|drop(?:ped)? (?:the|that) (?:idea|plan|"
    r"requirement|rule|decision))\b",
    re.I,
)
_UPDATE = re.compile(
    r"\b(?:instead|rather than|switch(?:ed|ing)?|changed?|now|actually|no longer|"
    r"from [^.;]{1,30} to|updated?|bump(?:ed)?|raised?|lowered?|moved?)\b",
    re.I,
)
_FILLER = re.compile(
    r"^(?:never ?mind|no worries|no problem|not really|sounds good|looks good|"
    r"makes sense|good job|well done|nice work)\b",
    re.I,
)
# the user describing how the project works, in the habitual present ("we write raw SQL with
# psycopg 3", "our services log JSON"): a convention, though no cue word says so
_HABIT = re.compile(
    r"^(?:here |in this (?:repo|repository|project|codebase),? )?(?:we|our (?:team|services|code|"
    r"repo|project)|the team)\s+(?:always\s+|never\s+|only\s+|usually\s+|generally\s+|"
    r"still\s+|don't\s+|do not\s+)?(?!(?:will|would|should|shall|can|could|may|might|must|"
    r"need|needs|are|were|was|had|did|got|have|has|want|wanted|hope|think|feel|know|see|"
    r"believe|like|love|enjoy|try|aim|strive|value|care|encourage|welcome)\b)(?![a-z]+ed\b)[a-z]{3,}\b",
    re.I,
)
_OPTION = re.compile(r"^(?:\w+,? )?(?:we|i|they) (?:can|could|might|may)(?: also| even)? \w")
# the assistant committing to a standing behaviour ("I'll make sure to include 'chx' in all
# attribute names going forward"): its restatement of the user's rule
_COMMITMENT = re.compile(
    r"^(?:\w+,? )?i(?:'ll| will) (?:definitely |certainly |also )?(?:make sure to|always|never|"
    r"continue|start|keep|remember to|stick to|follow)\b"
)
_STANDING = re.compile(
    r"\b(?:from now on|going forward|moving forward|in all|always|never|every|for (?:all|any) "
    r"(?:new|future)|in (?:the )?future|continue)\b"
)
_RECOMMEND = re.compile(r"^(?:[^,]{1,40}, )?consider using\b|\byou (?:can|should) use\b")
# a subordinate clause before the main one ("Given the time constraints, let me ...", "Since
# there are no files, I'll ..."): the main clause says what the sentence does
_FRONTED = re.compile(
    r"^(?:given|since|as|because|before|after|now that|once|while|if|to|with|for|regarding|"
    r"when it comes to|in terms of)\b[^,]{3,160},\s+"
)
_LEAD_CLAUSE = re.compile(r"^(?:(?:from now on|going forward|moving forward|for now),? )+")
_PROPOSAL = re.compile(r"^(?:i'd |i would |i )?(?:suggest|recommend|propose)\b|^my suggestion\b")
_PRONOUN = re.compile(r"^(?:it|this|that|these|those|they|he|she|which|there|here)\b", re.I)
_OFFER = re.compile(
    r"^(?:want me to|would you like|do you want|shall i|should i (?:also )?(?:go ahead|proceed|"
    r"continue|commit)|let me know|anything else|does (?:that|this) help|is there anything|"
    r"can i help|need anything|ready to|any questions)",
    re.I,
)
_REQUEST = re.compile(r"^(?:can|could|would|will) you\b|^please\b", re.I)
# a command to run, given in prose: "Run `mix credo gen.config` - generates .credo.exs", "Run bd
# show spotter-4te to see the issue details": the verb, then code in backticks or a short
# lower-case program and its subcommand (not "run the tests", "run tests with ...")
_RUN_CODE = re.compile(r"^(?:please |then |first,? |also )?(?:run|execute)\s+`[^`]+`", re.I)
_RUN_PLAIN = re.compile(
    r"^(?:please |then |first,? |also )?(?:run|execute)\s+(?!(?:the|a|an|this|that|these|those|"
    r"it|them|all|your|our|my|some|any|each|every|both|again|once|tests?|checks?)\b)[a-z][a-z0-9-]"
    r"{0,4}\s+(?!(?:with|to|for|in|on|at|and|or|before|after|first|again|now|then)\b)"
    r"[a-z0-9][\w.:/-]*(?:\s|$)",
    re.I,
)
_TASK = re.compile(
    r"^(?:please |can you |could you |would you |let's |lets |we need to |i want (?:you )?to |"
    r"i need (?:you )?to )?(?:add|update|make|fix|create|implement|change|remove|rename|refactor|"
    r"write|move|set|switch|build|start|run|install|upgrade|migrate|investigate|debug|find|"
    r"work on|help|explain|review|document|split|merge|deploy|configure|port|convert|test|clean)\b",
    re.I,
)

_BASE = {
    "proposal": 3.5,
    "fix": 6.0,
    "decision": 6.0,
    "preference": 5.0,
    "todo": 4.0,
    "question": 4.0,
    "change": 4.0,
    "file": 3.5,
    "error": 3.5,
    "learning": 3.0,
    "status": 2.0,
    "task": 2.5,
    "command": 4.0,
}


# A few Japanese cues (the only non-English language in the sample sessions).
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_CJK_CUES = (
    ("fix", re.compile("\u539f\u56e0|\u30d0\u30b0")),  # cause, bug
    ("decision", re.compile("\u6c7a\u5b9a|\u6c7a\u3081\u307e\u3057\u305f|\u63a1\u7528")),
    ("preference", re.compile("\u5fc5\u305a|\u7d76\u5bfe|\u3057\u306a\u3044\u3067|\u7981\u6b62")),
    ("task", re.compile("\u3057\u3066\u304f\u3060\u3055\u3044")),  # please do
    ("todo", re.compile("\u672a\u5bfe\u5fdc|\u6b8b\u30bf\u30b9\u30af|\u4eca\u5f8c")),
    (
        "change",
        re.compile(
            "\u3057\u307e\u3057\u305f|\u66f4\u65b0|\u8ffd\u52a0|\u524a\u9664|"
            "\u5909\u66f4|\u5b9f\u88c5|\u4fee\u6b63"
        ),
    ),  # did, update, add, ...
)


def _classify_cjk(unit: Unit) -> str | None:
    for kind, cue in _CJK_CUES:
        if cue.search(unit.text) and (kind != "task" or unit.source == "user"):
            return kind
    return "change" if _CHANGE_CONTEXT.search(unit.context) else None


def _classify(unit: Unit) -> str | None:
    text, low, source = unit.text, unit.text.lower(), unit.source
    if _CJK.search(text):
        return _classify_cjk(unit)
    main = _FRONTED.sub("", low)  # the main clause: "Given ..., let me ..." narrates
    narration = source == "assistant" and bool(is_narration(low) or is_narration(main))
    if narration and _REASON.search(main) and not (_GUESS.search(low) or _TENTATIVE.match(main)):
        return "decision"  # "I'll make get_current_trace_id public so both ... can use it"
    if unit.lead:
        return None  # a lead-in introduces what follows; it says something only with a reason
    if source == "user" and is_personal(text):
        return "preference"  # the user's own ("I prefer ...", "never ask me ..."): every project
    if _RUN_CODE.match(strip_lead(unit.raw.lstrip("-*+ "))) or _RUN_PLAIN.match(text):
        return "command"  # "Run `mix credo gen.config` - generates .credo.exs with defaults"
    if _FIX.search(low) and not low.startswith(("let me", "i need to", "i'll", "i will")):
        return None if _GUESS.search(low) else "fix"  # "the issue might be ...": a guess
    if source == "assistant" and _COMMITMENT.match(low) and _STANDING.search(low):
        return "preference"
    if _OPTION.match(_FRONTED.sub("", low)) and not is_rule(unit.raw):
        return None  # "we can also use fitness trackers": a possibility, not a choice
    if _DECISION_STRONG.search(low):
        return "decision"
    if _DECISION_WEAK.search(low) and not narration:
        return "decision"
    if source == "user" and (_PLAN.search(_LEAD_CLAUSE.sub("", low)) or _RECOMMEND.search(low)):
        return "decision"
    if source == "user" and (
        is_rule(unit.raw) or (_TASK.match(low) and is_general(low)) or _HABIT.match(low)
    ):
        return "preference"  # a standing wish, with or without a cue word
    if _PROPOSAL.match(low):
        return "proposal"
    if narration:
        return None
    if source == "user" and _TASK.match(low) and not _PREFERENCE.search(low):
        return "task"
    if _TODO.search(low) or _TODO_CONTEXT.search(unit.context):
        return "todo"
    if _PREFERENCE.search(low) and (source == "user" or not low.startswith(("i ", "you "))):
        return "preference"
    if _CHANGE.search(low) or (_CHANGE_CONTEXT.search(unit.context) and source == "assistant"):
        return "change"
    if _FILE_DESC.match(text):
        return "file"
    if _ERROR.search(low) and (has_code(unit.raw) or _FAILURE.search(low)):
        return "error"  # a problem seen; "catch errors early" names no problem
    if _STATUS.search(low):
        return "status"
    if _DEFINITION.match(text) or (_states_learning(low) and has_code(unit.raw)):
        return "learning"
    if source == "user" and _TASK.match(low):
        return "task"
    if _DECIDED_CONTEXT.search(unit.context):
        return "decision"  # an item under "Decisions", "Constraints", "Out of scope", ...
    if _FACTS_CONTEXT.search(unit.context) and has_code(unit.raw):
        return "learning"  # an item under "Tech stack", "Components", "Architecture", ...
    if unit.item and is_exclusion(text):
        return "decision"  # "No custom Credo checks": a scope ruled out
    if source == "assistant" and not unit.item and is_finding(text, unit.raw):
        return "learning"  # "The record has hex_trace_id as a binary already."
    return None


# what a heading or lead-in says the items below it are
_DECIDED_CONTEXT = re.compile(
    r"\b(?:decisions?|decided|constraints?|out of scope|non-goals?|trade-?offs?|design choices?|"
    r"conventions?|rules)\b"
)
_FACTS_CONTEXT = re.compile(
    r"\b(?:tech(?:nology)? stack|stack|components?|architecture|project structure|structure|"
    r"key files|findings|root cause|how it works)\b"
)


def _prefixed(kind: str, text: str, source: str) -> str:
    if kind == "question":
        return "Open question: " + text
    if kind == "todo" and not text.lower().startswith("todo"):
        return "TODO: " + text
    if kind == "task":
        text = re.sub(
            r"^(?:please|can you|could you|would you|will you|let'?s)\s+(?:also\s+)?",
            "",
            text,
            flags=re.I,
        )
        return "Task: " + text.rstrip("?")
    if kind == "error" and source == "user":
        return "Problem: " + text
    return text


def _score(kind: str, unit: Unit, text: str) -> float:
    score = _BASE[kind]
    if has_code(unit.raw):
        score += 1.0
    if unit.source == "user" and kind in ("decision", "preference", "fix"):
        score += 0.5
    if unit.source == "assistant" and unit.position > 0.75:
        score += 0.5
    if _PRONOUN.match(text):
        score -= 1.5
    if len(text) < 30:
        score -= 1.0
    if len(text) > 300:
        score -= 1.0
    return score


def sentence_candidates(exchange: Exchange) -> tuple[list[Candidate], list[tuple[int, str]]]:
    """Candidate facts from the prompt and the answer, and the one-line commands shown in it."""
    user_units = text_units(prompt_text(exchange), "user")
    assistant_units = text_units(exchange.assistant, "assistant")
    out: list[Candidate] = []
    commands: list[tuple[int, str]] = []
    task_taken = False
    units = [*user_units, *assistant_units]
    for order, unit in enumerate(units):
        if unit.command:
            if unit.source == "assistant":
                commands.append((order, unit.text))
            continue
        text = strip_lead(unit.text, code_first=unit.raw.lstrip("-*+ ").startswith("`"))
        size = len(tokenize(text))
        if _FILLER.match(text) or is_courtesy(unit.text):
            continue
        if size < 2 and not (unit.source == "user" and is_personal(text)):  # "Be concise." stays
            continue
        if is_noise_unit(unit, text, units[order + 1 : order + 2]):
            continue
        kind: str | None
        if is_question(text):  # a question or an offer is never memory; its answer may be
            if unit.source != "user" or not _REQUEST.match(text) or _OFFER.match(text.lower()):
                continue
            kind = None if task_taken else "task"  # a request: the chat's current task
        else:
            kind = _classify(replace(unit, text=text))
        low = unit.text.lower()
        revert = bool(_REVERT.search(low))
        if kind is None and revert:
            kind = "revert"  # never stored itself: only used to delete what it contradicts
        if kind is None or (kind == "task" and task_taken):
            continue
        personal = kind == "preference" and unit.source == "user" and is_personal(text)
        placed = unit.item and bool(_DECIDED_CONTEXT.search(unit.context))  # "Out of scope"
        if kind != "revert" and not (
            is_specific(text) or _SETTLED.search(low) or personal or placed
        ):
            continue  # generic talk ("Feedback is a valuable asset."): nothing of this project
        if kind == "learning" and (is_transient(text) or _SUPPOSED.match(low)):
            continue  # "... is starting in the background", "The issue might be that ..."
        if announces_rule(text):
            continue  # "This is an update to our naming convention.": the rule comes elsewhere
        if size < 3 and not (unit.source == "user" and kind in ("decision", "preference")):
            continue  # two words are enough only for a user's own rule ("Always use pnpm")
        if kind in _REPORTS and under_plan(unit.context, unit.outline):
            continue  # an item of a plan or of acceptance criteria is not a result
        task_taken = task_taken or kind == "task"
        score = 0.0 if kind == "revert" else _score(kind, unit, text)
        update = bool(_UPDATE.search(low))
        rules = split_rules(text) if kind in ("preference", "decision") else [text]
        for fact in (
            f for rule in rules for f in split_clauses(_prefixed(kind, rule, unit.source))
        ):
            out.append(Candidate(fact, kind, score, order, revert=revert, update=update))
    return out, commands


_RESULTS = ("change", "status")
_REPORTS = (*_RESULTS, "file")  # what was done or changed: never so when it is planned
