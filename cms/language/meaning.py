"""What short texts mean: unit vectors from the static model packaged in cms/language/model/.

Owns reading that model (all-MiniLM-L6-v2 distilled by model2vec, int8 rows with a float32
scale each; scripts/make_meaning_model.py makes it and says the format), BERT's tokenisation
(basic splitting, then greedy longest-match WordPiece), encoding a text as the L2-normalised
mean of its tokens' rows, cosines of such vectors, and packing them as float16 bytes.

Standard library only (no numpy, no tokenizers) and no network or writes, so any process can
use it, a hook's included. It matches model2vec's StaticModel.encode(normalize=True) on the
float model, as far as int8 rounding allows: the same token ids ([UNK] dropped, [PAD] and
[UNK] written literally taken as themselves), the same cut at max_chars and max_tokens.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import struct
import sys
import unicodedata
from array import array
from collections.abc import Iterable, Sequence
from operator import mul

from cms.errors import CmsError
from cms.jsonio import parse_json

MODEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model")
FORMAT = "cms-static-int8/1"
WORD_CACHE = 50_000  # words kept with their piece ids; cleared when full

Vector = tuple[float, ...]

# Rust's char::is_whitespace (the White_Space property), as the Rust tokenizers use it.
_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_CJK = (  # the blocks BERT sets apart as one token a character (as the Rust tokenizers has them)
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_UNSIGNED = bytes(value ^ 0x80 for value in range(256))  # int8 byte -> its value + 128
_CONTROL = frozenset(("Cc", "Cf", "Co", "Cs"))  # removed; unassigned (Cn) stays, as in Rust
# ASCII text: control characters go, tab and line breaks become spaces (BERT's clean_text).
_ASCII_CLEAN = {c: None for c in (*range(32), 127)} | {9: " ", 10: " ", 13: " "}
_ASCII_WORDS = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9 ]")


class MeaningModelError(CmsError):
    """The packaged meaning model is missing or corrupt, or a stored vector cannot be read."""


def _is_cjk(code: int) -> bool:
    return any(low <= code <= high for low, high in _CJK)


def _read(folder: str, name: str) -> bytes:
    path = os.path.join(folder, name)
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise MeaningModelError(
            f"the meaning model file {path} cannot be read ({exc.strerror or exc}); reinstall cms"
        ) from exc


def _corrupt(folder: str, what: str) -> MeaningModelError:
    return MeaningModelError(f"the meaning model in {folder} is corrupt: {what}; reinstall cms")


class MeaningModel:
    """A loaded model: `encode` a text as a unit vector of `dims` floats (zeros for no token)."""

    def __init__(self, folder: str | os.PathLike[str] = MODEL_DIR, *, verify: bool = True) -> None:
        """Read the folder; with verify, check both files against their sha256 in model.json
        (about 7 ms, 270 M instructions; what is stored is computed by a verified model, so a
        read-only ranking may skip it: sizes and settings are checked either way)."""
        folder = os.fspath(folder)
        try:
            meta = parse_json(_read(folder, "model.json"))
            if meta["format"] != FORMAT:
                raise _corrupt(folder, f"format {meta['format']!r}, expected {FORMAT!r}")
            rows, dims = int(meta["rows"]), int(meta["dims"])
            settings = meta["tokenizer"]
            want_vectors, want_vocab = str(meta["vectors_sha256"]), str(meta["vocab_sha256"])
            self._lowercase = bool(settings["lowercase"])
            self._strip_accents = bool(settings["strip_accents"])
            self._prefix = str(settings["continuing_subword_prefix"])
            self._max_word = int(settings["max_input_chars_per_word"])
            self.max_tokens = int(settings["max_tokens"])
            self.max_chars = int(settings["max_chars"])
            unk_token = str(settings["unk_token"])
            added = [str(token) for token in settings["added_tokens"]]
            name = str(meta["name"])
        except (ValueError, KeyError, TypeError) as exc:
            raise _corrupt(folder, f"model.json is unreadable ({exc})") from exc
        vocab_bytes, blob = _read(folder, "vocab.txt"), _read(folder, "vectors.bin")
        self.verified = verify
        if verify:
            _check_digest(folder, "vocab.txt", vocab_bytes, want_vocab)
            _check_digest(folder, "vectors.bin", blob, want_vectors)
        if len(blob) != rows * (dims + 4) or rows <= 0 or dims <= 0:
            raise _corrupt(folder, f"vectors.bin holds {len(blob)} bytes for {rows} x {dims}")
        self.tokens: list[str] = vocab_bytes.decode("utf-8").split("\n")[:-1]
        if len(self.tokens) != rows:
            raise _corrupt(folder, f"vocab.txt has {len(self.tokens)} tokens for {rows} rows")
        self._ids = {token: i for i, token in enumerate(self.tokens)}
        if unk_token not in self._ids or not all(token in self._ids for token in added):
            raise _corrupt(folder, "vocab.txt lacks the tokenizer's special tokens")
        self._unk = self._ids[unk_token]
        self._added = {token: self._ids[token] for token in added}
        self._added_split = re.compile("(" + "|".join(map(re.escape, added)) + ")")
        self.dims = dims
        self.model_id = f"{name}-int8@{want_vectors[:12]}"
        self._blob = blob
        scales = array("f", blob[rows * dims :])
        if sys.byteorder == "big":
            scales.byteswap()
        self._scales = scales
        top = max(scales)
        if not 0.0 <= min(scales) <= top < math.inf:
            raise _corrupt(folder, "vectors.bin has a negative or infinite scale")
        self._factor = 2.0 ** (30 - math.frexp(top)[1]) if top > 0 else 0.0
        self._zero: Vector = (0.0,) * dims
        self._words: dict[str, tuple[int, ...]] = {}

    # -- tokenisation ----------------------------------------------------------------------

    def token_ids(self, text: str) -> list[int]:
        """The rows a text averages, as model2vec picks them: cut, tokenised, [UNK] dropped."""
        text = text[: self.max_chars]
        ids: list[int] = []
        if self._added and "[" in text:
            for i, part in enumerate(self._added_split.split(text)):
                if i % 2:
                    ids.append(self._added[part])
                else:
                    self._append_pieces(part, ids)
        else:
            self._append_pieces(text, ids)
        unk = self._unk
        return [i for i in ids[: self.max_tokens] if i != unk]

    def pieces(self, text: str) -> list[str]:
        """The WordPiece tokens a text is read as (for tests and inspection)."""
        return [self.tokens[i] for i in self.token_ids(text)]

    def _append_pieces(self, text: str, ids: list[int]) -> None:
        words = self._words
        for word in self._split(text):
            found = words.get(word)
            if found is None:
                if len(words) >= WORD_CACHE:
                    words.clear()
                found = words[word] = self._wordpiece(word)
            ids.extend(found)

    def _split(self, text: str) -> list[str]:
        """BERT's normaliser and pre-tokeniser: cleaned, accents off, lowercase, split."""
        if text.isascii():
            text = text.translate(_ASCII_CLEAN)
            return _ASCII_WORDS.findall(text.lower() if self._lowercase else text)
        text = self._normalise(text)
        words: list[str] = []
        start = -1
        category = unicodedata.category
        for i, char in enumerate(text):
            if char in _WHITESPACE:
                if start >= 0:
                    words.append(text[start:i])
                    start = -1
            elif char in _ASCII_PUNCTUATION or category(char)[0] == "P":
                if start >= 0:
                    words.append(text[start:i])
                    start = -1
                words.append(char)
            elif start < 0:
                start = i
        if start >= 0:
            words.append(text[start:])
        return words

    def _normalise(self, text: str) -> str:
        category = unicodedata.category
        chars: list[str] = []
        for char in text:
            code = ord(char)
            if char in "\t\n\r":
                chars.append(" ")
            elif code == 0 or code == 0xFFFD or category(char) in _CONTROL:
                continue
            elif char in _WHITESPACE:
                chars.append(" ")
            elif _is_cjk(code):
                chars.append(f" {char} ")
            else:
                chars.append(char)
        text = "".join(chars)
        if self._strip_accents:
            nfd = unicodedata.normalize("NFD", text)
            text = "".join(char for char in nfd if category(char) != "Mn")
        if self._lowercase:  # per character, as Rust does it: no final-sigma rule
            text = "".join(char.lower() for char in text) if "Σ" in text else text.lower()
        return text

    def _wordpiece(self, word: str) -> tuple[int, ...]:
        """Greedy longest match first; a word with a part not in the vocabulary is [UNK]."""
        if len(word) > self._max_word:
            return (self._unk,)
        vocab, prefix = self._ids, self._prefix
        found: list[int] = []
        start, length = 0, len(word)
        while start < length:
            end = length
            while end > start:
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                row = vocab.get(piece)
                if row is not None:
                    found.append(row)
                    break
                end -= 1
            else:
                return (self._unk,)
            start = end
        return tuple(found)

    # -- vectors ---------------------------------------------------------------------------

    def encode(self, text: str) -> Vector:
        """The text's unit vector: the mean of its tokens' rows, L2-normalised.

        The rows are summed as one big integer of 64-bit lanes (each int8 made unsigned by
        +128, each row weighted by its scale as an integer below 2**30, the +128s taken off
        at the end): a few C-level operations a token instead of `dims` Python ones. A lane
        holds at most 2**30 * 255 a token, so 2**26 tokens fit (max_tokens is 512).
        """
        ids = self.token_ids(text)
        if not ids:
            return self._zero
        dims, blob, scales, factor = self.dims, self._blob, self._scales, self._factor
        if len(ids) == 1:  # one row (a word, mostly): its own direction, no sum to make
            row = array("b", blob[ids[0] * dims : (ids[0] + 1) * dims])
            norm = math.sqrt(sum(map(mul, row, row)))
            return tuple(value / norm for value in row) if norm else self._zero
        lanes = bytearray(dims * 8)
        total = weights = 0
        for i in ids:
            weight = int(scales[i] * factor + 0.5)
            lanes[0::8] = blob[i * dims : (i + 1) * dims].translate(_UNSIGNED)
            total += weight * int.from_bytes(lanes, "little")
            weights += weight
        bias = weights * 128
        summed = [
            lane - bias for lane in struct.unpack(f"<{dims}Q", total.to_bytes(dims * 8, "little"))
        ]
        norm = math.sqrt(sum(map(mul, summed, summed)))  # the mean's 1/n cancels here
        if norm == 0.0:
            return self._zero
        return tuple(value / norm for value in summed)

    def encode_many(self, texts: Iterable[str]) -> list[Vector]:
        """`encode` of each text, in order."""
        return [self.encode(text) for text in texts]


