"""What the wording of a statement says about it: a standing rule, a firm one, mere courtesy.

The one place for these cues, shared by the local extractor (which sentences become facts) and
capture (which kind and importance a fact gets). Pure regular expressions on text; standard
library only, cheap to import.
"""

from __future__ import annotations

from cms.lazypattern import IGNORECASE, LazyPattern

# A rule stated for the future, with or without an imperative.
_RULE_CUE = LazyPattern(
    r"\b(?:from now on|going forward|moving forward|from here on|as a rule|by convention|"
    r"(?:our|the|this|a|another|new)(?: \w+)? (?:naming )?(?:convention|standard|guideline)|"
    r"we follow|whenever|every time|i(?: want| need| would like|'d like) you to|"
    r"(?:stress|emphasi[sz]e|reinforce|underline|highlight) the importance of|"
    r"make sure (?:to|you)|remember to|be sure to|please (?:always|never)|must|mustn't)\b",
    IGNORECASE,
)
_GENERAL = LazyPattern(r"\b(?:always|never|all|every|each|any|whenever)\b", IGNORECASE)
_RULE_NOUN = LazyPattern(
    r"\b(?:convention|standard|guideline|rule|practice|policy)s?\b", IGNORECASE
)
_QUOTE = r"(?<!\w)'[^'\s][^']{0,40}?'(?!\w)|(?<!\w)\"[^\"]{1,40}?\"(?!\w)|`[^`]{1,60}`"
_LITERAL = LazyPattern(_QUOTE)  # a quoted literal: 'e_', "snake_case", `@retry`
_WISH = LazyPattern(r"^(?:i want you to|i'd like you to|i would like you to|please)\b", IGNORECASE)
_FIRM = LazyPattern(
    r"\b(?:always|never|must|from now on|going forward|no longer|instead of)\b", IGNORECASE
)
_COURTESY = LazyPattern(
    r"\b(?:(?:don'?t|do not|never) hesitate|feel free to|reach out|let me know|keep up the|"
    r"(?:my|the) door is (?:always )?open|(?:thank you|thanks) for|i appreciate|glad to hear|"
    r"happy to help|good luck|you'?re welcome|looking forward to)\b",
    IGNORECASE,
)


_PROMISE = LazyPattern(r"\b(?:i|we)(?:'ll| will| am going to| are going to| shall)\b", IGNORECASE)


def is_rule(text: str) -> bool:
    """Whether a statement lays down how things are to be done from now on: a cue ("from now
    on", "I want you to", "our convention"), a wish with a generaliser ("please always"), or a
    literal value with a rule word, a generaliser or an imperative ("end all method names with
    '_x'", "when naming functions, please start the name with 'x_'"). A
    speaker's own promise ("moving forward, I'll ...") is not a rule, nor is courtesy."""
    if _COURTESY.search(text) or _PROMISE.search(text):
        return False
    if _RULE_CUE.search(text) or (_WISH.search(text) and _GENERAL.search(text)):
        return True
    if not _LITERAL.search(text):
        return False
    return bool(_RULE_NOUN.search(text) or _GENERAL.search(text) or is_directive(text))


_DIRECTIVE = LazyPattern(
    r"^(?:please |just |so |and |but |also |then |now |(?:from now on|going forward|moving "
    r"forward|in (?:your|our|the) \w+(?: \w+)?|when(?:ever)? [^,]{1,60}|for [^,]{1,60}),? )*"
    r"(?:always|never|don'?t|do not|make sure|remember|be sure|avoid|use|add|include|import|"
    r"start|end|name|prefix|suffix|write|keep|put|run|call|set|follow|stick|prefer|place|"
    r"append|prepend|declare|define|wrap|apply|stop|switch|begin)\b"
    r"|\byou(?:'ll| will| should| must| need to| have to| always| never)\b"
    r"|\b(?:i|we)(?: want| need| would like|'d like| expect| require| ask) you\b"
    r"|\b(?:we|our team|the team) (?:always|never|use|follow|prefer|require|standardi[sz]e)\b",
    IGNORECASE,
)
_LITERAL_VALUE = LazyPattern(  # a quoted literal or a decorator, identifier, path or version
    _QUOTE + r"|@\w+|\b\w+[_./]\w+\b|\b\d+(?:\.\d+)+\b|\bv?\d{2,}\b"
)


