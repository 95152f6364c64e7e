"""The capability manifest (Γ): what exists in this project, serialisable for the model, the UI and trajectories."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from store.kinds import KindRegistry, NodeKind
from store.models import EdgeType
from store.mutations import MUTATION_OPS
from tools.base import Effect, ToolFamily
from tools.registry import ToolRegistry


class ToolInfo(BaseModel):
    """One tool as the manifest lists it."""

    name: str
    family: ToolFamily
    description: str
    parameters: dict[str, Any] = Field(description="JSON schema of the arguments")
    effects: list[Effect]


class SkillInfo(BaseModel):
    """One skill as the manifest lists it."""

    name: str
    description: str
    input_schema: dict[str, Any] = Field(default_factory=dict)
    output_schema: dict[str, Any] = Field(default_factory=dict)
    needs_tools: list[str] = Field(default_factory=list)


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


def build_manifest(kinds: KindRegistry, registry: ToolRegistry, skills: list[SkillInfo] | None = None) -> Manifest:
    """Read the registries into a manifest."""
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
            )
            for spec in registry.all()
        ],
        skills=list(skills or []),
    )
