"""The MCP servers a project names, as pydantic models: how to reach each one and what its tools may do.

Effects of an MCP tool
----------------------
An MCP tool runs outside JarvisHub, in code we did not write, possibly against
a paid or remote service.  So a tool the server says nothing about is
``{COST_BEARING}``: grants and approval policies treat it as external work.

The server's tool annotations can relax or tighten that:

* ``readOnlyHint: true`` gives ``{READ_ONLY}`` and nothing else (the MCP spec
  makes ``destructiveHint`` meaningless for a read-only tool).
* ``destructiveHint: true`` adds ``DESTRUCTIVE``.  The MCP spec's default for an
  absent ``destructiveHint`` is ``true``; we mark a tool destructive only when
  the server says so, because approvals keyed on ``DESTRUCTIVE`` would
  otherwise fire for every unannotated tool and people would learn to click
  through them.  Use ``effects`` below to mark such a tool yourself.

Annotations are hints from the server, not guarantees; ``effects`` in the
project config overrides them per tool (keyed by the server's tool name), and
no MCP tool is ever ``MUTATES_CANVAS``: tools hand back results, and only the
bridge writes the canvas.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Literal

from langchain_mcp_adapters.sessions import Connection
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.base import Effect

DEFAULT_EFFECTS: frozenset[Effect] = frozenset({Effect.COST_BEARING})
"""What an MCP tool without annotations or overrides may do (see the module docstring)."""


class McpServerConfig(BaseModel):
    """One MCP server from the project config: its name, how to start or reach it, and per-tool effects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="Names the server in tool names: mcp__<name>__<tool>.")
    transport: Literal["stdio", "streamable_http"]
    command: str | None = Field(default=None, description="stdio: the executable that runs the server.")
    args: list[str] = Field(default_factory=list, description="stdio: arguments to the command.")
    env: dict[str, str] | None = Field(
        default=None,
        description="stdio: extra environment, merged over the MCP SDK's safe default subset; ${VAR} is expanded.",
    )
    cwd: Path | None = Field(default=None, description="stdio: working directory of the server process.")
    url: str | None = Field(default=None, description="streamable_http: the endpoint, e.g. http://127.0.0.1:8000/mcp.")
    headers: dict[str, str] = Field(
        default_factory=dict, description="streamable_http: headers sent with each request."
    )
    effects: dict[str, frozenset[Effect]] = Field(
        default_factory=dict,
        description="Per-tool effects (keyed by the server's tool name) replacing the derived ones.",
    )
    timeout_s: float = Field(
        default=30.0, gt=0, description="Limit for one call, or for listing the tools when list_timeout_s is unset."
    )
    list_timeout_s: float | None = Field(
        default=None, gt=0,
        description="Limit for listing the tools, including starting a stdio server (default: timeout_s); "
                    "a server that starts slowly can still have short calls.",
    )

    @model_validator(mode="after")
    def _fits_transport(self) -> McpServerConfig:
        if self.transport == "stdio":
            if not self.command:
                raise ValueError(f"MCP server {self.name!r}: stdio transport needs a command")
            if self.url is not None or self.headers:
                raise ValueError(f"MCP server {self.name!r}: url and headers are for streamable_http, not stdio")
        else:
            if not self.url:
                raise ValueError(f"MCP server {self.name!r}: streamable_http transport needs a url")
            if self.command is not None or self.args or self.env is not None or self.cwd is not None:
                raise ValueError(f"MCP server {self.name!r}: command, args, env and cwd are for stdio, not HTTP")
        return self

    def connection(self) -> Connection:
        """The connection dict langchain-mcp-adapters expects for this server."""
        if self.transport == "stdio":
            assert self.command is not None  # checked by _fits_transport
            return {
                "transport": "stdio",
                "command": self.command,
                "args": list(self.args),
                "env": dict(self.env) if self.env is not None else None,
                "cwd": self.cwd,
            }
        assert self.url is not None  # checked by _fits_transport
        return {"transport": "streamable_http", "url": self.url, "headers": dict(self.headers) or None}

    def describe(self) -> str:
        """A short human description of where the server is, for error messages."""
        if self.transport == "stdio":
            return "stdio: " + shlex.join([self.command or "", *self.args])
        return f"streamable_http: {self.url}"

    def effects_for(self, tool: str, annotations: ToolAnnotations | None) -> frozenset[Effect]:
        """The effects of one of this server's tools: the config override if any, else derived from annotations."""
        if tool in self.effects:
            return self.effects[tool]
        if annotations is not None and annotations.readOnlyHint:
            return frozenset({Effect.READ_ONLY})
        if annotations is not None and annotations.destructiveHint:
            return DEFAULT_EFFECTS | {Effect.DESTRUCTIVE}
        return DEFAULT_EFFECTS