def is_directive(text: str) -> bool:
    """Whether a statement tells how to work (an imperative, something asked of "you", a team
    norm), as opposed to describing ("it's always a pleasure", "I've always wanted ...")."""
    return bool(_DIRECTIVE.search(text.strip()))


def has_literal(text: str) -> bool:
    """Whether a statement names a concrete value: a quoted literal, a decorator, an
    identifier, a path or a version."""
    return bool(_LITERAL_VALUE.search(text))


_NARRATION = LazyPattern(
    r"^(?:let me|let's|i'll|i will|i'm going to|i am going to|i need to|i'm|i am|i should|"
    r"i can|i have to|i want to|i'd|i would|we need to|next,? (?:i|let)|first,? (?:i|let)|"
    r"then (?:i|let)|now (?:i|let)|time to|looking at|checking|trying|here's|here is|here are|"
    r"based on|i found|i notice|i can see|it seems|it looks like|this (?:will|should) |"
    r"i'?d be happy|i apologi[sz]e)",
    IGNORECASE,
)


_QUESTION = LazyPattern(
    r"\?[)\]\"'\u201d\u2019]*\s*$|^(?:quick question|question)\b|^(?:(?:so|and|but|ok|okay|also),? )?"
    r"(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|shall|may|might|have|has|had)\b(?! (?:not|sure|you|we) \w+ to\b)[^.!:;]*$",
    IGNORECASE,
)


def is_question(text: str) -> bool:
    """A question, with or without its question mark ("Quick question - what prefix do we use",
    "Do we still use Postgres 16?)"): never memory, though its answer may be."""
    return bool(_QUESTION.search(text.strip()))


_RULE_WORDS = LazyPattern(
    r"\b(?:conventions?|rules?|standards?|guidelines?|practices?|polic(?:y|ies)|preferences?)\b",
    IGNORECASE,
    hints=("convention", "rule", "standard", "guideline", "practice", "polic", "preference"),
)
_RULE_ASK = LazyPattern(
    r"\b(?:should|must|do|shall) (?:i|we)\b|\b(?:which|what) (?:\w+ )?(?:prefix|suffix|style|"
    r"name|naming|format|tool|version)\b|\bhow (?:do|should) (?:i|we)\b",
    IGNORECASE,
    hints=("should ", "must ", "do ", "shall ", "which ", "what ", "how "),
)


def rule_query(text: str) -> tuple[str, bool]:
    """A query without its words for rules in general ("convention", "rule", "guideline"),
    which would match talk about conventions rather than the conventions themselves, and
    whether it asks how things are to be done (then the rules in force rank first)."""
    stripped = _RULE_WORDS.sub(" ", text)
    return stripped, stripped != text or bool(_RULE_ASK.search(text))


_VERBLESS_NO = LazyPattern(
    r"^no\s+(?!(?:one|longer|need|problem|worries|way|more|matter)\b)[a-z]", IGNORECASE
)
_VERB = LazyPattern(
    r"\b(?:is|are|was|were|be|been|has|have|had|does|do|did|can|could|will|would|should|must|"
    r"may|might|exists?|needs?|seems?|\w+(?<!ss)s\s+(?:the|a|an|to|in|on|for|with)|"
    r"\w+ed\s+(?:the|a|an|to|in|on|for|with|by))\b",
    IGNORECASE,
)


def is_exclusion(text: str) -> bool:
    """A statement that rules something out without a verb ("No custom Credo checks", "No CI/CD
    integration yet (separate task)"): a scope decision, not a description."""
    flat = " ".join(text.split())
    return bool(_VERBLESS_NO.search(flat)) and not _VERB.search(flat)


