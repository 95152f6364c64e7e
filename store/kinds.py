"""The registry of canvas node kinds: the manifest reads it, and a project can add its own."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from store.errors import InvalidMutation

BUILTIN_KINDS: dict[str, str] = {
    "text": "Free text: a note, a script, a brief.",
    "prompt": "A generation prompt with its parameters.",
    "plan": "A plan: storyboard, outline, layout plan.",
    "reference": "A reference: character, scene, style or prop (inputs.role says which).",
    "image": "A still image artifact.",
    "video": "A video clip or cut.",
    "audio": "Speech, music or ambience.",
    "web": "A web page (HTML/CSS) or its preview.",
    "slide": "One slide of a deck.",
    "deck": "A slide deck (.pptx).",
    "code": "Source code and its run results.",
    "file": "A file from the workspace.",
    "feedback": "Feedback from a person or an evaluator.",
    "evaluation": "A scored evaluation of a node against a request.",
    "group": "A group of nodes (a branch, a shot's candidates, a turn's outputs).",
    "shot": "One shot of a storyboard: prompt, camera and lighting.",
    "checkpoint": "A named canvas version that can be restored.",
}


class NodeKind(BaseModel):
    """One kind of canvas node, with what it is for."""

    name: str
    description: str


class KindRegistry:
    """The node kinds a project knows; creating a node of an unknown kind is refused."""

    def __init__(self, kinds: Iterable[NodeKind] = ()) -> None:
        self._kinds: dict[str, NodeKind] = {k.name: k for k in kinds}

    @classmethod
    def default(cls, extra: dict[str, str] | None = None) -> KindRegistry:
        """The built-in kinds plus a project's own (from its config)."""
        merged = {**BUILTIN_KINDS, **(extra or {})}
        return cls(NodeKind(name=n, description=d) for n, d in merged.items())

    def register(self, name: str, description: str) -> None:
        """Add a project kind."""
        if not name.isidentifier():
            raise InvalidMutation(f"a node kind must be an identifier, got {name!r}")
        self._kinds[name] = NodeKind(name=name, description=description)

    def require(self, name: str) -> NodeKind:
        """The kind, or a clear error naming the kinds that exist."""
        kind = self._kinds.get(name)
        if kind is None:
            raise InvalidMutation(f"unknown node kind {name!r}; known kinds: {', '.join(sorted(self._kinds))}")
        return kind

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def all(self) -> list[NodeKind]:
        """Every kind, sorted by name."""
        return sorted(self._kinds.values(), key=lambda k: k.name)
