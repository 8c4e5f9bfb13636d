"""Reading what cms injected out of recorded model requests and agent transcripts.

Finds the <cms-memory> blocks in request text, parses the search command line out of them,
and reads Claude Code transcript records. Pure text handling; no processes, no fixtures.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

OPEN, CLOSE = "<cms-memory>", "</cms-memory>"
_BLOCK = re.compile(re.escape(OPEN) + r".*?" + re.escape(CLOSE), re.S)
_PLACEHOLDER = re.compile(r"""(["']?)<query>\1""")


def memory_blocks(text: str) -> list[str]:
    """Every <cms-memory>...</cms-memory> block in text, in order."""
    return _BLOCK.findall(text)


def search_command(block: str, cms: Path) -> str:
    """The search command line in an injected block: from its first word to the line's end."""
    for line in block.splitlines():
        at = line.find(" search ")
        if at < 0 or str(cms) not in line[:at]:
            continue
        start = line.find(str(cms))
        # Leading NAME=value words (CMS_HOME=...) belong to the command.
        words = line[:start].split()
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[-1]):
            start = line.rfind(words.pop(), 0, start)
        return line[start:].rstrip().rstrip("`")
    raise AssertionError(f"no `{cms} search` command line in the injected block:\n{block}")


def with_query(command: str, query: str) -> str:
    """The command with its <query> placeholder replaced (or the query appended)."""
    if _PLACEHOLDER.search(command):
        return _PLACEHOLDER.sub(lambda _m: shlex.quote(query), command, count=1)
    return f"{command} {shlex.quote(query)}"


def transcript_path(home: Path, cwd: Path, session_id: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    return home / ".claude" / "projects" / slug / f"{session_id}.jsonl"


def transcript_records(path: Path) -> list[dict[str, Any]]:
    records = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    continue
    return records


def hook_contexts(records: list[dict[str, Any]], event: str) -> list[str]:
    """The additionalContext texts a hook event left in transcript records (attachments)."""
    found = []
    for record in records:
        attachment = record.get("attachment") if record.get("type") == "attachment" else None
        if not isinstance(attachment, dict):
            continue
        if attachment.get("type") != "hook_additional_context":
            continue
        if attachment.get("hookEvent", attachment.get("hookName")) != event:
            continue
        content = attachment.get("content")
        found += [c for c in content if isinstance(c, str)] if isinstance(content, list) else []
    return found
