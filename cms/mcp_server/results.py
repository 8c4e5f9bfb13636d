"""What an MCP tool body hands back (ToolResult) and how it refuses a call (ToolRefusedError).

The server turns both into the protocol's types, so the tool modules import no mcp. Plain data
only: no tool logic, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cms.errors import CmsError


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: text for the model and the same facts as structured data."""

    text: str
    data: dict[str, Any]


class ToolRefusedError(CmsError):
    """The call cannot be served as asked; the message tells the model what to do instead."""
