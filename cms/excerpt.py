"""Shortening text without cutting a word: whole sentences, else whole clauses, else whole words.

Every place that shows or stores text under a limit goes through here, so nothing is ever cut
mid-word. Pure standard library, cheap to import (the prompt hook uses it).
"""

from __future__ import annotations

from cms.lazypattern import LazyPattern

_SENTENCE_END = LazyPattern(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[`@])|\n+", hints=(".", "!", "?", "\n"))
_CLAUSE_END = LazyPattern(r"(?<=[,;:])\s+|\s+(?=\u2014|--\s|\(|because\b|so that\b|which\b)")
ELLIPSIS = "\u2026"


def sentences(text: str) -> list[str]:
    """The sentences of a text, whitespace collapsed inside each."""
    return [" ".join(s.split()) for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def first_sentence(text: str) -> str:
    parts = sentences(text)
    return parts[0] if parts else ""


def _pieces_within(pieces: list[str], limit: int) -> str:
    kept = ""
    for piece in pieces:
        candidate = f"{kept} {piece}" if kept else piece
        if len(candidate) > limit:
            break
        kept = candidate
    return kept


def fit_text(text: str, limit: int) -> str:
    """text when it fits; else the leading whole sentences that fit, else the leading whole
    clauses of the first sentence, else its leading whole words; an ellipsis marks a cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    room = max(1, limit - 1)
    kept = _pieces_within(sentences(flat), room)
    if not kept:
        kept = _pieces_within(_CLAUSE_END.split(first_sentence(flat)), room)
    if not kept:
        kept = _pieces_within(flat.split(" "), room)
    if not kept:  # one word longer than the limit: shown whole rather than cut
        return flat.split(" ", 1)[0]
    return kept.rstrip(" ,;:") + ELLIPSIS


def split_text(text: str, limit: int) -> list[str]:
    """text as consecutive parts of at most limit characters each, split between sentences,
    else between clauses, else between words (a single longer word stays whole)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return [flat] if flat else []
    return pack_sentences(sentences(flat), limit)


def pack_sentences(whole: list[str], limit: int) -> list[str]:
    """Consecutive sentences packed into parts of at most limit characters; a longer sentence
    split between clauses, else between words (a single longer word stays whole)."""
    parts: list[str] = []
    for sentence in whole:
        pieces = [sentence] if len(sentence) <= limit else _CLAUSE_END.split(sentence)
        for piece in pieces:
            words = [piece] if len(piece) <= limit else piece.split(" ")
            for word in words:
                if parts and len(parts[-1]) + 1 + len(word) <= limit:
                    parts[-1] += " " + word
                else:
                    parts.append(word)
    return parts
