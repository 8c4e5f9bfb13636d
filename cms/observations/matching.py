"""Turning free text into bounded FTS5 work and scoring what it finds, for recall and the fact
index alike: query terms, safe MATCH expressions, document frequencies from the vocabulary
tables, the candidate plan whose work does not grow with the store, and the shared relevance
formula (coverage of rarity-weighted terms with BM25 strength). Knows nothing of observations.
"""

from __future__ import annotations

import math

from cms.lazypattern import LazyPattern
from cms.record import Record
from cms.textindex import STOPWORDS, every_form, stem, term_forms

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    from cms.observations.store import ObservationStore

BM25_HALF = 6.0  # the BM25 score that counts as half strength
BM25_K1, BM25_B = 1.2, 0.75  # FTS5's bm25() parameters, which local_bm25 computes alike
CONTEXT_CREDIT = 0.5  # a query term found only around a hit (not in it) counts half
MAX_TERMS = 24
POSTINGS_BUDGET = 1000  # index entries one recall may score; commoner terms only rerank
CONJUNCTION_ROWS = 200  # rows an AND of common terms should leave, were they independent
REFRESH_GROWTH = 0.05  # the share of new rows after which the vocabulary counts are taken again
SEGMENTS_MAX = 4  # FTS5 segments an index may hold before its writer merges them
MERGE_PAGES = 1000  # leaf pages one merge step may write: a writer's work stays bounded
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


def stem_counts(text: str, stems: Sequence[tuple[str, bool]]) -> list[int]:
    """Per (base, whole) of term_stems: how often base occurs in text at the start of a word,
    ending a word there too when whole. A word is a run of letters and digits, as for the FTS5
    tokenizer and alnum_runs: an underscore separates ("put_trace_response_header" holds
    "response"), unlike re's \b. A scan with str.find rather than a pattern per query term
    (compiling one costs more than searching every hit), one call per text: recall runs it on
    every candidate."""
    size = len(text)
    counts = []
    for base, whole in stems:
        count = 0
        start = text.find(base)
        while start >= 0:
            before = text[start - 1] if start else " "
            if not before.isalnum():
                end = start + len(base)
                after = text[end] if end < size else " "
                if not whole or not after.isalnum():
                    count += 1
            start = text.find(base, start + 1)
        counts.append(count)
    return counts


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
    bm25s: Sequence[float] | None,
    terms: Sequence[str],
    half: float = BM25_HALF,
    contexts: Sequence[str] | None = None,
    plan: MatchPlan | None = None,
) -> list[float]:
    """Per hit (its lower-cased text and bm25() value, negative is better): coverage * (0.5 +
    0.5 * s / (s + half)), s = -bm25, coverage the share of query terms it holds, each weighted
    by its rarity among the hits (term_weights), in any of its forms ("env" for environment:
    textindex.term_forms). A term found only in the hit's context (the lower-cased words
    around it) earns CONTEXT_CREDIT of its weight. Without bm25s (the hits
    were drawn newest first, see MatchPlan) the BM25 values are computed here (local_bm25) from
    the plan's document frequencies."""
    forms = term_forms(terms)
    stems = term_stems([form for group in forms for form in group])

    def counts(text: str) -> list[int]:
        found = stem_counts(text, stems)
        return found if len(found) == len(forms) else _per_term(found, forms)

    own = [counts(t) for t in texts]
    around = [counts(c) for c in contexts] if contexts is not None else None
    present = [[c > 0 for c in row] for row in own] if around is None else [
        [a > 0 or b > 0 for a, b in zip(x, y, strict=True)]
        for x, y in zip(own, around, strict=True)
    ]  # fmt: skip
    weights = term_weights(present, len(forms))
    total = sum(weights) or 1.0
    if bm25s is None:
        bm25s = local_bm25(texts, own, around, terms, plan)
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


def _per_term(counts: list[int], forms: Sequence[tuple[str, ...]]) -> list[int]:
    """Counts per form (term_forms flattened) summed per query term."""
    result, start = [], 0
    for group in forms:
        result.append(sum(counts[start : start + len(group)]))
        start += len(group)
    return result


def local_bm25(
    texts: Sequence[str],
    own: Sequence[Sequence[int]],
    around: Sequence[Sequence[int]] | None,
    terms: Sequence[str],
    plan: MatchPlan | None,
) -> list[float]:
    """BM25 as FTS5's bm25() computes it (BM25_K1, BM25_B, idf log((N - n + 0.5) / (n + 0.5)),
    at least 1e-6; negative, lower is better), from counts taken here: a term's frequency in a
    text (CONTEXT_CREDIT per occurrence in its context), the text's length in words against the
    hits' mean, n and N from the plan. What FTS5 would spend reading every posting of a common
    term to count its rows, the plan already knows."""
    frequency = plan.frequency if plan is not None else {}
    rows = max(plan.rows if plan is not None else 0, len(texts))
    idf = [
        max(1e-6, math.log((rows - n + 0.5) / (n + 0.5)))
        for n in (min(frequency.get(t, 0), rows) for t in terms)
    ]
    lengths = [max(1, len(t.split())) for t in texts]
    mean = sum(lengths) / len(lengths) if lengths else 1.0
    scores = []
    for n, (row, length) in enumerate(zip(own, lengths, strict=True)):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / mean)
        score = 0.0
        for i, count in enumerate(row):
            tf = count + (CONTEXT_CREDIT * around[n][i] if around is not None else 0.0)
            if tf:
                score += idf[i] * tf * (BM25_K1 + 1) / (tf + norm)
        scores.append(-score)
    return scores


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


