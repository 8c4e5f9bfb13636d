"""The model calls of cms: ops for a chat map, fact numbers for search, observations, and the
summary of a group of stale observations (`cms gc`).

Each call loads its prompt, checks the daily budget, redacts the request, calls the provider,
records the tokens and reads the answer (a JSON value, or numbers). Every failure is logged here
once and raised as ProviderError (BudgetExhaustedError when the budget is spent), so callers fall
back to `local` without logging again. It never reads or writes a map or the store.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from cms.config import Config
from cms.errors import ProviderError
from cms.log import log_event
from cms.providers.base import ModelProvider
from cms.providers.prompts import load_prompt
from cms.providers.usage import check_budget, record_usage, utc_now
from cms.transcripts.redact import redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.providers.summary_schema import ProposedSummary

Clock = Callable[[], datetime]
SEARCH_MAX_TOKENS = 256
SUMMARY_MAX_TOKENS = 1024

_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.S)


def _short(text: str, limit: int = 120) -> str:
    from cms.excerpt import fit_text

    return fit_text(text, limit)


def _failure(message: str, *, provider: ModelProvider, purpose: str, project: str) -> ProviderError:
    log_event(
        "error", "provider_error", message, provider=provider.name, purpose=purpose, project=project
    )
    return ProviderError(message)


def _call(
    provider: ModelProvider,
    config: Config,
    *,
    purpose: str,
    prompt: str,
    model: str,
    max_tokens: int,
    project: str,
    clock: Clock,
) -> str:
    """Budget check, one provider call, usage recording; failures logged once."""
    check_budget(config, today=clock().date())
    started = time.monotonic()
    try:
        completion = provider.complete(
            system=load_prompt(purpose, config),
            prompt=redact_text(prompt),
            model=model,
            max_tokens=max_tokens,
        )
    except ProviderError as exc:
        raise _failure(str(exc), provider=provider, purpose=purpose, project=project) from None
    except Exception as exc:  # noqa: BLE001 - a provider bug must not crash the caller
        message = f"{provider.name} failed: {type(exc).__name__}: {_short(str(exc))}"
        raise _failure(message, provider=provider, purpose=purpose, project=project) from None
    record_usage(
        provider=provider.name,
        model=completion.model,
        project=project,
        purpose=purpose,
        input_tokens=completion.input_tokens,
        output_tokens=completion.output_tokens,
        when=clock(),
    )
    log_event(
        "debug",
        "model_call",
        provider=provider.name,
        purpose=purpose,
        model=completion.model,
        tokens_in=completion.input_tokens,
        tokens_out=completion.output_tokens,
        seconds=round(time.monotonic() - started, 2),
    )
    return completion.text


def extract_json(text: str, prefer: type = dict) -> Any:
    """The JSON value in a model answer: the whole text, a fenced block, or the first value of
    type `prefer` embedded in prose. Raises ValueError when there is none."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for block in _FENCE.findall(text):
        try:
            return json.loads(block.strip())
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, prefer):
            return value
    raise ValueError("no JSON value found")


def _ops_request(
    map_view: str,
    exchange_text: str,
    reasons: Sequence[str] | None,
    earlier: Mapping[str, str] | None = None,
) -> str:
    from cms.supersede import offered_block

    parts = [
        *offered_block(earlier or {}),
        "# The map now",
        "<map>",
        map_view.strip() or "(the map is empty)",
        "</map>",
        "",
        "# The latest exchange",
        "<exchange>",
        exchange_text.strip(),
        "</exchange>",
    ]
    if reasons:
        parts += [
            "",
            "# Your previous answer was rejected",
            "Every operation of your previous answer for this exchange was rejected:",
            *(f"- {_short(reason, 300)}" for reason in reasons[:20]),
            "Answer again, fixing these problems: refer only to ids shown in the map, keep texts"
            ' within their limits, add no duplicates. Answer {"ops": []} if nothing is worth'
            " keeping.",
        ]
    parts += ["", 'Answer with the JSON object {"ops": [...]} only.']
    return "\n".join(parts)


