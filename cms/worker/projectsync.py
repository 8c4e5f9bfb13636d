"""What a finished job carries into the project's memory: the chat map's facts and rules, the
passages of the exchange and of the chat's compaction summaries, the items the update model
superseded, the semantic vectors and the file notes of the PreToolUse hook.

A thin layer over cms.observations (chatsync) and cms.semantic for the worker and `cms replay`;
it never creates a store for a chat without a map or folder, and decides nothing about the map.
"""

from __future__ import annotations

from cms import paths
from cms.config import Config
from cms.errors import CmsError, MapNotFoundError
from cms.excerpt import pack_sentences, sentences
from cms.language.wording import is_narration, is_question
from cms.log import log_event
from cms.map.store import load_map
from cms.observations.access import open_project_memory
from cms.observations.chatsync import (
    SyncResult,
    fact_place,
    index_exchange,
    index_summaries,
    retire_edited,
    retire_items,
    sync_chat_memory,
)
from cms.observations.factsync import TOOL_SPEAKER
from cms.observations.filenotes import write_file_notes
from cms.providers.local.sentences import clean_text
from cms.semantic import load_embedder, update_vectors
from cms.transcripts.exchange import Exchange
from cms.transcripts.reader import read_summaries
from cms.transcripts.redact import redact_text

PASSAGE_CHARS = 300
TOOL_CALL_CHARS = 200


def _statements(text: str, *, plans: bool = False) -> list[str]:
    """The text's sentences packed into passages, without questions; the narration of a next
    step is left out too unless `plans` (the user's own plans are worth finding later)."""
    kept = [s for s in sentences(clean_text(text)) if not is_question(s)]
    if not plans:
        kept = [s for s in kept if not is_narration(s)]
    # packed as found: a line of a list stays whole (joined first, it had no sentence end)
    return pack_sentences(kept, PASSAGE_CHARS)


def exchange_passages(exchange: Exchange) -> list[tuple[str, str]]:
    """What an exchange said and did, as (speaker, text) passages of whole sentences (at most
    PASSAGE_CHARS each, never a word cut): the prompt, the answer, each tool call (whole when
    short, else its sentences), what each tool returned (as trimmed by the reader) and the files
    touched; questions, the agent's narration of its next step and our own injected context are
    left out (the user's plans stay). Redacted."""
    found = [("user", p) for p in _statements(exchange.user, plans=True)]
    found += [("assistant", p) for p in _statements(exchange.assistant)]
    for tool in exchange.tools:  # a call whole when short, else its sentences; what it returned
        call = " ".join(f"{tool.name}: {tool.input}".split())
        if len(call) <= TOOL_CALL_CHARS:
            found.append((TOOL_SPEAKER, call))
        else:
            found += [(TOOL_SPEAKER, p) for p in _statements(tool.input)]
        found += [(TOOL_SPEAKER, p) for p in _statements(tool.output)]
    if exchange.files:
        found.append((TOOL_SPEAKER, "Files touched: " + ", ".join(exchange.files)))
    return _kept(found)


