"""The prompt count the worker keeps per chat (<chat dir>/turn-count.json).

A transcript only grows, so the number of prompts before the latest one is remembered with the
byte offset it was counted up to; the next turn read counts only the new tail instead of scanning a
transcript of tens of megabytes again. Losing or corrupting the file only costs one full count.
"""

from __future__ import annotations

import json
import os

from cms import paths
from cms.hooks.statefile import write_state_quietly
from cms.transcripts.turns import LineCount

FILE_NAME = "turn-count.json"


def _file(session_id: str) -> str:
    return os.path.join(paths.chat_dir(session_id), FILE_NAME)


def load_turn_count(session_id: str) -> LineCount:
    """The count kept for the chat; an empty one when there is none or it is unreadable."""
    try:
        with open(_file(session_id), encoding="utf-8") as handle:
            return LineCount.from_json(json.load(handle))
    except (OSError, ValueError):
        return LineCount()


def save_turn_count(session_id: str, count: LineCount) -> None:
    """Keep the count for the next turn (atomic replace; best effort: failures are ignored)."""
    write_state_quietly(_file(session_id), count.to_json())