def ask_for_ops(
    provider: ModelProvider,
    config: Config,
    *,
    map_view: str,
    exchange_text: str,
    reasons: list[str] | None,
    project: str,
    clock: Clock = utc_now,
    earlier: Mapping[str, str] | None = None,
) -> object:
    """Ask the update model for map ops; the parsed JSON object (validated later by the engine).
    earlier ({id: text}) lists items of earlier chats it may supersede by id.

    `reasons` (a retry) are put into the request. Raises ProviderError on any failure.
    """
    text = _call(
        provider,
        config,
        purpose="update",
        prompt=_ops_request(map_view, exchange_text, reasons, earlier),
        model=config.provider.update_model,
        max_tokens=config.provider.max_tokens,
        project=project,
        clock=clock,
    )
    try:
        answer = extract_json(text, dict)
    except ValueError:
        raise _failure(
            f"update answer is not JSON: {_short(text) or 'empty'}",
            provider=provider,
            purpose="update",
            project=project,
        ) from None
    if isinstance(answer, list) and all(isinstance(op, dict) and "op" in op for op in answer):
        answer = {"ops": answer}  # a bare list of ops: accept it as the object it should be
    if not isinstance(answer, dict):
        raise _failure(
            f"update answer is JSON but not an object: {_short(text)}",
            provider=provider,
            purpose="update",
            project=project,
        )
    return answer


def _numbered(lines: Sequence[str]) -> list[str]:
    """Lines as given when already numbered 1., 2., ...; else numbered here."""
    if all(line.startswith(f"{n}.") for n, line in enumerate(lines, start=1)):
        return list(lines)
    return [f"{n}. {line}" for n, line in enumerate(lines, start=1)]


def parse_selection(text: str, count: int, k: int) -> list[int]:
    """0-based indexes from an answer of 1-based numbers; ValueError on anything else."""
    body = text.strip().strip("`").strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    body = body.rstrip(".").strip()
    if not body:
        raise ValueError("empty answer")
    if not re.fullmatch(r"\d+(?:\s*[,;\s]\s*\d+)*", body):
        raise ValueError(f"not a list of numbers: {_short(text)}")
    numbers = [int(n) for n in re.findall(r"\d+", body)]
    bad = [n for n in numbers if not 1 <= n <= count]
    if bad:
        raise ValueError(f"numbers out of range 1..{count}: {bad[:5]}")
    return [n - 1 for n in dict.fromkeys(numbers)][:k]


def select_with_model(
    provider: ModelProvider,
    config: Config,
    *,
    query: str,
    numbered_facts: list[str],
    k: int,
    project: str,
    clock: Clock = utc_now,
) -> list[int]:
    """0-based indexes of the facts the search model picks (at most k, best first).

    Raises ProviderError on a failed call or an empty, garbage or out-of-range answer, so the
    caller falls back to the local selector. No facts (or k < 1) returns [] without a call.
    """
    if not numbered_facts or k < 1:
        return []
    lines = _numbered(numbered_facts)
    prompt = "\n".join(
        [
            f"Query: {query.strip()}",
            f"Pick at most {k} of the {len(lines)} facts below.",
            "",
            "Facts:",
            *lines,
            "",
            "Answer with the fact numbers only, most relevant first, separated by commas.",
        ]
    )
    text = _call(
        provider,
        config,
        purpose="search",
        prompt=prompt,
        model=config.provider.search_model,
        max_tokens=min(SEARCH_MAX_TOKENS, config.provider.max_tokens),
        project=project,
        clock=clock,
    )
    try:
        return parse_selection(text, len(lines), k)
    except ValueError as exc:
        raise _failure(
            f"search answer unusable: {exc}", provider=provider, purpose="search", project=project
        ) from None