def is_narration(text: str) -> bool:
    """An agent saying what it is about to do or look at ("Let me check ...", "I'll ..."):
    the next minute's plan, not something to remember."""
    return bool(_NARRATION.match(text.strip()))


def is_general(text: str) -> bool:
    return bool(_GENERAL.search(text))


def is_firm(text: str) -> bool:
    """Always, never, must, from now on, instead of: a rule meant to hold."""
    return bool(_FIRM.search(text))


def is_courtesy(text: str) -> bool:
    """Politeness that states nothing to remember ("don't hesitate to reach out")."""
    return bool(_COURTESY.search(text))


# Code in prose: `code`, file.ext, snake_case, CamelCase, call(), digits, --flags, ACRONYMS.
_CODEISH = LazyPattern(
    r"`[^`]+`|\b[\w-]+\.[a-z]{1,5}\b|\b[a-z0-9]+_[a-z0-9_]+\b|\b[A-Z][a-z]+[A-Z]\w*\b|\w\(\)|"
    r"\d|--[a-z]|\b[A-Z]{2,}\b"
)
_ANCHOR = LazyPattern(
    r"\w/\w|(?<!\w)-[a-zA-Z]\b|[\u3040-\u30ff\u4e00-\u9fff]"  # a path, a flag, CJK text
    r"|(?<=[a-z,;:] )[A-Z][a-zA-Z]+"  # a name inside the sentence (a tool, a service, a product)
    # a thing chosen by its bare name ("use pnpm", "switch to uv"), not "use the room", nor
    # a phrasal verb ("run into those issues", "run out of storage")
    r"|\b(?i:use|using|prefer|switch(?:ed)? to|go with|install|run)\s+"
    r"(?!(?:the|a|an|your|our|my|their|this|that|these|those|it|them|some|any|more|less|to|"
    r"and|or|of|for|in|on|with|it's|into|out|up|over|through|across|by|away|off)\b)[a-z]"
)
# Words that make a statement about software, whatever the project.
_SOFTWARE = LazyPattern(
    r"\b(?:code|codebase|source|functions?|methods?|class(?:es)?|variables?|arguments?|"
    r"parameters?|attributes?|propert(?:y|ies)|fields?|docstrings?|annotations?|type hints?|"
    r"asserts?|assertions?|exceptions?|try|catch|imports?|modules?|packages?|librar(?:y|ies)|"
    r"dependenc(?:y|ies)|tests?|testing|commits?(?! to\b)|branch(?:es)?|merges?|pull requests?|repo|"
    r"repository|lint(?:er|ing)?|formatter|formatting|decorators?|comments?|naming|identifiers?|"
    r"files?|folders?|director(?:y|ies)|config(?:uration)?|deploy(?:s|ed|ment)?|servers?|"
    r"databases?|schemas?|quer(?:y|ies)|endpoints?|logging|debug(?:ger|ging)?|compil(?:er|e)|"
    r"runtime|scripts?|commands?|bugs?|crash(?:es|ed)?|errors?|cache|queues?|threads?|"
    r"frameworks?(?! for\b)|components?|integers?|strings?|indentation|encryption|authentication|"
    r"passwords?|tokens?|hash(?:ing|es)?|algorithms?|migrations?|containers?|pipelines?)\b",
    IGNORECASE,
)


def has_code(text: str) -> bool:
    """Code in prose: an identifier, a file, a call, a number, a flag or an acronym."""
    return bool(_CODEISH.search(text))


_CONVENTION = LazyPattern(r"\b(?:conventions?|standards?|guidelines?)\b", IGNORECASE)


def announces_rule(text: str) -> bool:
    """A sentence about a convention that does not give it ("I want you to update your naming
    convention for variables.", "This is a convention we follow."): it names a convention,
    standard or guideline but no literal, code, path or name; the rule itself comes elsewhere."""
    return bool(
        _CONVENTION.search(text)
        and not _LITERAL.search(text)
        and not _CODEISH.search(text)
        and not _ANCHOR.search(text)
    )


