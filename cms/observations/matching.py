"""Turning free text into bounded FTS5 work and scoring what it finds, for recall and the fact
index alike: query terms, safe MATCH expressions, document frequencies from the vocabulary
tables, the candidate plan whose work does not grow with the store, and the shared relevance
formula (coverage of rarity-weighted terms with BM25 strength). Knows nothing of observations.
"""

from __future__ import annotations

import math

from cms.lazypattern import LazyPattern
from cms.textindex import STOPWORDS, stem

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    from cms.observations.store import ObservationStore

BM25_HALF = 6.0  # the BM25 score that counts as half strength
CONTEXT_CREDIT = 0.5  # a query term found only around a hit (not in it) counts half
MAX_TERMS = 24
POSTINGS_BUDGET = 1000  # index entries one recall may score; commoner terms only rerank
CONJUNCTION_ROWS = 200  # rows an AND of common terms should leave, were they independent
REFRESH_GROWTH = 0.05  # the share of new rows after which the vocabulary counts are taken again
_TERM = LazyPattern(r"[^\W_]+")
# Every ASCII character that is neither a letter nor a digit, as a space (str.translate table).
_ASCII_BREAKS = {code: " " for code in range(128) if not chr(code).isalnum()}

_EXTRA_STOPWORDS = frozenset(
    [
        "like",
        "would",
        "could",
        "also",
        "really",
        "much",
        "many",
        "thing",
        "things",
        "kind",
        "sort",
        "way",
        "lot",
        "lots",
        "one",
        "ones",
        "go",
        "going",
        "goes",
        "went",
        "gone",
        "know",
        "knew",
        "think",
        "thought",
        "want",
        "wanted",
        "tell",
        "told",
        "say",
        "said",
        "hi",
        "hey",
        "hello",
        "sure",
        "right",
        "well",
        "maybe",
        "still",
        "even",
        "ever",
    ]
)


def alnum_runs(text: str) -> list[str]:
    r"""The runs of letters and digits of a text, as re.findall(r"[^\W_]+", text) gives them; an
    ASCII text (most prompts) is split with str methods, so the hook need not import re."""
    if text.isascii():
        return text.translate(_ASCII_BREAKS).split()
    return _TERM.findall(text)


def content_words(text: str) -> list[str]:
    """The searchable words of a free text, lower-cased, in order: no stopwords, no single
    letters (single digits stay)."""
    return [
        word
        for word in alnum_runs(text.casefold())
        if (len(word) >= 2 or word.isdigit())
        and word not in STOPWORDS
        and word not in _EXTRA_STOPWORDS
    ]


def query_terms(text: str) -> list[str]:
    """The distinct searchable words of a free text (content_words), in order, at most
    MAX_TERMS."""
    return list(dict.fromkeys(content_words(text)))[:MAX_TERMS]


def match_expression(text: str) -> str | None:
    """A safe FTS5 MATCH expression for any text: quoted terms joined by OR (None if none).

    Every term is letters and digits only, so quoting makes it a plain string token; FTS5 then
    stems it with the table's porter tokenizer.
    """
    return or_expression(query_terms(text))


def or_expression(terms: Sequence[str]) -> str | None:
    """Terms (letters and digits only) quoted and joined by OR for an FTS5 MATCH; None if none."""
    return " OR ".join(f'"{t}"' for t in terms) if terms else None


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what re's \b counts as part of a word


def holds_word_start(text: str, base: str, whole: bool) -> bool:
    """Whether base occurs in text at the start of a word (as r"\b" + base would find it),
    and when whole, ends a word there too (r"\b" + base + r"\b"). A scan with str.find rather
    than a pattern per query term: compiling one costs more than searching every hit."""
    start = text.find(base)
    while start >= 0:
        if start == 0 or not _is_word_char(text[start - 1]):
            end = start + len(base)
            if not whole or end >= len(text) or not _is_word_char(text[end]):
                return True
        start = text.find(base, start + 1)
    return False


def term_stems(terms: Sequence[str]) -> list[tuple[str, bool]]:
    """Per term: its light stem, to be found at the start of a word, and whether the word must
    end there too (short stems, which would otherwise start too many words)."""
    return [(base, len(base) < 4) for base in map(stem, terms)]


