"""The fixture server's tools, loaded and run through ToolSpecs, over stdio and over streamable HTTP."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from PIL import Image
from pydantic import ValidationError

from store.models import ArtifactHandle
from tools.base import Effect, ToolContext, ToolError, ToolFamily, ToolResult, ToolSpec
from tools.mcp import McpToolCallError

Tools = dict[str, ToolSpec]


def run(tools: Tools, tool: str, ctx: ToolContext, **args: object) -> ToolResult:
    """Validate args with the tool's own model, then run it, as the bridge does."""
    spec = tools[f"mcp__studio__{tool}"]
    return spec.run(ctx, spec.args_schema.model_validate(args))


def test_every_server_tool_is_an_mcp_toolspec(fixture_tools: Tools) -> None:
    assert set(fixture_tools) == {
        f"mcp__studio__{name}" for name in ("word_count", "palette_for", "make_swatch", "fail", "slow", "arrange")
    }
    assert {spec.family for spec in fixture_tools.values()} == {ToolFamily.MCP}
    assert fixture_tools["mcp__studio__word_count"].description == "Count the whitespace-separated words in a text."


def test_effects_come_from_the_servers_annotations(fixture_tools: Tools) -> None:
    assert fixture_tools["mcp__studio__palette_for"].effects == {Effect.READ_ONLY}
    assert fixture_tools["mcp__studio__fail"].effects == {Effect.COST_BEARING, Effect.DESTRUCTIVE}
    assert fixture_tools["mcp__studio__word_count"].effects == {Effect.COST_BEARING}


def test_the_manifest_shows_the_servers_own_schema(fixture_tools: Tools) -> None:
    word_count = fixture_tools["mcp__studio__word_count"].json_schema()
    assert word_count["required"] == ["text"]
    assert word_count["properties"]["text"]["type"] == "string"
    arrange = fixture_tools["mcp__studio__arrange"].json_schema()
    assert arrange["required"] == ["items"]
    assert arrange["properties"]["mode"]["enum"] == ["grid", "row"]
    assert arrange["properties"]["columns"] == {"default": 3, "title": "Columns", "type": "integer"}


def test_word_count_returns_text_and_structured_content(fixture_tools: Tools, ctx: ToolContext) -> None:
    result = run(fixture_tools, "word_count", ctx, text="a moody blue poster")
    assert result.observation == {
        "content": [{"type": "text", "text": "4"}],
        "structured": {"result": 4},
        "is_error": False,
    }
    assert result.mutations == []
    assert result.provider_calls == 1


def test_palette_for_returns_the_palette(fixture_tools: Tools, ctx: ToolContext) -> None:
    result = run(fixture_tools, "palette_for", ctx, mood="calm")
    assert result.observation["structured"] == {"result": ["#a8dadc", "#457b9d", "#1d3557"]}
    assert [block["text"] for block in result.observation["content"]] == ["#a8dadc", "#457b9d", "#1d3557"]


def test_image_content_is_stored_as_an_artifact_not_inlined(fixture_tools: Tools, ctx: ToolContext) -> None:
    result = run(fixture_tools, "make_swatch", ctx, color="#00ff00")
    [block] = result.observation["content"]
    assert block["type"] == "image"
    handle = ArtifactHandle.model_validate(block["artifact"])
    assert handle.mime == "image/png"
    assert ctx.artifacts.verify(handle)
    with Image.open(io.BytesIO(ctx.artifacts.read_bytes(handle))) as png:
        assert png.size == (8, 8)
        assert png.convert("RGB").getpixel((3, 3)) == (0, 255, 0)
    assert "iVBOR" not in json.dumps(result.observation)  # no base64 PNG reaches the model


def test_only_the_arguments_given_are_sent(fixture_tools: Tools, ctx: ToolContext) -> None:
    result = run(fixture_tools, "arrange", ctx, items=["a", "b", "c"], mode="row")
    # gap and labels come back as the server's defaults, so the model's None placeholders were not sent.
    assert result.observation["structured"] == {
        "cells": [[0, 0], [1, 0], [2, 0]],
        "gap": 8.0,
        "labels": {},
        "snap": False,
    }


def test_a_failing_tool_raises_tool_error(fixture_tools: Tools, ctx: ToolContext) -> None:
    with pytest.raises(McpToolCallError, match="'fail' on server 'studio' failed: .*fixture failed on purpose") as err:
        run(fixture_tools, "fail", ctx)
    assert isinstance(err.value, ToolError)


def test_a_tools_own_refusal_reaches_the_model(fixture_tools: Tools, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="no palette for mood 'grey'"):
        run(fixture_tools, "palette_for", ctx, mood="grey")


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("word_count", {"text": 5}),
        ("word_count", {}),
        ("word_count", {"text": "a", "txt": "typo"}),
        ("make_swatch", {"color": None}),
        ("arrange", {"items": "a"}),
        ("arrange", {"items": ["a"], "mode": "diagonal"}),
        ("arrange", {"items": ["a"], "columns": "three"}),
        ("arrange", {"items": ["a"], "labels": {"a": 1}}),
    ],
)
def test_invalid_arguments_are_refused_by_the_args_model(fixture_tools: Tools, tool: str, args: dict) -> None:
    with pytest.raises(ValidationError):
        fixture_tools[f"mcp__studio__{tool}"].args_schema.model_validate(args)


def test_progress_reports_reach_the_context(fixture_tools: Tools, ctx: ToolContext) -> None:
    seen: list[str] = []
    ctx.progress = seen.append
    result = run(fixture_tools, "slow", ctx, seconds=0)
    assert seen == ["slow: halfway"]
    assert result.observation["structured"] == {"result": "done"}


def test_run_works_from_inside_a_running_event_loop(fixture_tools: Tools, ctx: ToolContext) -> None:
    async def agent_turn() -> ToolResult:
        return run(fixture_tools, "word_count", ctx, text="called from async code")

    assert asyncio.run(agent_turn()).observation["structured"] == {"result": 4}