# an acronym standing alone (not part of a path, a name or a version: "CI/CD", "OTLP-ready"):
# organisations and departments have them too ("ORBIT", "the IT room", "HR")
_LONE_ACRONYM = LazyPattern(r"(?<![\w/.-])[A-Z]{2,}(?![\w/-]|\.\w)")


def is_specific(text: str) -> bool:
    """A statement about this project or its software, not generic talk: it names code, a file
    or path, a number, a literal, a flag, a tool or product, or speaks of software at all.
    ("Client feedback is a valuable asset." is not; "Always add docstrings." and "Always use
    pnpm." are.) An acronym standing alone is not enough ("use the IT room from now on", "ORBIT
    has always had a remote-friendly policy"): organisations and departments have them too."""
    text = _LONE_ACRONYM.sub(" ", text)
    return bool(
        _CODEISH.search(text)
        or _LITERAL.search(text)
        or _ANCHOR.search(text)
        or _SOFTWARE.search(text)
    )


# -- whose preference: the user's own (every project) or this project's ------------------------

# A taste the speaker states about themself: standing by its nature ("I prefer ...", "I'd
# rather ...", "I hate long preambles", "my preferred editor is vim", "the user prefers ...").
# "like"/"love" count only with an object of their own, not a reaction to the work at hand
# ("I like that", "I love this approach", "I'd like you to fix ...").
_TASTE = LazyPattern(
    r"\bi(?:'d| would)? (?:really |much |strongly |generally |usually |always |definitely )?"
    r"(?:prefer|rather)\b"
    r"|(?<!\bwhat )(?<!\bwhich )"  # "that's what I like to hear": a reaction, not a taste
    r"\bi (?:really |generally |usually |always |just |do(?:n'?t| not) |really don'?t )?"
    r"(?:like|love|hate|dislike|enjoy|appreciate|can'?t stand|despise|detest)\b"
    r"(?! (?:that|this|it|these|those|the|your|what|how|seeing)\b(?! when\b))"
    r"|\bi(?:'m| am) (?:not )?(?:a (?:big )?fan of|fond of|used to)\b"
    r"|\bmy (?:preference|preferred|favou?rite|native language|first language|name|pronouns?)\b"
    r"|\b(?:the )?user (?:(?:really|strongly|generally|usually|always) )?(?:prefers|likes|"
    r"dislikes|hates|wants|would like|'d like|expects|asked (?:you |me |us )?(?:to|for|not)|"
    r"does not want|doesn'?t want|does not like|doesn'?t like)\b",
    IGNORECASE,
    hints=("i", "my", "user"),
)
# The user as the one addressed or asked: standing by its nature ("call me Sam") or with a
# word that makes it last ("never ask me to confirm", "always tell me which files changed").
_NAMING_ME = LazyPattern(r"\b(?:call|address|refer to) me\b", IGNORECASE, hints=("me",))
_ME = LazyPattern(r"\b(?:me|myself)\b(?<!\blet me)", IGNORECASE, hints=("me",))
_LASTING = LazyPattern(
    r"\b(?:always|never|every time|each time|whenever|from now on|going forward|in (?:the )?"
    r"future|by default|in general|don'?t|do not|no need to|stop|any ?more|ever again|again)\b",
    IGNORECASE,
)
# How the user wants to be answered: the answer's language, length, tone and form.
_ADDRESSING = LazyPattern(
    r"\b(?:answer|reply|respond|talk|speak|communicate|chat|write to me|explain things)\w*"
    r"(?: to me| back)? in (?!(?:the|a|an|this|that|these|those|your|my|our|code|detail)\b)"
    r"[A-Z][a-z]+"  # "answer in French", "reply to me in German"
    r"|\byour (?:answers?|repl(?:y|ies)|responses?|explanations?|messages|summar(?:y|ies)|"
    r"tone|wording|prose|writing style)\b"
    r"|\b(?:answers?|repl(?:y|ies)|responses?) (?:to me|should|must|need to|have to)\b"
    r"|\bbe (?:more |less |very |extra |really )?(?:concise|brief|terse|succinct|direct|blunt|"
    r"detailed|verbose|thorough|formal|informal|casual|polite|friendly)\b"
    r"|\bkeep (?:it|things|them|answers|replies) (?:short|brief|concise|terse)\b",
    IGNORECASE,
)
_ANSWER_VERB = LazyPattern(r"\b(?:answer|reply|respond|talk|speak|communicate)\b", IGNORECASE)
# What places a rule in this project (or this chat) rather than with the user: the team ("we",
# "our"), the project itself ("this repo", "the codebase", "here"), a path or a file of it.
_PLACED = LazyPattern(
    r"\b(?:we|we'?re|we'?ve|we'?ll|we'?d|our|ours|us|let'?s|team|everyone|everybody)\b"
    r"|\b(?:this|the|our|that) (?:repo(?:sitory)?|project|codebase|code base|monorepo|"
    r"workspace)\b"
    r"|\b(?:this|our|these) (?:code|package|app|application|service|module|library|crate|"
    r"folder|directory|files?|component|branch)\b"
    r"|\b(?:this|the current) (?:session|chat|conversation|task|ticket|issue|pr)\b"
    r"|\bhere\b|\w/\w"
    r"|\b[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|json|toml|ya?ml|md|rs|go|java|kt|rb|sh|sql|css|"
    r"html|c|h|cc|cpp|hpp|cfg|ini|env|lock)\b",
    IGNORECASE,
)