def term_weights(present: Sequence[Sequence[bool]], terms: int) -> list[float]:
    """Per query term, its rarity among the hits: log(1 + (N + 1) / (1 + n_t)). A term that no
    hit holds gets the mean weight of those some hit holds: the word the asker chose ("suffix")
    may simply not be the word the memory used ("end with"), so it lowers every coverage a
    little instead of capping it."""
    count = len(present)
    held = [sum(row[i] for row in present) for i in range(terms)]
    weights = [math.log(1 + (count + 1) / (1 + n)) for n in held]
    seen = [w for w, n in zip(weights, held, strict=True) if n]
    fallback = sum(seen) / len(seen) if seen else 1.0
    return [w if n else fallback for w, n in zip(weights, held, strict=True)]


def text_relevance(
    texts: Sequence[str],
    bm25s: Sequence[float],
    terms: Sequence[str],
    half: float = BM25_HALF,
    contexts: Sequence[str] | None = None,
) -> list[float]:
    """Per hit (its lower-cased text and bm25() value, negative is better): coverage * (0.5 +
    0.5 * s / (s + half)), s = -bm25, coverage the share of query terms it holds, each weighted
    by its rarity among the hits (term_weights). A term found only in the hit's context (the
    lower-cased words around it) earns CONTEXT_CREDIT of its weight."""
    stems = term_stems(terms)

    def holds(text: str) -> list[bool]:
        return [holds_word_start(text, base, whole) for base, whole in stems]

    own = [holds(t) for t in texts]
    around = [holds(c) for c in contexts] if contexts is not None else None
    present = own if around is None else [
        [a or b for a, b in zip(x, y, strict=True)] for x, y in zip(own, around, strict=True)
    ]  # fmt: skip
    weights = term_weights(present, len(stems))
    total = sum(weights) or 1.0
    result = []
    for n, (bm25, row) in enumerate(zip(bm25s, own, strict=True)):
        credit = [1.0 if hit else 0.0 for hit in row]
        if around is not None:
            credit = [
                c or (CONTEXT_CREDIT if b else 0.0) for c, b in zip(credit, around[n], strict=True)
            ]
        coverage = sum(w * c for w, c in zip(weights, credit, strict=True)) / total
        strength = max(0.0, -bm25)
        result.append(coverage * (0.5 + 0.5 * strength / (strength + half)))
    return result


def _stem_guesses(term: str) -> list[str]:
    """Prefixes of a term that may be its porter stem in the FTS5 vocabulary, with an e restored
    where a suffix took one ("staging" -> "stage"), plus y -> i."""
    guesses = [term[:n] for n in range(max(3, len(term) - 5), len(term) + 1)]
    if term.endswith(("ing", "ed")):
        guesses += [g + "e" for g in guesses if len(g) < len(term) - 1]
    if term.endswith("y"):
        guesses.append(term[:-1] + "i")
    return guesses


def frequencies_in(
    conn: sqlite3.Connection, terms: Sequence[str], vocab: str = "observations_vocab"
) -> dict[str, int]:
    """How many rows hold each term (0 when unknown), inside the caller's transaction: from the
    snapshot of the vocabulary that refresh_term_counts keeps, else (terms absent from it) from
    the FTS5 vocabulary table itself (the observations', or `facts_vocab`), which counts a term
    by reading its postings.

    The vocabulary holds porter stems; a term's stem is taken to be its longest prefix found
    there. A wrong guess can only overstate how common a term absent from the store is.
    """
    guesses = {t: _stem_guesses(t) for t in terms}
    wanted = sorted({g for gs in guesses.values() for g in gs})
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    found: dict[str, int] = dict(
        conn.execute(
            f"SELECT term, doc FROM term_counts WHERE vocab = ? AND term IN ({marks})",
            (vocab, *wanted),
        ).fetchall()
    )
    unknown = sorted({g for gs in guesses.values() if not set(gs) & found.keys() for g in gs})
    if unknown:  # absent at the last count or new since: cheap to count while rare
        sql = f"SELECT term, doc FROM {vocab} WHERE term IN ({','.join('?' * len(unknown))})"
        found.update(conn.execute(sql, unknown).fetchall())
    result = {}
    for term, options in guesses.items():
        present = [g for g in options if g in found]
        result[term] = found[max(present, key=len)] if present else 0
    return result


