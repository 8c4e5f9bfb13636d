"""The MCP server (`cms mcp`): chat maps and project observations as tools for any MCP client.

server builds it (the only module importing mcp), map_tools and observation_tools hold the tool
bodies (their docstrings are the tool descriptions), args the argument schemas (pydantic).
"""

from __future__ import annotations

from cms.mcp_server.args import Kind
from cms.mcp_server.server import build_server

__all__ = ["Kind", "build_server"]
