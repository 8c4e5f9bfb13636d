"""The chat's latest prompt as the prompt hook cached it (<chat dir>/last-prompt.json).

UserPromptSubmit writes it (redacted); Stop pairs it with the turn (some Codex runs give no
transcript, and a Stop may come before the CLI has written the prompt to it); `cms ui` shows it.
A missing or unreadable cache is an empty prompt, never an error.
"""

from __future__ import annotations

import os

from cms import jsonio, paths
from cms.hooks.statefile import write_state
from cms.transcripts.redact import redact_text

PROMPT_CACHE = "last-prompt.json"


def cache_prompt(session_id: str, prompt: str) -> str:
    """Keep the prompt (redacted) for the chat's Stop; returns the redacted prompt."""
    redacted = redact_text(prompt)
    write_state(os.path.join(paths.chat_dir(session_id), PROMPT_CACHE), {"prompt": redacted})
    return redacted


def cached_prompt(session_id: str) -> str:
    """The chat's latest prompt as UserPromptSubmit cached it (redacted); "" when none."""
    try:
        with open(
            os.path.join(paths.chat_dir(session_id), PROMPT_CACHE), encoding="utf-8"
        ) as handle:
            data = jsonio.loads(handle.read())
    except (OSError, ValueError):
        return ""
    prompt = data.get("prompt") if isinstance(data, dict) else None
    return prompt if isinstance(prompt, str) else ""
