"""The packaged meaning model read with the standard library: unit vectors, paraphrases closer
than unrelated notes, BERT's WordPiece pieces, float16 packing, and a clear error for a model
that is missing or corrupt. Tests read the packaged files and write only under tmp_path; the
agreement with model2vec itself is checked by scripts/make_meaning_model.py --check."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cms.errors import CmsError
from cms.language.meaning import (
    MODEL_DIR,
    MeaningModel,
    MeaningModelError,
    cosine,
    load_model,
    pack,
    unpack,
)

PARAPHRASE = ("the staging database listens on port 5433", "staging postgres is on port 6543 now")
UNRELATED = "we use tabs for indentation"


@pytest.fixture(scope="module")
def model() -> MeaningModel:
    return load_model()


def norm(vector: tuple[float, ...]) -> float:
    return math.sqrt(sum(x * x for x in vector))


def test_the_model_ships_with_the_package_and_loads_once_per_process(model: MeaningModel) -> None:
    assert load_model() is model
    assert model.dims == 256
    assert model.model_id.startswith("minilm-l6-v2-static256-int8@")
    meta = json.loads((Path(MODEL_DIR) / "model.json").read_text(encoding="utf-8"))
    assert model.model_id.endswith(meta["vectors_sha256"][:12])
    assert {p.name for p in Path(MODEL_DIR).iterdir()} >= {
        "vocab.txt",
        "vectors.bin",
        "model.json",
        "LICENSE",
        "NOTICE",
    }


def test_identical_texts_give_identical_unit_vectors(model: MeaningModel) -> None:
    first = model.encode("Run the migrations before starting the worker.")
    again = model.encode("Run the migrations before starting the worker.")
    assert first == again
    assert len(first) == model.dims
    assert norm(first) == pytest.approx(1.0, abs=1e-9)


def test_case_and_accents_do_not_change_the_meaning(model: MeaningModel) -> None:
    assert model.encode("Café RÉSUMÉ") == model.encode("cafe resume")


def test_a_paraphrase_is_closer_than_an_unrelated_note(model: MeaningModel) -> None:
    first, second = model.encode_many(PARAPHRASE)
    other = model.encode(UNRELATED)
    assert cosine(first, second) > cosine(first, other) + 0.2
    assert cosine(first, second) > cosine(second, other) + 0.2


def test_a_text_with_no_known_token_gives_the_zero_vector(model: MeaningModel) -> None:
    zero = (0.0,) * model.dims
    assert model.encode("") == zero
    assert model.encode("  \n\t ") == zero
    assert model.encode("\U0001f389\U0001f680 \u2603") == zero  # each word is [UNK], dropped
    assert model.encode("x" * 101) == zero  # longer than a word may be: [UNK]
    assert cosine(zero, model.encode(UNRELATED)) == 0.0


def test_words_split_into_the_expected_wordpiece_pieces(model: MeaningModel) -> None:
    assert model.pieces("tokenization") == ["token", "##ization"]
    assert model.pieces("Postgres") == ["post", "##gre", "##s"]
    assert model.pieces("pytest's fixtures") == ["p", "##yte", "##st", "'", "s", "fixtures"]
    assert model.pieces("snake_case_name") == ["snake", "_", "case", "_", "name"]
    assert model.pieces("Café déjà-vu") == ["cafe", "de", "##ja", "-", "vu"]
    assert model.pieces("東京タワー") == ["東", "京", "タ", "##ワ", "##ー"]
    assert model.pieces("hello\u00a0world\x00!") == ["hello", "world", "!"]


def test_special_tokens_written_in_the_text_are_read_as_model2vec_reads_them(
    model: MeaningModel,
) -> None:
    assert model.pieces("[PAD] x [UNK]") == ["[PAD]", "x"]
    assert model.pieces("[pad]") == ["[", "pad", "]"]


def test_a_long_text_is_cut_at_the_models_token_limit(model: MeaningModel) -> None:
    long_text = " ".join(["alpha"] * model.max_tokens + ["omega"] * 50)
    assert model.token_ids(long_text) == model.token_ids("alpha") * model.max_tokens


def test_packed_vectors_round_trip_as_float16(model: MeaningModel) -> None:
    vector = model.encode(UNRELATED)
    blob = pack(vector)
    assert len(blob) == 2 * model.dims
    back = unpack(blob)
    assert len(back) == model.dims
    assert max(abs(a - b) for a, b in zip(vector, back, strict=True)) < 1e-3
    assert cosine(vector, back) == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(MeaningModelError):
        unpack(b"\x00\x01\x02")


def test_cosine_refuses_vectors_of_different_widths() -> None:
    with pytest.raises(ValueError):
        cosine((1.0, 0.0), (1.0, 0.0, 0.0))


def copy_model(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    return folder


def test_a_copy_of_the_model_folder_reads_the_same(tmp_path: Path, model: MeaningModel) -> None:
    copy = MeaningModel(copy_model(tmp_path))
    assert copy.model_id == model.model_id
    assert copy.encode(UNRELATED) == model.encode(UNRELATED)


def test_a_corrupt_vectors_file_raises_a_one_line_model_error(tmp_path: Path) -> None:
    folder = copy_model(tmp_path)
    vectors = folder / "vectors.bin"
    data = bytearray(vectors.read_bytes())
    data[1000:1008] = bytes(b ^ 0xFF for b in data[1000:1008])
    vectors.write_bytes(bytes(data))
    with pytest.raises(MeaningModelError, match="corrupt") as caught:
        MeaningModel(folder)
    assert isinstance(caught.value, CmsError)
    assert "\n" not in str(caught.value)


def test_a_truncated_vocabulary_raises_a_model_error(tmp_path: Path) -> None:
    folder = copy_model(tmp_path)
    vocab = folder / "vocab.txt"
    vocab.write_bytes(vocab.read_bytes()[:-100])
    with pytest.raises(MeaningModelError, match=r"vocab\.txt"):
        MeaningModel(folder)


def test_a_missing_file_or_unreadable_settings_raise_a_model_error(tmp_path: Path) -> None:
    folder = copy_model(tmp_path)
    (folder / "vectors.bin").unlink()
    with pytest.raises(MeaningModelError, match=r"vectors\.bin"):
        MeaningModel(folder)
    other = copy_model(tmp_path / "other")
    (other / "model.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(MeaningModelError, match=r"model\.json"):
        MeaningModel(other)


def test_the_reader_imports_no_third_party_module() -> None:
    code = (
        "import sys; before = set(sys.modules)\n"
        "from cms.language.meaning import load_model; load_model().encode('a short note')\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(' '.join(sorted(n for n in new if n not in sys.stdlib_module_names)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["cms"]
