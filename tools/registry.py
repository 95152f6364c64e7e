"""The tool registry: every ToolSpec a project has, by name.  The manifest reads it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.base import ToolSpec, model_schema
from tools.returns import BUILTIN_RETURNS, FAMILY_RETURNS


class ToolRegistry:
    """Tools by name; adding two tools with one name is an error, not a silent override."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            self.add(spec)

    def add(self, spec: ToolSpec) -> None:
        """Register a tool."""
        if spec.name in self._specs:
            raise ValueError(f"two tools are named {spec.name!r}")
        self._specs[spec.name] = spec

    def get(self, name: str) -> ToolSpec | None:
        """The tool, or None."""
        return self._specs.get(name)

    def all(self) -> list[ToolSpec]:
        """Every tool, sorted by family then name."""
        return sorted(self._specs.values(), key=lambda s: (s.family.value, s.name))

    def __contains__(self, name: object) -> bool:
        return name in self._specs


def returns_schema(spec: ToolSpec) -> dict[str, Any]:
    """The JSON schema of what a tool returns (its observation), when it is known (``tools/returns.py``).

    A skill's tool returns its output model (the manifest adds it from the skill); a tool of unknown
    shape (a project's own tool) gives ``{}``.
    """
    model = BUILTIN_RETURNS.get(spec.name) or FAMILY_RETURNS.get(spec.family.value)
    return model_schema(model) if model is not None else {}