def merge_segments(conn: sqlite3.Connection, fts: str) -> bool:
    """Merge an FTS5 index's segments once more than SEGMENTS_MAX have piled up (each write
    transaction adds one, and every lookup of a term reads each segment: the hooks' searches
    and vocabulary counts slow down as they pile up), writing at most MERGE_PAGES leaf pages:
    later calls go on where a large index was left. Writers call it; whether it merged."""
    count = conn.execute(f"SELECT count(DISTINCT segid) FROM {fts}_idx").fetchone()[0]
    if count <= SEGMENTS_MAX:
        return False
    conn.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('merge', ?)", (-MERGE_PAGES,))
    return True


def tidy_text_indexes(conn: sqlite3.Connection, force: bool = False) -> None:
    """What a writer leaves behind for the hooks' searches: the text indexes of the facts and
    the observations with few segments (merge_segments), and their vocabulary counts retaken
    when they grew (or when forced)."""
    for fts, vocab, table in (
        ("facts_fts", "facts_vocab", "facts"),
        ("observations_fts", "observations_vocab", "observations"),
    ):
        merge_segments(conn, fts)
        refresh_term_counts(conn, vocab, table, force=force)


class MatchPlan(Record):
    """How one search draws its candidates from an FTS5 table (plan_matches)."""

    expressions: list[str]  # tried in order
    newest_first: bool  # every term is common: the newest matches, ranked by local_bm25
    frequency: dict[str, int]  # rows holding each query term (frequencies_in)
    rows: int  # rows of the table (its largest rowid)


def plan_matches(
    store: ObservationStore,
    terms: Sequence[str],
    vocab: str = "observations_vocab",
    table: str = "observations",
) -> MatchPlan:
    """The candidates of a search, so that its work does not grow with the store. Usually the OR
    of the rarest terms whose postings fit POSTINGS_BUDGET (commoner terms still count in the
    rescoring), ranked by FTS5's bm25() (match_condition). When even the rarest term is common,
    bm25() would read every posting of it (to count its rows): then the newest rows holding the
    rarest few terms together (about CONJUNCTION_ROWS of them, were the terms independent: the
    rows that answer most of the query), and then the newest rows holding the rarest term, are
    drawn newest first, their BM25 computed by the caller (local_bm25). A text holding a term
    in another form only ("PR" for pull request: textindex.every_form) is drawn too."""
    terms = every_form(terms)

    def plan(conn: sqlite3.Connection) -> MatchPlan:
        frequency = frequencies_in(conn, terms, vocab)
        present = [t for t in terms if frequency.get(t, 0) > 0]
        chosen = set(rarest(present, frequency)) if present else set()
        rows = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
        expressions = []
        common = sum(frequency[t] for t in chosen) > POSTINGS_BUDGET
        if common:
            both = conjunction(terms, frequency, rows, min(CONJUNCTION_ROWS, POSTINGS_BUDGET))
            if len(both) > 1:
                expressions.append(" AND ".join(f'"{t}"' for t in both))
        # terms the vocabulary lacks cost nothing (or, if a stem was guessed wrong, stay bounded)
        matched = [t for t in terms if t in chosen or frequency.get(t, 0) == 0]
        expression = or_expression(matched)
        if expression:
            expressions.append(expression)
        return MatchPlan(expressions, common, frequency, int(rows))

    return store.read(plan)


def match_expressions(
    store: ObservationStore,
    terms: Sequence[str],
    vocab: str = "observations_vocab",
    table: str = "observations",
) -> list[str]:
    """The FTS5 expressions of plan_matches, in order."""
    return plan_matches(store, terms, vocab, table).expressions


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
    """The SQL condition (and its parameters) matching `fts` against an expression of a ranked
    plan (MatchPlan.newest_first false), keeping its POSTINGS_BUDGET newest matches: BM25 then
    ranks a bounded set, even when a stem guessed wrong let a common term in."""
    bound = (
        f"{fts}.rowid >= coalesce((SELECT rowid FROM {fts} WHERE {fts} MATCH ? "
        f"ORDER BY rowid DESC LIMIT 1 OFFSET {max(0, POSTINGS_BUDGET - 1)}), 0)"
    )
    return f"{fts} MATCH ? AND {bound}", (expression, expression)


def rarest(
    terms: Sequence[str], frequency: dict[str, int], budget: int = POSTINGS_BUDGET
) -> list[str]:
    """The rarest terms whose postings together fit the budget (at least one), in query
    order."""
    chosen: set[str] = set()
    total = 0
    for term in sorted(terms, key=lambda t: frequency.get(t, 0)):
        cost = frequency.get(term, 0)
        if chosen and total + cost > budget:
            break
        chosen.add(term)
        total += cost
    return [t for t in terms if t in chosen]