def ask_for_observations(
    provider: ModelProvider,
    config: Config,
    *,
    session_text: str,
    project: str,
    known_titles: Sequence[str] = (),
    offered: Mapping[str, str] | None = None,
    clock: Clock = utc_now,
) -> list[dict[str, Any]]:
    """Observations the observe model extracts from a session's text, each validated.

    Returns dicts with kind, title, body, files, importance and replaces (ids of offered, the
    project's related items in force, that the observation changes). Invalid items are dropped
    and logged; an answer that is not a list, or whose items are all invalid, raises
    ProviderError.
    """
    from cms.providers.observe_schema import validate_observations

    parts = []
    if known_titles:
        parts += ["# Already stored for this project (do not repeat)"]
        parts += [f"- {_short(title, 160)}" for title in known_titles[:200]]
        parts += [""]
    if offered:
        parts += [
            "# Items in force for this project",
            "When an observation changes, replaces or corrects one of these (a new value for the"
            ' same rule, choice or fact), give its id in the observation\'s "replaces" list.'
            " Never name an item the session merely mentions or keeps.",
            "<in_force>",
            *(
                f"{item_id}: {_short(' '.join(text.split()), 300)}"
                for item_id, text in offered.items()
            ),
            "</in_force>",
            "",
        ]
    parts += ["# The session", "<session>", session_text.strip(), "</session>", ""]
    parts += ["Answer with the JSON list of observations only."]
    text = _call(
        provider,
        config,
        purpose="observe",
        prompt="\n".join(parts),
        model=config.provider.observe_model,
        max_tokens=config.provider.max_tokens,
        project=project,
        clock=clock,
    )
    try:
        answer = extract_json(text, list)
        accepted, reasons = validate_observations(answer, offered or {})
    except (ValueError, ProviderError) as exc:
        message = f"observe answer unusable: {_short(str(exc))}: {_short(text, 80) or 'empty'}"
        raise _failure(message, provider=provider, purpose="observe", project=project) from None
    for reason in reasons:
        log_event("warning", "observation_rejected", reason, project=project)
    if reasons and not accepted:
        message = f"every observation of the answer was rejected ({len(reasons)})"
        raise _failure(message, provider=provider, purpose="observe", project=project)
    return accepted


def ask_for_summary(
    provider: ModelProvider,
    config: Config,
    *,
    kind: str,
    entries: Sequence[str],
    source_chars: int,
    project: str,
    clock: Clock = utc_now,
) -> ProposedSummary:
    """One summary of a group of observations of one kind (entries: each rendered with its id,
    oldest first), validated (cms.providers.summary_schema); source_chars bounds its length.

    Raises SummaryAnswerError (logged) when the answer is unusable, ProviderError when the call
    fails, BudgetExhaustedError when the daily budget is spent.
    """
    from cms.providers.summary_schema import SummaryAnswerError, validate_summary

    prompt = "\n".join(
        [
            f"# {len(entries)} observations of kind {kind}, oldest first",
            "<observations>",
            "\n\n".join(entry.strip() for entry in entries),
            "</observations>",
            "",
            'Answer with the JSON object {"title": "...", "body": "..."} only, or '
            '{"skip": "..."} when they share no subject.',
        ]
    )
    text = _call(
        provider,
        config,
        purpose="summarise",
        prompt=prompt,
        model=config.provider.summarise_model,
        max_tokens=min(SUMMARY_MAX_TOKENS, config.provider.max_tokens),
        project=project,
        clock=clock,
    )
    try:
        return validate_summary(extract_json(text, dict), kind=kind, source_chars=source_chars)
    except (ValueError, SummaryAnswerError) as exc:
        problem = "not JSON" if not isinstance(exc, SummaryAnswerError) else str(exc)
        message = f"summarise answer unusable: {_short(problem)}: {_short(text, 80) or 'empty'}"
        log_event("warning", "summary_rejected", message, provider=provider.name, project=project)
        raise SummaryAnswerError(message) from None
