"""What a tool is in JarvisHub: a typed spec the manifest lists and the bridge runs.

A tool never writes the canvas.  It reads what it needs through the
:class:`ToolContext`, does its work (renders a PNG, runs a subprocess, calls a
provider), stores bytes in the artifact store, and returns a :class:`ToolResult`
whose ``mutations`` the commit node applies with the validation node's ticket.
That is how "nothing writes the canvas except through the bridge" holds for
every tool family, MCP tools included.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from tools.reader import read_only

if TYPE_CHECKING:
    from store.artifacts import ArtifactStore
    from store.base import CanvasReader


class ToolFamily(StrEnum):
    """The five tool families of the manifest."""

    CANVAS = "canvas"
    GENERATION = "generation"
    NATIVE = "native"
    RECOVERY = "recovery"
    MCP = "mcp"
    SKILL = "skill"
    """How a skill is invoked: it is listed under ``skills`` in the manifest and called like a tool."""


class Effect(StrEnum):
    """What running a tool may do; grants and approval policies key on these."""

    READ_ONLY = "read_only"
    MUTATES_CANVAS = "mutates_canvas"
    GENERATES_MEDIA = "generates_media"
    COST_BEARING = "cost_bearing"
    DESTRUCTIVE = "destructive"
    LONG_RUNNING = "long_running"


class ToolError(Exception):
    """A tool could not do what was asked; the message is shown to the model so it can act on it."""


@dataclass
class ToolContext:
    """What a running tool may use: read access to the canvas, the artifact store, the workspace.

    ``canvas`` is always a reader: a store handed in is wrapped in
    :class:`~tools.reader.ReadOnlyCanvas`, so no tool holds ``apply``, the driver
    or the ticket authority.  ``services["bridge"]``, when present, is a
    :class:`~nodes.ports.BridgePort` bound to the grant the tool runs under, the
    one way a tool (a skill) acts on the canvas.
    """

    artifacts: ArtifactStore
    workspace: Path
    canvas: CanvasReader | None = None
    settings: Any = None
    thread_id: str | None = None
    turn_id: str | None = None
    actor: str = "agent"
    services: dict[str, Any] = field(default_factory=dict)
    progress: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        self.canvas = read_only(self.canvas)


class ToolResult(BaseModel):
    """What a tool hands back to the bridge."""

    observation: dict[str, Any] = Field(default_factory=dict, description="JSON-able summary the model sees.")
    mutations: list[Any] = Field(default_factory=list, description="store.mutations to commit through the bridge.")
    provider_calls: int = Field(default=0, description="How many paid/slow provider calls this run made.")
    cache_hits: int = 0


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, family, argument schema, effects and the function that runs it."""

    name: str
    family: ToolFamily
    description: str
    args_schema: type[BaseModel]
    effects: frozenset[Effect]
    run: Callable[[ToolContext, BaseModel], ToolResult]
    requires: frozenset[str] = frozenset()
    """Tools this one calls through the bridge (a skill's needs); a grant must allow them all."""
    preflight: Callable[[ToolContext], None] | None = None
    """Checks what the tool needs from this machine (a program such as Chromium) and raises a :class:`ToolError`
    that says how to install it.  The bridge runs it before the tool, and before a skill that requires the tool:
    a skill that commits as it goes would otherwise leave half of its work on the canvas when the tool fails."""

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the tool's arguments (what the manifest and the model see)."""
        return model_schema(self.args_schema)


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, generated once per model class and given out as a fresh copy (the caller may change it).

    Every runtime builds its manifest from the schemas of its ~60 tools' arguments and returns, and pydantic made
    each again every time: a process's second and later runtimes cost 0.17-0.20 s of CPU each, 0.04-0.05 s with
    the schemas kept (the test suite builds hundreds, ``jarvishub eval`` one or more a scenario).
    """
    text = _SCHEMAS.get(model)
    if text is None:
        text = _SCHEMAS[model] = json.dumps(model.model_json_schema())
    return json.loads(text)


_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], str] = weakref.WeakKeyDictionary()
"""Each model's schema as JSON text, for as long as the model exists (an MCP server's argument models are made
when its tools load, and go with them)."""
