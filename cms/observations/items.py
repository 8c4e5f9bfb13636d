"""One stored item whole: an observation or an indexed chat fact as a record with its state
(in force, superseded by whom, archived) and the older versions it replaced.

Shared by `cms get` and `cms ui`; reads the project's store only and knows nothing of the CLI.
"""

from __future__ import annotations

from typing import Any

from cms.errors import CmsError
from cms.observations.export import iso, observation_record
from cms.observations.facts import IndexedFact, fact_by_id, find_facts, superseded_chain
from cms.observations.model import COLUMNS, Observation, row_to_observation
from cms.observations.store import ObservationStore

MAX_HISTORY = 50  # older versions followed back per item


class UnknownItemError(CmsError):
    """An id names no fact or observation of this project."""


def observation_number(item: str) -> int | None:
    """The number of an observation id (O12, o12, #12, 12); None for anything else."""
    text = item.removeprefix("#").removeprefix("O").removeprefix("o")
    return int(text) if text.isdigit() else None


def _observation_rows(
    store: ObservationStore, where: str, args: tuple[Any, ...]
) -> list[Observation]:
    rows = store.read(
        lambda c: c.execute(
            f"SELECT {COLUMNS} FROM observations WHERE {where} ORDER BY created_at DESC", args
        ).fetchall()
    )
    return [row_to_observation(r) for r in rows]


def replaced_observations(store: ObservationStore, obs: Observation) -> list[Observation]:
    """The versions obs superseded, directly or through older ones, newest first."""
    history: list[Observation] = []
    frontier = [obs.id]
    while frontier and len(history) < MAX_HISTORY:
        marks = ",".join("?" * len(frontier))
        older = _observation_rows(store, f"superseded_by IN ({marks})", tuple(frontier))
        history += older
        frontier = [o.id for o in older]
    return history


def item_state(superseded_by: int | str | None, archived: bool, prefix: str = "") -> str:
    if superseded_by is not None:
        return f"superseded by {prefix}{superseded_by}"
    return "archived" if archived else "in force"


def _version(obs: Observation, reasons: dict[int, str] | None = None) -> dict[str, Any]:
    version = {
        "id": f"O{obs.id}",
        "text": f"{obs.title} \u2014 {obs.body}",
        "updated_at": iso(obs.updated_at),
    }
    reason = (reasons or {}).get(obs.id)
    return version | {"reason": reason} if reason else version


