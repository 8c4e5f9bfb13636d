"""Export of a project's observations (Markdown in the MEMORY.md style, or JSON) and import back.

Owns both file formats and their reading: an export holds the live and archived observations
(superseded ones are history and stay behind); importing one goes through the capture rules
(redaction, dedup, supersession), so importing the same file twice adds nothing. A hand-written
Markdown memory file (kind headings with `###` entries or bullets) imports too.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cms.errors import StoreError
from cms.excerpt import fit_text
from cms.observations.capture import CapturePlace, redact_new, store_candidate
from cms.observations.migrations import KINDS
from cms.observations.model import NewObservation, Observation, clean_new, title_key
from cms.observations.scope import DEFAULT_NAMES
from cms.observations.store import ObservationStore
from cms.transcripts.redact import redact_text

FORMAT_NAME = "cms-observations"
FORMAT_VERSION = 1
HEADINGS = {
    "decision": "Decisions",
    "learning": "Learnings",
    "bugfix": "Bug fixes",
    "command": "Commands",
    "file_summary": "File summaries",
    "preference": "Preferences",
    "other": "Other",
}
_META = re.compile(r"^<!-- cms: (\{.*\}) -->$")
_FILES = re.compile(r"^Files: (`.*`)$")
_ESCAPE = ("#", "<!--", "Files:", "\\")
_BULLET_FILES = re.compile(r"^(.*?)\s*\(files: ([^()]+)\)$")
BLOCK_BEGIN = "<!-- cms:memory begin"  # the block of a committed memory view (memoryfile.py)
BLOCK_END = "<!-- cms:memory end -->"
BLOCK = re.compile(  # markers on lines of their own: a marker quoted inside a line is text
    r"^" + re.escape(BLOCK_BEGIN) + r"[^\n]*\r?\n.*?^" + re.escape(BLOCK_END) + r"[ \t]*$",
    re.DOTALL | re.MULTILINE,
)


@dataclass
class ImportReport:
    added: int = 0
    superseding: int = 0
    duplicates: int = 0
    older: int = 0  # a newer observation with that kind and title was already stored
    skipped: int = 0  # records without a title


def iso(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _stamp(value: Any) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise StoreError(f"import: {value!r} is not an ISO 8601 time") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def exported_observations(store: ObservationStore) -> list[Observation]:
    """What an export holds: live and archived observations, oldest first."""
    return store.list_observations(include_archived=True)


def observation_record(obs: Observation) -> dict[str, Any]:
    return {
        "id": obs.id,
        "kind": obs.kind,
        "title": obs.title,
        "body": obs.body,
        "files": list(obs.files),
        "importance": obs.importance,
        "branch": obs.branch,
        "commit": obs.commit,
        "shared_commit": obs.shared_commit,
        "session": obs.session,
        "agent": obs.agent,
        "created_at": iso(obs.created_at),
        "updated_at": iso(obs.updated_at),
        "last_recalled_at": iso(obs.last_recalled_at),
        "archived_at": iso(obs.archived_at),
    }


def export_json(project: str, observations: Sequence[Observation]) -> str:
    document = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "project": project,
        "exported_at": iso(time.time()),
        "observations": [observation_record(o) for o in observations],
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _escape(line: str) -> str:
    return "\\" + line if line.startswith(_ESCAPE) else line


def export_markdown(project: str, observations: Sequence[Observation]) -> str:
    """A MEMORY.md-style document: one section per kind, one `###` entry per observation, its
    metadata in an HTML comment so that `cms import` restores it exactly."""
    lines = [
        f"# Project memory: {project}",
        "",
        f"<!-- {FORMAT_NAME} v{FORMAT_VERSION}, exported {iso(time.time())}; "
        "restore with `cms import FILE` -->",
    ]
    for kind in KINDS:
        group = [o for o in observations if o.kind == kind]
        if not group:
            continue
        lines += ["", f"## {HEADINGS[kind]}"]
        for obs in group:
            meta = {k: v for k, v in observation_record(obs).items() if v not in (None, False)}
            for key in ("id", "kind", "title", "body", "files"):
                meta.pop(key, None)
            lines += [
                "",
                f"### {obs.title}",
                f"<!-- cms: {json.dumps(meta, ensure_ascii=False)} -->",
            ]
            if obs.body.strip():
                lines += [""] + [_escape(line) for line in obs.body.splitlines()]
            if obs.files:
                lines += ["", "Files: " + ", ".join(f"`{f}`" for f in obs.files)]
    return "\n".join(lines) + "\n"


def _kind_of_heading(text: str) -> str:
    wanted = text.strip().lower()
    for kind, heading in HEADINGS.items():
        if wanted in (kind, heading.lower(), kind.replace("_", " ")):
            return kind
    return "other"


def _bullet_record(kind: str, text: str) -> dict[str, Any]:
    """`- **Title** — body`, `- Title: body` or `- text` as a record."""
    match = re.match(r"^\*\*(.+?)\*\*\s*(?:[\u2014:-]\s*)?(.*)$", text)
    if match is None:
        match = re.match(r"^([^:]{3,120}):\s+(.+)$", text)
    if match is not None:
        record: dict[str, Any] = {
            "kind": kind,
            "title": match.group(1).strip(),
            "body": match.group(2).strip(),
        }
        if files := _BULLET_FILES.match(record["body"]):
            record["body"] = files.group(1)
            record["files"] = [f.strip() for f in files.group(2).split(",") if f.strip()]
        return record
    title = fit_text(text, 120)
    return {"kind": kind, "title": title, "body": text if title != text else ""}


def parse_markdown(text: str) -> list[dict[str, Any]]:
    """Records from a Markdown export (or a hand-written memory file of the same shape)."""
    records: list[dict[str, Any]] = []
    kind = "other"
    current: dict[str, Any] | None = None
    body: list[str] = []

    def finish() -> None:
        if current is not None:
            current["body"] = "\n".join(body).strip("\n")
            records.append(current)

    for line in text.splitlines():
        if line.startswith("## "):
            finish()
            current, body = None, []
            kind = _kind_of_heading(line[3:])
        elif line.startswith("### "):
            finish()
            current, body = {"kind": kind, "title": line[4:].strip()}, []
        elif current is not None and (meta := _META.match(line.strip())):
            try:
                current.update(json.loads(meta.group(1)))
            except ValueError as exc:
                raise StoreError(
                    f"import: bad metadata comment under {current['title']!r}"
                ) from exc
        elif current is not None and (files := _FILES.match(line.strip())):
            current["files"] = re.findall(r"`([^`]+)`", files.group(1))
        elif current is not None:
            body.append(line[1:] if line.startswith("\\") else line)
        elif line.startswith(("- ", "* ")) and line[2:].strip():
            records.append(_bullet_record(kind, line[2:].strip()))
    finish()
    return records


def block_markdown(text: str) -> str | None:
    """The Markdown inside a file's cms block (a memory view in a CLAUDE.md, MEMORY.md or
    AGENTS.md), an AGENTS.md section's headings raised one level so that its kind headings read
    as in a MEMORY.md; None when the file has no block."""
    found = BLOCK.search(text)
    if found is None:
        return None
    inner = found.group(0).splitlines()[1:-1]
    if any(line.strip() == "## Memory" for line in inner):
        inner = [line[1:] if line.startswith("###") else line for line in inner]
        inner = [line for line in inner if line.strip() != "## Memory"]
    return "\n".join(inner)


def parse_export(text: str) -> list[dict[str, Any]]:
    """Records of a JSON export (by its first character), of the cms block of a memory view
    (the rest of such a file is the user's), or of a Markdown export."""
    if not text.lstrip().startswith("{") and (block := block_markdown(text)) is not None:
        return parse_markdown(block)
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise StoreError(f"import: not valid JSON ({exc})") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
            raise StoreError(f"import: not a {FORMAT_NAME} JSON export")
        if int(data.get("version", 0)) > FORMAT_VERSION:
            raise StoreError(f"import: export version {data.get('version')} is newer than cms")
        records = data.get("observations")
        if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
            raise StoreError("import: 'observations' must be a list of objects")
        return records
    return parse_markdown(text)


def _new_from(record: dict[str, Any]) -> NewObservation:
    files = record.get("files") or []
    if not isinstance(files, list):
        raise StoreError(f"import: files of {record.get('title')!r} must be a list")
    try:
        importance = int(record.get("importance", 3))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"import: bad importance for {record.get('title')!r}") from exc
    return NewObservation(
        kind=str(record.get("kind") or "other"),
        title=str(record.get("title") or ""),
        body=str(record.get("body") or ""),
        files=tuple(str(f) for f in files),
        importance=importance,
    )


