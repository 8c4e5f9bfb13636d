"""The optional semantic index (`pip install 'cms[semantic]'`): whether it is usable here, the
model in use, keeping a project's vectors current and what it says of a query (QueryMeaning).

Imports cms.semantic.model (model2vec, numpy) only when the extra and a model are both there;
never used by the hooks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from cms import paths
from cms.config import Config
from cms.errors import CmsError
from cms.log import log_event
from cms.observations.store import ObservationStore
from cms.observations.vectors import QueryMeaning, index_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.semantic.model import Embedder

DEFAULT_MODEL = "minishlab/potion-base-8M"  # 8M parameters, 256 dimensions, about 30 MB
NEIGHBOURS = 8  # nearest stored items each new item is checked against for supersession
EXTRA_HINT = "pip install 'cms[semantic]' (or python install.py --semantic)"

_LOADED: dict[str, Embedder] = {}


def model_folder(config: Config) -> str:
    """The configured model folder, else $CMS_HOME/models/semantic."""
    if config.semantic.model:
        return paths.clean_path(config.semantic.model)
    return os.path.join(paths.cms_home(), "models", "semantic")


def extra_installed() -> bool:
    import importlib.util  # ~4 ms: only once a model folder exists or mode is "on"

    try:
        return all(importlib.util.find_spec(name) is not None for name in ("model2vec", "numpy"))
    except (ImportError, ValueError):  # a broken or half-removed install counts as none
        return False


def unavailable_reason(config: Config) -> str | None:
    """Why semantic search cannot run here (None when it can). The model folder is looked at
    first: without one, `cms search` in auto mode pays for no package lookup."""
    if config.semantic.mode == "off":
        return "semantic search is off ([semantic] mode)"
    folder = model_folder(config)
    missing_model = f"no semantic model at {folder}: run `cms semantic download` once"
    has_model = os.path.isdir(folder)
    if not has_model and config.semantic.mode == "auto":
        return missing_model
    if not extra_installed():
        return f"the semantic extra is not installed: {EXTRA_HINT}"
    return None if has_model else missing_model


def load_embedder(config: Config, notify: Callable[[str], None] | None = None) -> Embedder | None:
    """The model, loaded once per process; None when the extra or the model is missing or the
    model cannot load, after one notice when semantic search is asked for ([semantic] mode
    "on"; in "auto" it is used when set up and `cms doctor` says why it is not)."""
    reason = unavailable_reason(config)
    if reason is None:
        folder = model_folder(config)
        if folder in _LOADED:
            return _LOADED[folder]
        from cms.semantic.model import Embedder

        try:
            _LOADED[folder] = embedder = Embedder(folder)
            return embedder
        except CmsError as exc:
            reason = str(exc)
    if notify is not None and config.semantic.mode == "on":
        notify(f"semantic index unavailable ({reason}); the packaged model ranks instead")
    log_event("debug", "semantic_unavailable", reason)
    return None


def update_vectors(store: ObservationStore, embedder: Embedder, *, supersede: bool = False) -> int:
    """Compute the vectors the project's live items lack; returns how many. With supersede (the
    worker, after new items were stored), each new item's nearest earlier items of its kind are
    checked by the subject rules and retired when it restates or changes them: the semantic
    index widens the candidates of the lexical checks, the rules still decide."""
    from cms.observations.vectors import embed_pending, has_vectors

    name = index_name(embedder.model_id)
    judged = supersede and has_vectors(store, name)  # not a first indexing
    computed = embed_pending(store, name, embedder.encode)
    if judged and computed:
        supersede_semantic_neighbours(store, embedder, computed)
    return len(computed)


def supersede_semantic_neighbours(
    store: ObservationStore, embedder: Embedder, keys: list[str]
) -> list[str]:
    """Retire the earlier items that the items keys restate or change, among the NEIGHBOURS
    stored items of the same kind (chat facts, or observations; passages, a chat's own words,
    neither judge nor are judged here) nearest each; returns those retired."""
    from cms.observations.neighbours import supersede_neighbours
    from cms.observations.vectors import passage_keys, stored_vectors

    stored, blobs = stored_vectors(store, index_name(embedder.model_id))
    passages = passage_keys(store)
    wanted = set(keys)
    pairs = []
    for prefix in ("F", "O"):
        group = [i for i, k in enumerate(stored) if k[:1] == prefix and k not in passages]
        probes = [n for n, i in enumerate(group) if stored[i] in wanted]
        found = embedder.neighbours(probes, [blobs[i] for i in group], NEIGHBOURS)
        for probe, near in zip(probes, found, strict=True):
            pairs += [(stored[group[probe]], stored[group[n]]) for _cos, n in near]
    return supersede_neighbours(store, pairs)


def query_meaning(store: ObservationStore, embedder: Embedder, query: str) -> QueryMeaning:
    """What the semantic index says of query: its cosine with every stored item of the project
    (by item key: O12, F345), and the coverage of its words by the words of given texts (their
    context words at CONTEXT_CREDIT, as in lexical matching)."""
    from cms.observations.matching import CONTEXT_CREDIT, content_words, query_terms
    from cms.observations.vectors import stored_vectors

    keys, blobs = stored_vectors(store, index_name(embedder.model_id))
    cosines = dict(zip(keys, embedder.similarities(query, blobs), strict=True))
    terms = query_terms(query)
    known: dict[tuple[str, str], float] = {}  # a text scored once per query, however often asked

    def coverage(texts: Sequence[tuple[str, str]]) -> list[float]:
        new = list(dict.fromkeys(t for t in texts if t not in known))
        words = [(content_words(text), content_words(around)) for text, around in new]
        known.update(zip(new, embedder.coverage(terms, words, CONTEXT_CREDIT), strict=True))
        return [known[t] for t in texts]

    return QueryMeaning(cosines, coverage)


def meaning_for(
    config: Config,
    store: ObservationStore,
    query: str,
    notify: Callable[[str], None] | None,
    *,
    packaged: bool = True,
) -> QueryMeaning | None:
    """What the semantic index says of query when it is usable here, else (unless [semantic]
    mode is "off", or packaged is False: the caller asks again when words alone fall short)
    what the packaged model says of it from the meanings stored with each item; None when
    neither can: what recall and search fuse in by score."""
    embedder = load_embedder(config, notify)
    if embedder is not None:
        return query_meaning(store, embedder, query)
    if config.semantic.mode == "off" or not packaged:
        return None
    from cms.semantic.packaged import packaged_meaning

    return packaged_meaning(store, query)


def print_notice(text: str) -> None:
    """A notice for commands: one line on stderr, so stdout stays the answer."""
    import sys

    print(f"cms: {text}", file=sys.stderr)