def supersede_reasons(store: ObservationStore, ids: list[int]) -> dict[int, str]:
    """Why each of these observations was superseded, where a reason was recorded."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = store.read(
        lambda c: c.execute(
            f"SELECT older, reason FROM supersede_reasons WHERE older IN ({marks})", tuple(ids)
        ).fetchall()
    )
    return {int(older): str(reason) for older, reason in rows}


def observation_item(store: ObservationStore, obs: Observation) -> dict[str, Any]:
    """An observation whole: its state, the versions it replaced (history) and, for a summary
    written by `cms gc`, the originals it summarises (summary_of); an original names its summary
    (summarised_into) and says so in its state while archived."""
    from cms.observations.summaries import summarised_originals

    state = item_state(obs.superseded_by, obs.archived_at is not None, prefix="O")
    history = replaced_observations(store, obs)
    reasons = supersede_reasons(store, [obs.id, *(o.id for o in history)])
    if obs.id in reasons:
        state += f" ({reasons[obs.id]})"
    if state == "archived" and obs.summarised_into is not None:
        state = f"archived, summarised into O{obs.summarised_into}"
    return observation_record(obs) | {
        "id": f"O{obs.id}",
        "type": "observation",
        "source_fact": obs.source,
        "turn": obs.turn,
        "uses": obs.use_count,
        "state": state,
        "summarised_into": None if obs.summarised_into is None else f"O{obs.summarised_into}",
        "summary_of": [_version(o) for o in summarised_originals(store, obs.id)],
        "history": [_version(o, reasons) for o in history],
    }


def fact_item(store: ObservationStore, fact: IndexedFact) -> dict[str, Any]:
    newer = fact_by_id(store, fact.superseded_by) if fact.superseded_by else None
    state = item_state(newer.key if newer else None, fact.archived)
    if fact.superseded_by == 0:
        state = "retracted by a later chat"
    return {
        "id": fact.key,
        "type": "fact",
        "path": fact.path,
        "text": fact.text,
        "kind": fact.kind,
        "session": fact.session,
        "turn": fact.turn,
        "created_at": iso(fact.created_at),
        "updated_at": iso(fact.updated_at),
        "state": state,
        "history": [
            {"id": f.key, "text": f.text, "updated_at": iso(f.updated_at)}
            for f in superseded_chain(store, fact)
        ],
    }


def item_records(store: ObservationStore, wanted: list[str]) -> list[dict[str, Any]]:
    """The records of the given ids, in order; UnknownItemError names the first unknown one."""
    items = []
    for item in wanted:
        number = observation_number(item)
        if number is not None:
            obs = store.get(number)
            if obs is None:
                raise UnknownItemError(f"no observation {item} in this project")
            items.append(observation_item(store, obs))
            continue
        facts = find_facts(store, item)
        if not facts:
            raise UnknownItemError(
                f"no fact {item} in this project (ids look like O12 or 1a2b3c4d/F7)"
            )
        items += [fact_item(store, f) for f in facts]
    return items


def user_item_records(store: ObservationStore, wanted: list[str]) -> list[dict[str, Any]]:
    """The records of items of the user tier (U12), in order, named by U ids (their state and
    history too); UnknownItemError names the first unknown one."""
    from cms.observations.usertier import USER_PREFIX, user_number

    items = []
    for item in wanted:
        number = user_number(item)
        obs = store.get(number) if number is not None else None
        if obs is None:
            raise UnknownItemError(f"no item {item} in the user tier (its ids look like U12)")
        record = observation_item(store, obs) | {"id": f"{USER_PREFIX}{obs.id}", "tier": "user"}
        if obs.superseded_by is not None:
            record["state"] = f"superseded by {USER_PREFIX}{obs.superseded_by}"
        record["history"] = [
            old | {"id": USER_PREFIX + str(old["id"]).lstrip("O")} for old in record["history"]
        ]
        items.append(record)
    return items


def render_item(item: dict[str, Any]) -> str:
    """An item record (item_records) as text: id, where, state; its text; chat, turn and times;
    uses; for a summary its originals; the versions it replaced (with why, when known)."""
    where = str(item.get("path") or item.get("kind"))
    where += ", yours, every project" if item.get("tier") == "user" else ""
    lines = [f"{item['id']} [{where}] ({item['state']})"]
    if item["type"] == "fact":
        lines.append(item["text"])
    else:
        lines.append(item["title"])
        lines += [item["body"]] if item["body"] else []
        lines += ["files: " + ", ".join(item["files"])] if item["files"] else []
    chat = item.get("session") or "-"
    lines.append(
        f"chat {chat}, turn {item.get('turn') or '-'}, created {item['created_at']}, "
        f"updated {item['updated_at']}"
    )
    if "uses" in item:
        last = item.get("last_recalled_at") or "never"
        lines.append(f"injected or recalled {item['uses']} times, last {last}")
    if item.get("summary_of"):
        lines.append(
            "summary of " + ", ".join(o["id"] for o in item["summary_of"]) + " (archived):"
        )
        lines += [f"  ({o['id']}, {o['updated_at']}): {o['text']}" for o in item["summary_of"]]
    for old in item["history"]:
        why = f", {old['reason']}" if old.get("reason") else ""
        lines.append(f"  was ({old['id']}, {old['updated_at']}{why}): {old['text']}")
    return "\n".join(lines)
