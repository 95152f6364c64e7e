"""Turn an MCP tool's JSON-schema input into a pydantic model, so MCP arguments are validated like any tool's.

The manifest and the bridge only know ``ToolSpec.args_schema`` (a pydantic
model).  MCP servers publish JSON schema instead, so we build a model from it
with :func:`pydantic.create_model`.  The model validates; the server's own
schema stays the published one (``source_schema``, returned by
``model_json_schema``) so the model sees exactly what the server asked for.

Covered: string, number, integer, boolean, null, array (``items``), object
(``properties`` become a nested model, otherwise ``additionalProperties``
gives ``dict[str, T]``), ``enum``/``const`` as ``Literal``, ``anyOf``/``oneOf``
and type lists as unions, local ``$ref`` into ``$defs``/``definitions``, and
the common constraints (lengths, bounds, pattern, item counts).  Not covered,
and left to the server to check: ``allOf`` with several parts, ``not``,
``if``/``then``, ``prefixItems``, ``format``, recursive ``$ref`` (typed as a
plain dict).

Unknown argument names are rejected unless the schema sets
``additionalProperties`` to true or a schema: models invent argument names,
and a made-up name is more likely a mistake than an intended pass-through.
"""

from __future__ import annotations

import copy
import keyword
import re
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}
_CONSTRAINTS: dict[str, str] = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
    "minItems": "min_length",
    "maxItems": "max_length",
}
_MODEL_CONFIG = ConfigDict(
    validate_by_name=True,
    validate_by_alias=True,
    protected_namespaces=(),
    # JSON-schema patterns are ECMA regexes; Python's engine accepts more of them than pydantic's Rust default.
    regex_engine="python-re",
)


class McpArgs(BaseModel):
    """Base of every MCP tool's argument model: validates with pydantic, publishes the server's JSON schema."""

    model_config = _MODEL_CONFIG

    source_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    """The input schema exactly as the MCP server listed it."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The server's own schema (a copy), not pydantic's regeneration of it: that is what the model should see."""
        return copy.deepcopy(cls.source_schema)

    def to_arguments(self) -> dict[str, Any]:
        """The JSON arguments to send: original names, and only what the caller set (the server fills defaults)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


def args_model_from_json_schema(model_name: str, schema: dict[str, Any]) -> type[McpArgs]:
    """Build the argument model of one MCP tool from its ``inputSchema``."""
    builder = _Builder(schema)
    model = builder.object_model(model_name, schema, base=McpArgs)
    model.source_schema = copy.deepcopy(schema)
    return model


class _Builder:
    """Walks one schema; holds the root for ``$ref`` lookups and the refs being built, to stop on recursion."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.building: set[str] = set()
        self.built: dict[str, Any] = {}

    def object_model(self, name: str, schema: dict[str, Any], base: type[BaseModel] = BaseModel) -> type[Any]:
        properties: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        taken: set[str] = set()
        fields: dict[str, Any] = {}
        for prop, raw in properties.items():
            prop_schema: dict[str, Any] = raw if isinstance(raw, dict) else {}  # `true` is a schema too: anything
            field_name = _field_name(prop, taken, base)
            taken.add(field_name)
            annotation = self.annotation(prop_schema, f"{name}_{field_name}")
            info: dict[str, Any] = {"description": prop_schema.get("description")}
            if field_name != prop:
                info["alias"] = prop
            if prop not in required:
                # Unset optional arguments are not sent (see McpArgs.to_arguments); the default only fills the
                # attribute.  It is not validated, so an optional non-null argument still refuses an explicit null.
                info["default"] = copy.deepcopy(prop_schema.get("default"))
            fields[field_name] = (annotation, Field(**info))
        extra: Literal["allow", "forbid"] = (
            "allow" if schema.get("additionalProperties") not in (None, False) else "forbid"
        )
        kwargs: dict[str, Any] = {"__base__": base}
        if base is BaseModel:
            kwargs = {"__config__": ConfigDict(**_MODEL_CONFIG, extra=extra)}
        else:
            kwargs["__cls_kwargs__"] = {"extra": extra}
        return create_model(_class_name(name), __doc__=schema.get("description"), **kwargs, **fields)

    def annotation(self, schema: dict[str, Any], name: str) -> Any:
        if "$ref" in schema:
            return self._ref(schema["$ref"], name)
        if "const" in schema:
            return _literal([schema["const"]])
        if "enum" in schema:
            return _literal(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return _union([self.annotation(part, f"{name}_{i}") for i, part in enumerate(schema[key])])
        if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            return self.annotation(schema["allOf"][0], name)
        kind = schema.get("type")
        if isinstance(kind, list):
            return _union([self.annotation({**schema, "type": one}, name) for one in kind])
        if kind is None and "properties" in schema:
            kind = "object"
        if kind in _SCALARS:
            return _constrained(_SCALARS[kind], schema)
        if kind == "array":
            items = schema.get("items")
            item = self.annotation(items, f"{name}_item") if isinstance(items, dict) else Any
            return _constrained(list[item], schema)  # type: ignore[valid-type]
        if kind == "object":
            return self._object(schema, name)
        return Any

    def _object(self, schema: dict[str, Any], name: str) -> Any:
        if schema.get("properties"):
            return self.object_model(name, schema)
        extra = schema.get("additionalProperties")
        value = self.annotation(extra, f"{name}_value") if isinstance(extra, dict) else Any
        return dict[str, value]  # type: ignore[valid-type]

    def _ref(self, ref: str, name: str) -> Any:
        if ref in self.built:
            return self.built[ref]
        if ref in self.building:
            return dict[str, Any]
        target = _resolve(self.root, ref)
        self.building.add(ref)
        try:
            self.built[ref] = self.annotation(target, ref.rsplit("/", 1)[-1] or name)
        finally:
            self.building.discard(ref)
        return self.built[ref]


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref into the same schema is supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise ValueError(f"$ref {ref!r} points at nothing in the schema")
        node = node[part]
    if not isinstance(node, dict):
        raise TypeError(f"$ref {ref!r} does not point at a schema")
    return node


def _constrained(annotation: Any, schema: dict[str, Any]) -> Any:
    limits = {ours: schema[theirs] for theirs, ours in _CONSTRAINTS.items() if _is_limit(schema.get(theirs), theirs)}
    return Annotated[annotation, Field(**limits)] if limits else annotation


def _is_limit(value: Any, key: str) -> bool:
    # Draft-4 schemas use booleans for exclusiveMinimum/Maximum; those modify minimum/maximum, they are no bound.
    if key == "pattern":
        return isinstance(value, str)
    return isinstance(value, int | float) and not isinstance(value, bool)


def _literal(values: list[Any]) -> Any:
    if not values or not all(v is None or isinstance(v, str | int | float | bool) for v in values):
        return Any
    return Literal[tuple(values)]  # type: ignore[valid-type]


def _union(members: list[Any]) -> Any:
    if not members:
        return Any
    return members[0] if len(members) == 1 else Union[tuple(members)]  # noqa: UP007


def _field_name(prop: str, taken: set[str], base: type[BaseModel]) -> str:
    """A Python field name for a JSON property; the property keeps its name through the field's alias."""
    name = re.sub(r"\W", "_", prop).lstrip("_") or "field"
    if name[0].isdigit() or name.startswith("model_"):
        name = f"f_{name}"
    while keyword.iskeyword(name) or hasattr(base, name) or name in taken:
        name += "_"
    return name


def _class_name(name: str) -> str:
    return re.sub(r"\W", "_", name) or "McpArgsModel"
