"""The capability manifest (Γ): what exists in this project, serialisable for the model, the UI and trajectories."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from store.kinds import KindRegistry, NodeKind
from store.models import EdgeType
from store.mutations import MUTATION_OPS
from tools.base import Effect, ToolFamily
from tools.registry import ToolRegistry, returns_schema


class ToolInfo(BaseModel):
    """One tool as the manifest lists it."""

    name: str
    family: ToolFamily
    description: str
    parameters: dict[str, Any] = Field(description="JSON schema of the arguments")
    effects: list[Effect]
    _returns: dict[str, Any] | Callable[[], dict[str, Any]] = PrivateAttr(default_factory=dict)

    @property
    def returns(self) -> dict[str, Any]:
        """JSON schema of what the tool returns (its observation); {} if unknown.

        Reference for people and skill authors (`jarvishub tools --json`, docs/tools.md), so it is made when
        asked for, not with every runtime's manifest (half of the schemas a command would build before its first
        turn), and left out of the manifest's JSON: every turn's trajectory record holds that, and it would grow
        by 40 %."""
        if callable(self._returns):
            self._returns = self._returns()
        return self._returns

    def returning(self, schema: dict[str, Any] | Callable[[], dict[str, Any]]) -> ToolInfo:
        """This tool info, with what the tool returns (a schema, or how to make it when first asked for)."""
        self._returns = schema
        return self


class SkillInfo(BaseModel):
    """One skill as the manifest lists it."""

    name: str
    description: str
    input_schema: dict[str, Any] = Field(default_factory=dict)
    output_schema: dict[str, Any] = Field(default_factory=dict)
    needs_tools: list[str] = Field(default_factory=list)
    triggers: list[str] = Field(default_factory=list, description="Phrases of a request that ask for the skill")
    source: str = Field(default="built-in", description="Where it was loaded from: built-in, an entry point, "
                                                        "skills/NAME.py, or the project file's [skills] load")


class Manifest(BaseModel):
    """Node kinds, edge types, mutation operations, tools and skills of a project."""

    kinds: list[NodeKind]
    edge_types: list[str]
    operations: list[str]
    tools: list[ToolInfo]
    skills: list[SkillInfo] = Field(default_factory=list)

    def tool(self, name: str) -> ToolInfo | None:
        """The tool of that name, if the project has it."""
        return next((t for t in self.tools if t.name == name), None)

    def tool_names(self) -> list[str]:
        """Every tool name, sorted."""
        return sorted(t.name for t in self.tools)


def skill_returns(skill: SkillInfo) -> dict[str, Any]:
    """What the tool ``skill__<name>`` returns: ``skill`` (its name) and the skill's output fields."""
    schema = dict(skill.output_schema)
    schema["properties"] = {"skill": {"type": "string", "description": "The skill's name"},
                            **(schema.get("properties") or {})}
    schema["required"] = ["skill", *(schema.get("required") or [])]
    return schema


def build_manifest(kinds: KindRegistry, registry: ToolRegistry, skills: list[SkillInfo] | None = None) -> Manifest:
    """Read the registries into a manifest."""
    by_tool = {f"skill__{s.name}": s for s in skills or []}
    return Manifest(
        kinds=kinds.all(),
        edge_types=[e.value for e in EdgeType],
        operations=list(MUTATION_OPS),
        tools=[
            ToolInfo(
                name=spec.name,
                family=spec.family,
                description=spec.description,
                parameters=spec.json_schema(),
                effects=sorted(spec.effects),
            ).returning(partial(skill_returns, by_tool[spec.name]) if spec.name in by_tool
                        else partial(returns_schema, spec))
            for spec in registry.all()
        ],
        skills=list(skills or []),
    )


CANVAS_READING_FAMILIES = frozenset({ToolFamily.CANVAS, ToolFamily.RECOVERY})
"""Families whose read-only tools return canvas content (nodes, edges, lineage, versions, Cypher rows)."""
CANVAS_READING_MCP = ("read_neo4j_cypher", "get_neo4j_schema")
"""Tool-name endings of MCP servers that query the graph database (mcp-neo4j-cypher), i.e. the canvas."""


def canvas_reading_tools(manifest: Manifest) -> list[str]:
    """Every tool of the manifest whose job is to return canvas content.

    The read-only tools of the canvas and recovery families (``query_canvas``, ``read_node``,
    ``read_lineage``, ``list_attempts``, ``verify_artifacts``) and an MCP server's graph-database reads.
    Tools that change the canvas keep answering with what they did (ids made, ids marked stale): that is a
    tool result, which a chat agent sees too.  Workspace reads (``read_file``, ``list_files``) read files,
    not the canvas, and stay.
    """
    found = []
    for tool in manifest.tools:
        reads = Effect.READ_ONLY in tool.effects and tool.family in CANVAS_READING_FAMILIES
        graph_db = tool.family == ToolFamily.MCP and tool.name.endswith(CANVAS_READING_MCP)
        if reads or graph_db:
            found.append(tool.name)
    return found
