"""The short forms developers write for common words ("env" for environment, "PR" for pull
request), so that a query in one form finds a memory written in the other: each query term with
the other forms it may take in a text. A fixed, general table; it must not grow with words
seen in any one project or benchmark. Standard library only, cheap to import.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# (short form, long form): the long form may be several words, found together in a text.
PAIRS = (
    ("app", "application"),
    ("arg", "argument"),
    ("args", "arguments"),
    ("auth", "authentication"),
    ("cli", "command line"),
    ("config", "configuration"),
    ("db", "database"),
    ("dep", "dependency"),
    ("deps", "dependencies"),
    ("dev", "development"),
    ("dir", "directory"),
    ("docs", "documentation"),
    ("env", "environment"),
    ("func", "function"),
    ("impl", "implementation"),
    ("js", "javascript"),
    ("lib", "library"),
    ("msg", "message"),
    ("param", "parameter"),
    ("params", "parameters"),
    ("pkg", "package"),
    ("pr", "pull request"),
    ("prod", "production"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("ts", "typescript"),
    ("tmp", "temporary"),
    ("var", "variable"),
    ("vars", "variables"),
)
_OTHER = {a: b for pair in PAIRS for a, b in (pair, pair[::-1]) if " " not in a}
_PHRASES = [(long.split(), short) for short, long in PAIRS if " " in long]


def term_forms(terms: Sequence[str]) -> list[tuple[str, ...]]:
    """Per query term (lower-cased words, in query order): the term and the other form a text
    may use for it. A long form of several words is matched when its words follow each other
    in terms: each of them may then be the short form ("pull", "request" -> "pr")."""
    forms: list[tuple[str, ...]] = [(t, _OTHER[t]) if t in _OTHER else (t,) for t in terms]
    for words, short in _PHRASES:
        size = len(words)
        for n in range(len(terms) - size + 1):
            if list(terms[n : n + size]) == words:
                for i in range(n, n + size):
                    forms[i] = (*forms[i], short)
    return forms


def every_form(terms: Sequence[str]) -> list[str]:
    """The terms and every other form of them (term_forms), each once: what to match."""
    return list(dict.fromkeys(form for forms in term_forms(terms) for form in forms))
