"""Titles for the local extractor's new topics and subtopics, from the key terms of an exchange.

A subtopic is named after its most salient noun phrase (or the one file the exchange edited), a
topic after the folder the edited files share or the exchange's dominant proper noun. No
part-of-speech tagger: verbs are told apart by the words before them and a list of common ones.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from cms.map.model import MAX_TITLE
from cms.map.ops import normalise_text
from cms.providers.local.sentences import trim_fact
from cms.textindex import STOPWORDS, tokenize
from cms.transcripts.redact import redact_text

_WEAK = frozenset(
    re.findall(
        r"\S+",
        """
    add added adds adding update updated updates updating make makes making fix fixed fixes
    fixing create created creates run runs running ran change changed changes changing set sets
    setting remove removed removes implement implemented implements check checked checks
    checking see seen need needs needed want wants wanted try tried trying let lets go goes
    going gone keep kept start started stop stopped move moved write wrote written read call
    called calls show shows showed look looks looking find found think know work works worked
    working help helps seems seem seemed return returns returned pass passes passed passing like
    new first next last current good great perfect really just actually still already here there
    thing things way lot bit part case time stuff something everything anything nothing issue
    issues problem problems question example step steps task tasks result results output summary
    approach option options sure well able via etc instead rather always never must might may
    shall could would should can will one two three every many much another different following
    done doing does did has have had having been being open todo error errors file files code
    fact facts user users asked request also whether without within across around using used
    uses doesnt dont cant isnt wont didnt wasnt ive youre thats understand explain tell give
    gives given let's true false none null yes okay ok thanks hello proper simple basic quick
    small large big full main whole specific general correct right wrong better best own real
    certain various several possible available entire exact overall additional extra initial
    final previous able sometimes often usually maybe perhaps probably anyway somehow again
    later soon yet else even back feel feels felt look get gets take takes took sound sounds
    seem firstly secondly thirdly lastly finally additionally moreover furthermore however
    therefore meanwhile listen regarding ensure ensuring session sessions ending beginning
    forward today tomorrow yesterday important minor major including taking creating
""",
    )
)
_BEFORE_VERB = frozenset(
    re.findall(
        r"\S+",
        """
    should will must to we i you please can could would let's lets don't never always might may
    shall i'll we'll you'll me us
