"""The native family as the manifest sees it: names, schemas, effects, and argument errors the model can fix."""

from __future__ import annotations

import pytest

from tools.base import Effect, ToolError, ToolFamily
from tools.native.tools import NATIVE_TOOLS, READ_FILE, RENDER_PAGE


def test_every_tool_is_native_named_once_and_has_a_json_schema() -> None:
    names = [t.name for t in NATIVE_TOOLS]
    assert names == ["read_file", "write_file", "list_files", "run_code", "render_page", "build_slides"]
    for tool in NATIVE_TOOLS:
        assert tool.family == ToolFamily.NATIVE
        assert tool.description
        assert tool.json_schema()["type"] == "object"
        assert Effect.DESTRUCTIVE not in tool.effects
    assert {t.name for t in NATIVE_TOOLS if t.effects == {Effect.READ_ONLY}} == {"read_file", "list_files"}


def test_raw_dict_arguments_are_validated_into_tool_errors(ctx) -> None:
    # ToolSpec.run is typed for models; a raw tool call may still hand over a dict.
    (ctx.workspace / "a.txt").write_text("hi")
    read = READ_FILE.run(ctx, {"path": "a.txt"})  # type: ignore[arg-type]
    assert read.observation["content"] == "hi"
    with pytest.raises(ToolError, match="invalid arguments for read_file: path: Field required"):
        READ_FILE.run(ctx, {})  # type: ignore[arg-type]
    with pytest.raises(ToolError, match="exactly one of path, html, artifact, node_id"):
        RENDER_PAGE.run(ctx, {"path": "a.html", "html": "<p>hi</p>"})  # type: ignore[arg-type]
