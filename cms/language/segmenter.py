"""Sentences of a paragraph, by a real segmenter (pysbd's rules for English: abbreviations,
numbers, versions, file names, URLs and lower-case sentence starts as users type them).

The one module that imports pysbd, loaded by the worker only (the local extractor); the hooks
never import it. A paragraph is one line of prose: markdown structure (fences, bullets, tables,
headings) is cut before it reaches here. A sentence never ends inside inline code, and a
quotation of several sentences is cut into them (pysbd keeps a quote whole, as in a novel; here
a quote is what someone said, sentence by sentence).
"""

from __future__ import annotations

from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pysbd import Segmenter


@lru_cache(maxsize=1)
def _segmenter() -> Segmenter:
    from pysbd import Segmenter

    return Segmenter(language="en", clean=False, char_span=True)


_QUOTES = str.maketrans({'"': " ", "\u201c": " ", "\u201d": " "})


def _in_code(paragraph: str) -> list[bool]:
    """For each character, whether it lies inside an inline code span (between backticks)."""
    inside, flags = False, []
    for char in paragraph:
        if char == "`":
            inside = not inside
        flags.append(inside)
    return flags if not inside else [False] * len(paragraph)  # unbalanced: no span is sure


def sentences(paragraph: str) -> list[str]:
    """The paragraph's sentences in order, stripped, none empty; nothing of its text dropped."""
    if not paragraph.strip():
        return []
    code = _in_code(paragraph)
    unquoted = paragraph.translate(_QUOTES)  # as long as the paragraph: spans index both
    ends = [span.end for span in _segmenter().segment(unquoted)]
    cuts = [end for end in ends[:-1] if 0 < end < len(paragraph) and not code[end - 1]]
    pieces = [paragraph[a:b] for a, b in zip([0, *cuts], [*cuts, len(paragraph)], strict=True)]
    return [piece.strip() for piece in pieces if piece.strip()]