""",
    )
)
_WORD = re.compile(r"[^\W\d_][\w+#]*(?:[./-][\w+#]+)*")
_BREAK = re.compile(
    r"[,;:!?()\[\]{}\"<>=|*]|\.(?=\s|$)|\s[-\u2013\u2014\u2192]+\s|\s+(?:and|or)\s+"
)
_LY_NOUNS = frozenset({"apply", "supply", "reply", "assembly", "anomaly", "family", "poly"})
_GENERIC_ROOTS = frozenset({"src", "lib", "app", "source", "pkg", "internal"})


@dataclass
class _Phrase:
    text: str
    score: float
    order: int
    words: int
    proper: bool  # written capitalised mid-sentence, or code-like


def title_text(text: str) -> str:
    """A cleaned, redacted title of at most 80 characters."""
    text = redact_text(re.sub(r"\s+", " ", text).strip()) or "Notes"
    return trim_fact(text, MAX_TITLE)


def short_path(name: str) -> str:
    return "/".join(name.split("/")[-3:])


def capitalise(text: str) -> str:
    if text and text[0].islower() and not re.match(r"\S*[_./]", text):
        return text[0].upper() + text[1:]
    return text


class Titles:
    """Readable titles from the key terms of one exchange (user prompt weighs most)."""

    def __init__(self, user: str, texts: list[str], avoid: set[str]) -> None:
        self.avoid = avoid
        self.freq: Counter[str] = Counter(tokenize(" ".join(texts)))
        self.prompt = set(tokenize(user))
        self.phrases = self._collect(texts)

    def _weight(self, word: str) -> float:
        stems = [t for t in tokenize(word) if t not in STOPWORDS]
        if not stems:
            return -1.0
        stem = stems[-1]
        return math.log(1 + self.freq[stem]) - 0.69 + (0.7 if stem in self.prompt else 0.0)

    def _content(self, word: str) -> bool:
        low = word.lower()
        adverb = low.endswith("ly") and low == word and low not in _LY_NOUNS
        return (
            not word.startswith(("/", "~"))
            and low not in STOPWORDS
            and low not in _WEAK
            and low not in self.avoid
            and not adverb
            and (len(word) >= 3 or word.isupper())
            and len(word) <= 40
        )

    def _collect(self, texts: list[str]) -> list[_Phrase]:
        found: dict[str, _Phrase] = {}
        everything = " ".join(texts).lower()
        for text in texts:
            for chunk in _BREAK.split(text):
                run: list[tuple[str, bool]] = []
                previous = ""
                for m in [*_WORD.finditer(chunk), None]:
                    word = m.group(0) if m else ""
                    verb_slot = previous.lower() in _BEFORE_VERB
                    previous = word
                    if m is not None and not verb_slot and self._content(word):
                        inside = bool(chunk[: m.start()].strip())  # not a sentence opener
                        proper = (inside and word[0].isupper()) or bool(
                            re.search(r"[A-Z0-9_.+#]", word[1:])
                        )
                        run.append((word, proper))
                        continue
                    for size in (1, 2, 3):
                        for i in range(len(run) - size + 1):
                            self._add(run[i : i + size], everything, found)
                    run = []
        return sorted(found.values(), key=lambda p: (-p.score, p.order))

    def _add(
        self, part: list[tuple[str, bool]], everything: str, found: dict[str, _Phrase]
    ) -> None:
        text = " ".join(w for w, _ in part)
        key = text.lower()
        score = sum(self._weight(w) + (0.3 if proper else 0.0) for w, proper in part)
        if len(part) > 1:
            score += 0.5 * (len(re.findall(rf"(?<!\w){re.escape(key)}(?!\w)", everything)) - 1)
        score *= 0.9 if len(part) == 3 else 1.0
        proper = any(p for _, p in part)
        old = found.get(key)
        if old is None:
            found[key] = _Phrase(text, score, len(found), len(part), proper)
        else:
            old.proper = old.proper or proper
            if score > old.score:
                old.score, old.text = score, text

    def subtopic(self, avoid: str = "") -> str:
        """The most salient noun phrase (one to three words)."""
        for phrase in self.phrases:
            if normalise_text(phrase.text) != avoid:
                return capitalise(phrase.text)
        return "Session notes"

    def topic(self, subtopic: str) -> str:
        """A single broader term: a proper noun when there is one; not the subtopic itself."""
        best: tuple[float, int, str] | None = None
        for phrase in self.phrases:
            if (
                phrase.words != 1
                or "/" in phrase.text
                or "_" in phrase.text  # an identifier names code, not an area of the project
                or (normalise_text(phrase.text) == normalise_text(subtopic))
            ):
                continue
            # Postgres, API, xterm.js name things; load_config names code
            named = (
                phrase.proper
                and "_" not in phrase.text
                and (phrase.text[:1].isupper() or "." in phrase.text)
            )
            score = phrase.score + (0.8 if named else 0.0)
            if best is None or (score, -phrase.order) > (best[0], -best[1]):
                best = (score, phrase.order, phrase.text)
        return capitalise(best[2]) if best else ""

    def area(self, names: list[str]) -> str:
        """The folder the edited files share (generic roots and the project's name left out)."""
        dirs = []
        for name in names:
            if "/" not in name:
                return ""
            segs = name.split("/")[:-1]
            while segs and (segs[0] in _GENERIC_ROOTS or segs[0].lower() in self.avoid):
                segs = segs[1:]
            dirs.append(segs)
        if not dirs or not all(dirs):
            return ""
        common: list[str] = []
        for parts in zip(*dirs, strict=False):
            if len(set(parts)) != 1:
                break
            common.append(parts[0])
        return "/".join(common[-2:])
