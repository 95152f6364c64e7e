"""What a generated node's inputs may hold: the arguments of the tool that made it.

A generated node (an image, a clip, a cut) keeps the arguments it was made with as its inputs, and
``regenerate_stale`` rebuilds it by calling the same tool with them.  An inputs edit that the tool would not
accept ("golden hour" where the lighting preset is ``golden-hour``) would be committed, marked stale, and then
fail the rebuild, leaving the node stale while what was made from it was rebuilt on the old picture.  So an
edit of a generated node's inputs is checked here, before anything is written, against the schema of the tool
that made it: the same check for a person's web edit and for the model's ``update_node``.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from store.models import CanvasNode
from tools.base import ToolError, ToolFamily
from tools.recovery import regeneration_args


class InputProblem(BaseModel):
    """One field of an inputs edit that the producing tool does not accept."""

    field: str
    value: Any = None
    problem: str
    allowed: list[str] | None = None

    def describe(self) -> str:
        """The problem in words, with the values the field takes when they are a closed set."""
        said = f"{self.field}={self.value!r}: {self.problem}"
        return f"{said} (allowed: {', '.join(self.allowed)})" if self.allowed else said


class InvalidInputs(ToolError):
    """An inputs edit names a field the node's producing tool does not take, or a value it does not accept.

    Nothing is written; the message names each field, the value given and the values allowed.
    """

    def __init__(self, node: CanvasNode, tool: str, problems: list[InputProblem]) -> None:
        self.node_id = node.id
        self.tool = tool
        self.problems = problems
        super().__init__(
            f"node {node.id} ({node.kind} {node.title!r}) was made by {tool}, which cannot remake it with "
            f"{'; '.join(p.describe() for p in problems)}. Nothing was changed.")


def check_inputs_patch(registry: Any, node: CanvasNode, patch: dict[str, Any]) -> None:
    """Raise :class:`InvalidInputs` unless the tool that made ``node`` accepts its inputs with ``patch`` merged in.

    Only the patched fields are judged (a node's older fields are not this edit's doing).  A node no registered
    generation tool made (a note, a shot, a page) has free-form inputs and is not checked.
    """
    tool = node.provenance.tool
    spec = registry.get(tool) if tool and registry is not None else None
    if spec is None or spec.family != ToolFamily.GENERATION or not patch:
        return
    # Validated as a rebuild would call the tool: what must hold is that regenerate_stale can remake the node.
    patched = node.model_copy(update={"inputs": {**node.inputs, **patch}})
    try:
        spec.args_schema.model_validate(regeneration_args(patched, {}, {}))
        return
    except ValidationError as error:
        errors = [e for e in error.errors() if e["loc"] and str(e["loc"][0]) in patch]
    if not errors:
        return
    fields = spec.args_schema.model_fields
    problems: list[InputProblem] = []
    for e in errors:
        name = str(e["loc"][0])
        if name not in fields:
            problems.append(InputProblem(field=name, value=patch[name], problem=f"{tool} has no such input",
                                         allowed=sorted(k for k in fields if k not in _NOT_INPUTS)))
            continue
        where = ".".join(map(str, e["loc"]))
        problems.append(InputProblem(field=where, value=patch[name], problem=e["msg"],
                                     allowed=allowed_values(fields[name].annotation)))
    raise InvalidInputs(node, tool, list({p.field: p for p in problems}.values()))


def allowed_values(annotation: Any) -> list[str] | None:
    """The values a field takes when they are a closed set (an enum, a literal), else None."""
    values: list[str] = []
    for part in _parts(annotation):
        if isinstance(part, type) and issubclass(part, enum.Enum):
            values += [str(m.value) for m in part]
        elif typing.get_origin(part) is Literal:
            values += [str(a) for a in typing.get_args(part)]
        elif part is not type(None):
            return None
    return values or None


def _parts(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [p for a in typing.get_args(annotation) for p in _parts(a)]
    if origin in (list, tuple, set, frozenset):
        return [p for a in typing.get_args(annotation) for p in _parts(a)]
    return [annotation]


_NOT_INPUTS = frozenset({"node_id", "version_of", "title", "reference_roles"})
"""Arguments a generated node does not keep as inputs (``tools.generate.tools._result``)."""