# A definite thing of the project a taste names ("the orders database", "the migrations") or a
# piece of its code (an identifier, a call, a quoted literal): "I prefer Postgres for the orders
# database" is a choice for this project, "I prefer short functions" the user's own taste.
_CONCRETE = LazyPattern(
    r"\b(?:the|this|that|these|those|its)\s+(?:[\w-]+\s+){0,2}"
    + _SOFTWARE.source
    + r"|`[^`]+`|\b[a-z0-9]+_[a-z0-9_]+\b|(?-i:\b[A-Z][a-z]+[A-Z]\w*\b)"
    r"|\w\(\)|(?<!\w)'[^'\s][^']{0,40}?'(?!\w)",
    IGNORECASE,
)


def is_placed(text: str) -> bool:
    """Whether a statement ties itself to this project or chat: the team ("we", "our"), the
    project ("this repo", "the codebase", "here"), or a path or file of it."""
    return bool(_PLACED.search(text))


def is_personal(text: str) -> bool:
    """Whether a statement is a preference the user holds about themself or about how they want
    to be answered and worked with, in any project: their taste in the first person ("I prefer
    ...", "I'd rather ...", "I hate ..."; "the user prefers ..." as a model writes it; not when it
    names a thing or a piece of code of the project: "I prefer Postgres for the orders
    database"), the user
    addressed ("call me Sam"; "never ask me to confirm", with a word that makes it last), or the
    form of the answers ("always answer in French", "keep your answers short", "be concise").
    A statement tied to this project ("we use tabs in this repo", "in this project always ...",
    a path or file) is the project's; questions, courtesy and promises are nobody's rule."""
    flat = " ".join(text.split())
    if not flat or is_placed(flat) or is_question(flat):
        return False
    if _COURTESY.search(flat) or _PROMISE.search(flat):
        return False
    if _NAMING_ME.search(flat):
        return True
    if _TASTE.search(flat) and not _CONCRETE.search(flat):
        return True
    if _ME.search(flat) and _LASTING.search(flat):
        return True
    if _ADDRESSING.search(flat):
        return True
    return bool(_ANSWER_VERB.search(flat) and _LASTING.search(flat) and is_directive(flat))


_PLACE_WORDS = LazyPattern(
    r"\b(?:in|for|within|across|throughout|inside|on)? ?(?:this|the|our) (?:repo(?:sitory)?|"
    r"project|codebase|code base|monorepo|workspace)\b|\b(?:in )?here\b",
    IGNORECASE,
)


def without_place(text: str) -> str:
    """The statement without the words that only place it in a project ("in this repo",
    "here"): what it says, for comparing it with a rule of another tier."""
    return _PLACE_WORDS.sub(" ", text)