def refresh_term_counts(
    conn: sqlite3.Connection, vocab: str, table: str, *, force: bool = False
) -> bool:
    """Snapshot a vocabulary's counts (reading every posting list once) when its table has grown
    by REFRESH_GROWTH since the last snapshot, or when forced; returns whether it did. Writers
    call it, off the hook path, so that frequencies_in reads counts instead of postings."""
    rows = int(conn.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0])
    last = conn.execute("SELECT rows FROM term_counts_state WHERE vocab = ?", (vocab,)).fetchone()
    if not force and last is not None and rows <= int(last[0]) * (1 + REFRESH_GROWTH):
        return False
    conn.execute("DELETE FROM term_counts WHERE vocab = ?", (vocab,))
    conn.execute(
        f"INSERT INTO term_counts (vocab, term, doc) SELECT ?, term, doc FROM {vocab}", (vocab,)
    )
    conn.execute(
        "INSERT OR REPLACE INTO term_counts_state (vocab, rows) VALUES (?, ?)", (vocab, rows)
    )
    return True


def match_expressions(
    store: ObservationStore,
    terms: Sequence[str],
    vocab: str = "observations_vocab",
    table: str = "observations",
) -> list[str]:
    """The FTS5 expressions to draw candidates from, in order, so that a recall's work does not
    grow with the store: the OR of the rarest terms whose postings fit POSTINGS_BUDGET (commoner
    terms still count in the rescoring), preceded, when even the rarest term is common, by the
    rows holding the rarest few terms together (about CONJUNCTION_ROWS of them, were the terms
    independent), ranked by every term they hold: the rows that answer most of the query, which
    the OR's newest-first bound may not reach."""

    def plan(conn: sqlite3.Connection) -> list[str]:
        frequency = frequencies_in(conn, terms, vocab)
        present = [t for t in terms if frequency.get(t, 0) > 0]
        chosen = set(rarest(present, frequency)) if present else set()
        expressions = []
        if sum(frequency[t] for t in chosen) > POSTINGS_BUDGET:
            rows = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
            both = conjunction(terms, frequency, rows, min(CONJUNCTION_ROWS, POSTINGS_BUDGET))
            if len(both) > 1:  # the group holds a required term: it only adds to the ranking
                rest = [t for t in present if t not in both]
                group = " OR ".join(f'"{t}"' for t in [both[-1], *rest])
                expressions.append(" AND ".join(f'"{t}"' for t in both) + f" AND ({group})")
        # terms the vocabulary lacks cost nothing (or, if a stem was guessed wrong, stay bounded)
        matched = [t for t in terms if t in chosen or frequency.get(t, 0) == 0]
        expression = or_expression(matched)
        return [*expressions, expression] if expression else expressions

    return store.read(plan)


def conjunction(
    terms: Sequence[str], frequency: dict[str, int], rows: int, budget: int
) -> list[str]:
    """The rarest present terms (at least two), added until `rows` times the product of their
    shares (the rows holding all of them, were they independent) fits `budget`; in query order."""
    chosen: list[str] = []
    expected = float(rows)
    for term in sorted((t for t in terms if frequency.get(t, 0) > 0), key=lambda t: frequency[t]):
        if len(chosen) >= 2 and expected <= budget:
            break
        chosen.append(term)
        expected *= frequency[term] / rows if rows else 1.0
    return [t for t in terms if t in chosen]


def match_condition(fts: str, expression: str) -> tuple[str, tuple[str, ...]]:
    """The SQL condition (and its parameters) matching `fts` against an expression of
    match_expressions. An OR of terms keeps its POSTINGS_BUDGET newest matches, so BM25 ranks a
    bounded set whatever the store's size. A conjunction is not bounded: it matches no more rows
    than its rarest term has postings, and bm25() reads every posting of each of its terms
    anyway (to count their rows), so a bound would only walk the conjunction a second time."""
    if " AND " in expression:  # terms are quoted letters and digits: only match_expressions' AND
        return f"{fts} MATCH ?", (expression,)
    bound = (
        f"{fts}.rowid >= coalesce((SELECT rowid FROM {fts} WHERE {fts} MATCH ? "
        f"ORDER BY rowid DESC LIMIT 1 OFFSET {max(0, POSTINGS_BUDGET - 1)}), 0)"
    )
    return f"{fts} MATCH ? AND {bound}", (expression, expression)


def rarest(terms: Sequence[str], frequency: dict[str, int]) -> list[str]:
    """The rarest terms whose postings together fit POSTINGS_BUDGET (at least one), in query
    order."""
    budget = POSTINGS_BUDGET
    chosen: set[str] = set()
    total = 0
    for term in sorted(terms, key=lambda t: frequency.get(t, 0)):
        cost = frequency.get(term, 0)
        if chosen and total + cost > budget:
            break
        chosen.add(term)
        total += cost
    return [t for t in terms if t in chosen]
