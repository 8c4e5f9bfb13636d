"""A tiny static model built by the tests (no hub, no download): words of one meaning share a
direction, so "oauth implementation" lands near "Clerk integration via middleware"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from model2vec import StaticModel
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace

MEANINGS = {
    "auth": ["oauth", "clerk", "login", "authentication", "sso", "middleware", "integration"],
    "database": ["database", "postgresql", "postgres", "sql", "schema", "migration"],
    "deploy": ["deploy", "release", "ship", "kubernetes", "helm"],
    "weather": ["weather", "rain", "sunny"],
}


def build_tiny_model(folder: Path) -> Path:
    words = ["[UNK]", "[PAD]"] + [w for group in MEANINGS.values() for w in group]
    vocab = {w: i for i, w in enumerate(words)}
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    rng = np.random.default_rng(7)
    axes = {name: n for n, name in enumerate(MEANINGS)}
    vectors = np.zeros((len(words), 16), dtype=np.float32)
    for name, group in MEANINGS.items():
        for word in group:
            vectors[vocab[word], axes[name]] = 1.0
            vectors[vocab[word], 8:] = rng.normal(0, 0.1, 8)
    model = StaticModel(vectors, tokenizer, normalize=True)
    model.save_pretrained(folder)
    return folder