_LOADED: list[MeaningModel] = []


def load_model(*, verify: bool = True) -> MeaningModel:
    """The packaged model, loaded once per process (raises MeaningModelError if unusable); with
    verify (what stores vectors), its files checked against their digests first."""
    if not _LOADED or (verify and not _LOADED[0].verified):
        _LOADED[:] = [MeaningModel(MODEL_DIR, verify=verify)]
    return _LOADED[0]


def _check_digest(folder: str, name: str, data: bytes, wanted: str) -> None:
    found = hashlib.sha256(data).hexdigest()
    if found != wanted:
        raise _corrupt(folder, f"{name} has sha256 {found[:12]}, not {wanted[:12]}")


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two unit vectors (their dot product); 0.0 when either is the zero vector."""
    if len(a) != len(b):
        raise ValueError(f"vectors of {len(a)} and {len(b)} dimensions")
    return float(sum(map(mul, a, b)))


def pack(vector: Sequence[float]) -> bytes:
    """A vector as little-endian float16 bytes (2 per dimension), for SQLite."""
    return struct.pack(f"<{len(vector)}e", *vector)


def unpack(blob: bytes) -> Vector:
    """The vector `pack` stored."""
    if len(blob) % 2:
        raise MeaningModelError(f"a stored vector has an odd length ({len(blob)} bytes)")
    return struct.unpack(f"<{len(blob) // 2}e", blob)
