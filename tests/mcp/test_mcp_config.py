"""MCP server config: what a project file may say, the connection it becomes, effects and tool names."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from tools.base import Effect
from tools.mcp import DEFAULT_EFFECTS, MAX_TOOL_NAME, McpServerConfig, mcp_tool_name


@pytest.mark.parametrize(
    "fields",
    [
        {"transport": "stdio"},
        {"transport": "stdio", "command": "srv", "url": "http://127.0.0.1:1/mcp"},
        {"transport": "streamable_http"},
        {"transport": "streamable_http", "url": "http://127.0.0.1:1/mcp", "command": "srv"},
        {"transport": "sse", "url": "http://127.0.0.1:1/sse"},
        {"transport": "stdio", "command": "srv", "timeout_s": 0},
        {"transport": "stdio", "command": "srv", "effects": {"t": ["teleports"]}},
    ],
)
def test_configs_that_cannot_work_are_refused(fields: dict) -> None:
    with pytest.raises(ValidationError):
        McpServerConfig(name="s", **fields)


def test_stdio_config_becomes_an_adapter_connection(tmp_path: Path) -> None:
    config = McpServerConfig(
        name="s", transport="stdio", command="uvx", args=["srv", "--fast"], env={"KEY": "${HOME}"}, cwd=tmp_path
    )
    assert config.connection() == {
        "transport": "stdio",
        "command": "uvx",
        "args": ["srv", "--fast"],
        "env": {"KEY": "${HOME}"},
        "cwd": tmp_path,
    }
    assert config.describe() == "stdio: uvx srv --fast"


def test_http_config_becomes_an_adapter_connection() -> None:
    config = McpServerConfig(name="s", transport="streamable_http", url="http://127.0.0.1:9/mcp", headers={"X-K": "v"})
    assert config.connection() == {
        "transport": "streamable_http",
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"X-K": "v"},
    }


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, DEFAULT_EFFECTS),
        (ToolAnnotations(), {Effect.COST_BEARING}),
        (ToolAnnotations(readOnlyHint=True), {Effect.READ_ONLY}),
        (ToolAnnotations(readOnlyHint=True, destructiveHint=True), {Effect.READ_ONLY}),
        (ToolAnnotations(destructiveHint=True), {Effect.COST_BEARING, Effect.DESTRUCTIVE}),
        (ToolAnnotations(readOnlyHint=False, destructiveHint=False), {Effect.COST_BEARING}),
    ],
)
def test_effects_derive_from_annotations(annotations: ToolAnnotations | None, expected: set[Effect]) -> None:
    config = McpServerConfig(name="s", transport="stdio", command="srv")
    assert config.effects_for("t", annotations) == expected


def test_an_override_wins_over_annotations() -> None:
    config = McpServerConfig(
        name="s",
        transport="stdio",
        command="srv",
        effects={"t": frozenset({Effect.GENERATES_MEDIA, Effect.LONG_RUNNING})},
    )
    assert config.effects_for("t", ToolAnnotations(readOnlyHint=True)) == {Effect.GENERATES_MEDIA, Effect.LONG_RUNNING}
    assert config.effects_for("other", None) == DEFAULT_EFFECTS


def test_tool_names_are_prefixed_and_sanitised() -> None:
    assert mcp_tool_name("studio", "word_count") == "mcp__studio__word_count"
    assert mcp_tool_name("my.server", "render image/v2") == "mcp__my_server__render_image_v2"


def test_long_tool_names_are_cut_to_64_and_stay_distinct() -> None:
    first = mcp_tool_name("a-rather-long-server-name", "generate_a_very_detailed_moodboard_for_the_first_scene")
    second = mcp_tool_name("a-rather-long-server-name", "generate_a_very_detailed_moodboard_for_the_second_scene")
    assert len(first) == len(second) == MAX_TOOL_NAME
    assert first != second
    assert first.startswith("mcp__a-rather-long-server-name__generate_a_very")


def test_effects_in_a_project_file_are_effect_names() -> None:
    config = McpServerConfig.model_validate(
        {"name": "s", "transport": "stdio", "command": "srv", "effects": {"t": ["read_only", "long_running"]}}
    )
    assert config.effects == {"t": frozenset({Effect.READ_ONLY, Effect.LONG_RUNNING})}
