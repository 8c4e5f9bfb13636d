"""The MCP server (`cms mcp`): chat maps and project observations as tools for any MCP client.

front answers the handshake and the hook tools on stdio at once (standard library only), server
builds the SDK's server behind it (the only module importing mcp), map_tools and
observation_tools hold the tool bodies (their docstrings are the tool descriptions), args the
argument schemas (pydantic). Nothing is imported here, so `cms mcp` starts light.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Kind", "build_server"]


def __getattr__(name: str) -> Any:
    if name == "build_server":
        from cms.mcp_server.server import build_server

        return build_server
    if name == "Kind":
        from cms.mcp_server.args import Kind

        return Kind
    raise AttributeError(name)
