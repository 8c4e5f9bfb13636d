"""The static embedding model: loading a local model2vec folder, encoding texts as normalised
float16 vectors, cosines against stored vectors (a query, or stored items among themselves),
how far texts cover a query's words by meaning, and the one-time download of a model.

The only module that imports model2vec, numpy, safetensors and tokenizers (the `semantic`
extra); never on the hook path, and loading a local folder never touches the network.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import numpy as np
from model2vec import StaticModel
from safetensors import safe_open
from tokenizers import Tokenizer

from cms.errors import CmsError

NEIGHBOUR_BATCH = 256  # probes compared with every stored vector per matrix product
WORD_CACHE = 50_000  # word vectors kept between coverage calls (about 50 MB at 256 floats)


class SemanticModelError(CmsError):
    """The model folder could not be loaded or a download failed."""


class Embedder:
    """A loaded static model; `model_id` names it in the store (folder name, size, width)."""

    def __init__(self, folder: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: never ask the hub
        try:
            self._model = _load_folder(folder)
        except Exception as exc:  # any failure inside the libraries is one message
            raise SemanticModelError(f"cannot load the semantic model at {folder}: {exc}") from exc
        self.dim = int(self._model.dim)
        self._words: dict[str, np.ndarray] = {}
        weights = os.path.join(folder, "model.safetensors")
        size = os.path.getsize(weights) if os.path.exists(weights) else 0
        self.model_id = f"{os.path.basename(os.path.normpath(folder))}:{size}:{self.dim}"

    def _unit(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def encode(self, texts: Sequence[str]) -> list[bytes]:
        """One normalised float16 vector per text, as bytes."""
        if not texts:
            return []
        return [row.astype(np.float16).tobytes() for row in self._unit(texts)]

    def _matrix(self, blobs: Sequence[bytes]) -> np.ndarray:
        """Stored vectors as rows (vectors of another width count as zeros)."""
        width = self.dim * 2
        usable = [b if len(b) == width else bytes(width) for b in blobs]
        matrix = np.frombuffer(b"".join(usable), dtype=np.float16).reshape(len(usable), self.dim)
        return matrix.astype(np.float32)

    def similarities(self, query: str, blobs: Sequence[bytes]) -> list[float]:
        """The cosine of query with each stored vector."""
        if not blobs:
            return []
        scores = self._matrix(blobs) @ self._unit([query])[0]
        return [float(s) for s in scores]

    def coverage(
        self,
        terms: Sequence[str],
        texts: Sequence[tuple[Sequence[str], Sequence[str]]],
        context_credit: float,
    ) -> list[float]:
        """Per (words, context words) pair: the mean over the query's terms of each term's best
        cosine with one of the words (with a context word, context_credit of that cosine), each
        in 0..1: lexical coverage made soft, a word counting for the words of like meaning."""
        if not terms or not texts:
            return [0.0] * len(texts)
        vocab = sorted({w for own, around in texts for w in (*own, *around)} | set(terms))
        index = {word: n for n, word in enumerate(vocab)}
        words = self._word_matrix(vocab)
        sims = words[[index[t] for t in terms]] @ words.T  # terms x vocab
        own = _best_per_text(sims, [[index[w] for w in o] for o, _a in texts])
        around = _best_per_text(sims, [[index[w] for w in a] for _o, a in texts])
        best = np.clip(np.maximum(own, context_credit * around), 0.0, 1.0)
        return [float(v) for v in best.mean(axis=0)]

    def _word_matrix(self, words: Sequence[str]) -> np.ndarray:
        """Unit vectors of words as rows, those already seen from a bounded cache."""
        missing = [w for w in words if w not in self._words]
        if len(self._words) + len(missing) > WORD_CACHE:
            self._words.clear()
            missing = list(words)
        if missing:
            self._words.update(zip(missing, self._unit(missing), strict=True))
        return np.stack([self._words[w] for w in words])

    def neighbours(
        self, probes: Sequence[int], blobs: Sequence[bytes], count: int
    ) -> list[list[tuple[float, int]]]:
        """For each probe (an index into blobs), the count other stored vectors nearest it, as
        (cosine, index), best first."""
        if not probes:
            return []
        matrix = self._matrix(blobs)
        found = []
        for start in range(0, len(probes), NEIGHBOUR_BATCH):
            batch = list(probes[start : start + NEIGHBOUR_BATCH])
            scores = matrix[batch] @ matrix.T
            scores[np.arange(len(batch)), batch] = -np.inf  # never its own neighbour
            for row in scores:
                best = np.argsort(-row, kind="stable")[:count]
                found.append([(float(row[i]), int(i)) for i in best if np.isfinite(row[i])])
        return found


def _best_per_text(sims: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """terms x texts: each term's best similarity among a text's words (columns of sims), 0 for
    a text without words."""
    best = np.zeros((sims.shape[0], len(groups)), dtype=np.float32)
    filled = [n for n, g in enumerate(groups) if g]
    if filled:
        columns = np.concatenate([np.asarray(groups[n], dtype=np.intp) for n in filled])
        starts = np.cumsum([0] + [len(groups[n]) for n in filled[:-1]])
        best[:, filled] = np.maximum.reduceat(sims[:, columns], starts, axis=1)
    return best


def _load_folder(folder: str) -> StaticModel:
    """A model2vec folder (model.safetensors, tokenizer.json, config.json) read directly, as
    model2vec's own loader reads it but without importing its hub and model-card machinery
    (0.3 s of every `cms search`); any other layout goes through StaticModel.from_pretrained."""
    names = ("model.safetensors", "tokenizer.json", "config.json")
    if not all(os.path.isfile(os.path.join(folder, n)) for n in names):
        return StaticModel.from_pretrained(folder)
    with safe_open(os.path.join(folder, names[0]), framework="numpy") as tensors:
        keys = set(tensors.keys())
        if "embeddings" not in keys:
            return StaticModel.from_pretrained(folder)
        embeddings = tensors.get_tensor("embeddings")
        weights = tensors.get_tensor("weights") if "weights" in keys else None
        mapping = tensors.get_tensor("mapping") if "mapping" in keys else None
    with open(os.path.join(folder, names[2]), encoding="utf-8") as handle:
        config = json.load(handle)
    return StaticModel(
        vectors=embeddings,
        tokenizer=Tokenizer.from_file(os.path.join(folder, names[1])),
        weights=weights,
        token_mapping=mapping,
        config=config,
        normalize=bool(config.get("normalize", False)),
        max_length=config.get("max_length", 512),
    )


def download_model(name: str, folder: str) -> str:
    """Fetch model `name` from the Hugging Face hub once and save it in folder."""
    try:
        model = StaticModel.from_pretrained(name)
        model.save_pretrained(folder)
    except Exception as exc:  # network and hub errors are one message
        raise SemanticModelError(f"cannot download {name} into {folder}: {exc}") from exc
    return folder
