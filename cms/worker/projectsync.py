"""What a finished job carries into the project's memory: the chat map's facts and rules, the
passages of the exchange, the items the update model superseded, the semantic vectors and the
file notes of the PreToolUse hook.

A thin layer over cms.observations (chatsync) and cms.semantic for the worker and `cms replay`;
it never creates a store for a chat without a map or folder, and decides nothing about the map.
"""

from __future__ import annotations

from cms import paths
from cms.config import Config
from cms.errors import MapNotFoundError
from cms.excerpt import pack_sentences, sentences
from cms.map.store import load_map
from cms.observations.access import open_project_memory
from cms.observations.chatsync import index_exchange, retire_items, sync_chat_memory
from cms.observations.filenotes import write_file_notes
from cms.observations.wording import is_narration, is_question
from cms.providers.local.sentences import clean_text
from cms.semantic import load_embedder, update_vectors
from cms.transcripts.exchange import Exchange
from cms.transcripts.redact import redact_text

PASSAGE_CHARS = 300
TOOL_CALL_CHARS = 200


def exchange_passages(exchange: Exchange) -> list[tuple[str, str]]:
    """What an exchange said and did, as (speaker, text) passages of whole sentences (at most
    PASSAGE_CHARS each, never a word cut): the prompt, the answer, each tool call (whole when
    short, else its sentences), what each tool returned (as trimmed by the reader) and the files
    touched; questions, narration of the next step and our own injected context are left out.
    Redacted."""

    def statements(text: str) -> list[str]:  # no questions, no narration of the next step
        kept = [s for s in sentences(clean_text(text)) if not is_question(s)]
        # packed as found: a line of a list stays whole (joined first, it had no sentence end)
        return pack_sentences([s for s in kept if not is_narration(s)], PASSAGE_CHARS)

    found = [("user", p) for p in statements(exchange.user)]
    found += [("assistant", p) for p in statements(exchange.assistant)]
    for tool in exchange.tools:  # a call whole when short, else its sentences; what it returned
        call = " ".join(f"{tool.name}: {tool.input}".split())
        if len(call) <= TOOL_CALL_CHARS:
            found.append(("tool", call))
        else:
            found += [("tool", p) for p in statements(tool.input)]
        found += [("tool", p) for p in statements(tool.output)]
    if exchange.files:
        found.append(("tool", "Files touched: " + ", ".join(exchange.files)))
    kept = dict.fromkeys((who, redact_text(text)) for who, text in found if len(text.split()) >= 3)
    return list(kept)


def sync_project_memory(
    session_id: str,
    cwd: str,
    agent: str | None,
    exchange: Exchange | None = None,
    retired: list[str] | None = None,
) -> tuple[int, int, int]:
    """Sync the chat's map into its project's fact index and standing rules (see chatsync),
    index what the exchange said and mark the earlier items the update model superseded;
    (facts new or changed, observations stored, items marked), zeros without a map or folder."""
    if not cwd:
        return 0, 0, 0
    try:
        cmap = load_map(paths.map_path(session_id))
    except MapNotFoundError:
        return 0, 0, 0
    memory = open_project_memory(cwd, create=True)
    if memory is None:  # pragma: no cover - create=True always opens
        return 0, 0, 0
    with memory:
        if exchange is not None:
            index_exchange(memory, session_id, exchange.turn, exchange_passages(exchange))
        prompts = {exchange.turn: exchange.user} if exchange is not None else None
        result = sync_chat_memory(memory, cmap, cwd=cwd, agent=agent, prompts=prompts)
        marked = retire_items(memory, retired, result) if retired else 0
        return len(result.facts), len(result.observations), marked


def update_file_notes(cwd: str) -> int:
    """Rewrite the project's file notes (what the PreToolUse hook reads); items they hold."""
    memory = open_project_memory(cwd, create=False)
    if memory is None:
        return 0
    with memory:
        return write_file_notes(memory.store)


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