def _kept(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Passages of at least three words, redacted, each once."""
    kept = dict.fromkeys((who, redact_text(text)) for who, text in found if len(text.split()) >= 3)
    return list(kept)


def summary_passages(summary: str) -> list[str]:
    """A compaction summary as passages of whole sentences (its plans kept: "Pending tasks")."""
    return [text for _, text in _kept([("summary", p) for p in _statements(summary, plans=True)])]


def index_chat_summaries(session_id: str, cwd: str, transcript: str) -> int:
    """Index the passages of the chat's compaction summaries in its project (the agent's own
    account of what it then forgot: searchable from a later chat); how many were indexed.
    An unreadable transcript is logged and indexes nothing."""
    try:
        summaries = read_summaries(transcript)
    except (CmsError, OSError) as exc:
        log_event("warning", "transcript_unreadable", str(exc), session=session_id)
        return 0
    memory = open_project_memory(cwd, create=True) if summaries and cwd else None
    if memory is None:
        return 0
    with memory:
        passages = [summary_passages(s) for s in summaries]
        return index_summaries(memory, session_id, passages, fact_place(cwd))


def sync_project_memory(
    session_id: str,
    cwd: str,
    agent: str | None,
    exchange: Exchange | None = None,
    retired: list[str] | None = None,
    *,
    offline: bool = False,
    prompts: dict[int, str] | None = None,
) -> tuple[int, int, int]:
    """Sync the chat's map into its project's fact index and standing rules (see chatsync),
    index what the exchange said and mark the earlier items the update model superseded;
    (facts new or changed, observations stored, items marked), zeros without a folder. What
    the exchange said is indexed even when no fact was made of it (the chat has no map yet):
    what the extractor could not classify stays a passage for search. offline: the local
    extractor made the map (only the user's words, by prompts, become rules or decisions)."""
    if not cwd:
        return 0, 0, 0
    try:
        cmap = load_map(paths.map_path(session_id))
    except MapNotFoundError:
        cmap = None
    if cmap is None and exchange is None:
        return 0, 0, 0
    memory = open_project_memory(cwd, create=True)
    if memory is None:  # pragma: no cover - create=True always opens
        return 0, 0, 0
    with memory:
        place = fact_place(cwd)
        if exchange is not None:
            passages = exchange_passages(exchange)
            index_exchange(memory, session_id, exchange.turn, passages, place)
        result = SyncResult([], [])
        if cmap is not None:
            if exchange is not None:
                prompts = {**(prompts or {}), exchange.turn: exchange.user}
            result = sync_chat_memory(
                memory, cmap, cwd=cwd, agent=agent, prompts=prompts, offline=offline
            )
            marked = retire_items(memory, retired, result) if retired else 0
        else:
            marked = 0
        if exchange is not None:
            marked += retire_edited(
                memory, session_id, exchange.turn, _replaced(exchange), result, place
            )
        return len(result.facts), len(result.observations), marked


def _replaced(exchange: Exchange) -> list[tuple[str, str]]:
    return [pair for tool in exchange.tools for pair in tool.replaced]


def index_replayed(cwd: str, session_id: str, exchanges: list[Exchange]) -> None:
    """Index what every replayed exchange said in the project's memory, then, turn by turn, mark
    what each turn's edits made outdated (as the worker does after each live turn)."""
    memory = open_project_memory(cwd, create=True)
    if memory is None:  # pragma: no cover - create=True always opens
        return
    place = fact_place(cwd)
    with memory:
        for exchange in exchanges:
            index_exchange(memory, session_id, exchange.turn, exchange_passages(exchange), place)
        for exchange in exchanges:
            retire_edited(
                memory, session_id, exchange.turn, _replaced(exchange), SyncResult([], []), place
            )


def update_file_notes(cwd: str) -> int:
    """Rewrite the project's file notes (what the PreToolUse hook reads); items they hold."""
    memory = open_project_memory(cwd, create=False)
    if memory is None:
        return 0
    with memory:
        return write_file_notes(memory.store)


def give_meanings(cwd: str) -> int:
    """Store the meaning (cms.language.meaning) of the project's items written since the last
    job; how many. The model loads once per worker process."""
    memory = open_project_memory(cwd, create=False)
    if memory is None:
        return 0
    from cms.language.meaning import load_model, pack
    from cms.observations.meanings import give_meanings as store_meanings

    model = load_model()
    with memory:
        return store_meanings(memory.store, lambda texts: [pack(model.encode(t)) for t in texts])


def update_semantic_index(cwd: str, config: Config) -> int:
    """Compute the vectors the project's new or changed items lack, when the semantic index is
    usable here (the extra and a model installed), and retire what the new items restate or
    change among their semantic neighbours; returns how many vectors were computed."""
    embedder = load_embedder(config)
    memory = open_project_memory(cwd, create=False) if embedder is not None else None
    if embedder is None or memory is None:
        return 0
    with memory:
        return update_vectors(memory.store, embedder, supersede=True)