def _redacted(value: Any) -> str | None:
    return None if value is None else redact_text(str(value))


def import_records(store: ObservationStore, records: Sequence[dict[str, Any]]) -> ImportReport:
    """Store records through the capture rules, oldest first, in one transaction."""
    skipped = 0
    now = time.time()
    prepared = []
    for record in records:
        try:
            new = clean_new(redact_new(_new_from(record)))
        except StoreError:
            if str(record.get("title") or "").strip():
                raise
            skipped += 1
            continue
        created = _stamp(record.get("created_at")) or now
        updated = _stamp(record.get("updated_at")) or created
        branch = record.get("branch")
        place = CapturePlace(
            branch=str(branch) if branch else None,
            commit=str(record["commit"]) if record.get("commit") else None,
            shared_commit=bool(record.get("shared_commit", False)),
            default_branches=frozenset(DEFAULT_NAMES),
        )
        prepared.append((updated, created, new, place, record))
    prepared.sort(key=lambda item: item[0])

    def run(conn: sqlite3.Connection) -> ImportReport:
        report = ImportReport(skipped=skipped)  # built inside: a retried transaction recounts
        for updated, created, new, place, record in prepared:
            newer = conn.execute(
                "SELECT 1 FROM observations WHERE kind = ? AND title_key = ? AND branch IS ? "
                "AND superseded_by IS NULL AND updated_at > ? LIMIT 1",
                (new.kind, title_key(new.title), place.branch, updated),
            ).fetchone()
            if newer is not None:
                report.older += 1
                continue
            outcome = store_candidate(
                conn,
                store.project,
                new,
                place,
                session=_redacted(record.get("session")),  # free text of a file: redacted too
                agent=_redacted(record.get("agent")),
                now=now,
                created_at=created,
                updated_at=updated,
                archived_at=_stamp(record.get("archived_at")),
            )
            if outcome.status == "duplicate":
                report.duplicates += 1
            elif outcome.status == "superseded":
                report.superseding += 1
            else:
                report.added += 1
        return report

    return store.write(run)
