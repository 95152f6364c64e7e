"""Typed errors of the MCP tool family, so callers can tell a bad config from a down server from a failed call."""

from __future__ import annotations

from tools.base import ToolError


class McpConfigError(ValueError):
    """The MCP part of the project config does not fit the servers it names (duplicate names, unknown tools)."""


class McpServerError(ToolError):
    """An MCP server could not be reached, did not start, timed out or broke the connection."""


class McpToolCallError(ToolError):
    """The MCP server ran the tool and reported a failure (``isError``) or refused the request."""
