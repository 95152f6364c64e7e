"""JSON schema to pydantic: the argument model accepts what the schema allows and refuses what it does not."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tools.mcp import args_model_from_json_schema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "minLength": 1, "description": "What to draw."},
        "steps": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
        "strength": {"type": "number"},
        "tile": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "size": {"$ref": "#/$defs/Size"},
        "style": {"enum": ["flat", "photo"]},
        "seed": {"type": ["integer", "null"]},
        "extras": {"type": "object", "additionalProperties": {"type": "number"}},
        "from": {"type": "string"},
        "2x": {"type": "boolean"},
        "model_id": {"type": "string"},
    },
    "required": ["prompt", "size"],
    "$defs": {
        "Size": {
            "type": "object",
            "properties": {"w": {"type": "integer"}, "h": {"type": "integer"}},
            "required": ["w", "h"],
        }
    },
}
VALID: dict[str, Any] = {"prompt": "a fox", "size": {"w": 512, "h": 512}}
Model = args_model_from_json_schema("draw_args", SCHEMA)


def test_valid_arguments_pass_and_only_those_given_are_sent() -> None:
    args = Model.model_validate({**VALID, "steps": 30, "seed": None, "tags": ["ink"]})
    assert args.to_arguments() == {
        "prompt": "a fox",
        "size": {"w": 512, "h": 512},
        "steps": 30,
        "seed": None,
        "tags": ["ink"],
    }


def test_every_type_is_checked() -> None:
    args = Model.model_validate(
        {**VALID, "strength": 0.5, "tile": True, "style": "flat", "extras": {"cfg": 7}, "seed": 3}
    )
    assert args.to_arguments()["extras"] == {"cfg": 7.0}


@pytest.mark.parametrize(
    "change",
    [
        {"prompt": ""},
        {"prompt": 3},
        {"steps": 0},
        {"steps": "many"},
        {"strength": "strong"},
        {"tile": "sometimes"},
        {"tags": ["a", "b", "c", "d"]},
        {"tags": "ink"},
        {"size": {"w": 512}},
        {"style": "oil"},
        {"seed": 1.5},
        {"extras": {"cfg": "high"}},
        {"strenght": 0.5},
    ],
)
def test_invalid_arguments_are_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Model.model_validate({**VALID, **change})


def test_a_missing_required_argument_is_refused() -> None:
    with pytest.raises(ValidationError, match="size"):
        Model.model_validate({"prompt": "a fox"})


def test_awkward_property_names_round_trip() -> None:
    args = Model.model_validate({**VALID, "from": "sketch", "2x": True, "model_id": "m1"})
    sent = args.to_arguments()
    assert (sent["from"], sent["2x"], sent["model_id"]) == ("sketch", True, "m1")


def test_the_published_schema_is_the_servers_and_cannot_be_changed_through_it() -> None:
    published = Model.model_json_schema()
    assert published == SCHEMA
    published["required"].append("steps")
    assert Model.model_json_schema()["required"] == ["prompt", "size"]


def test_additional_properties_true_lets_extra_arguments_through() -> None:
    open_model = args_model_from_json_schema("open_args", {"type": "object", "additionalProperties": True})
    assert open_model.model_validate({"anything": 1}).to_arguments() == {"anything": 1}


def test_a_dangling_ref_is_reported() -> None:
    with pytest.raises(ValueError, match="points at nothing"):
        args_model_from_json_schema("bad_args", {"type": "object", "properties": {"a": {"$ref": "#/$defs/Gone"}}})


def test_a_recursive_ref_is_accepted_as_a_plain_object() -> None:
    tree = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
    }
    model = args_model_from_json_schema("tree_args", tree)
    sent = model.model_validate({"root": {"child": {"child": {}}}}).to_arguments()
    assert sent == {"root": {"child": {"child": {}}}}
