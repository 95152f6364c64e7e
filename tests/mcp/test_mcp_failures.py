"""What a person sees when an MCP server is missing, dies, hangs or is configured wrongly."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest

from tools.base import Effect, ToolContext, ToolError
from tools.mcp import McpConfigError, McpServerConfig, McpServerError, load_mcp_tools

StdioConfig = Callable[..., McpServerConfig]


def test_a_missing_command_names_the_server_and_the_command(stdio_config: StdioConfig) -> None:
    with pytest.raises(McpServerError, match=r"'studio' \(stdio: /nonexistent/mcp-server\): listing its tools failed"):
        load_mcp_tools([stdio_config(command="/nonexistent/mcp-server", args=[])])


def test_a_server_that_exits_at_start_is_reported(stdio_config: StdioConfig) -> None:
    crashing = stdio_config(args=["-c", "import sys; sys.exit('no GPU found')"])
    with pytest.raises(McpServerError, match="'studio'.*exited or closed its stdout") as err:
        load_mcp_tools([crashing])
    assert isinstance(err.value, ToolError)


def test_an_unreachable_http_server_is_reported() -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/mcp"
    with pytest.raises(McpServerError, match=f"'gone' \\(streamable_http: {url}\\).*ConnectError"):
        load_mcp_tools([McpServerConfig(name="gone", transport="streamable_http", url=url)])


def test_a_call_that_outlives_the_timeout_fails_with_tool_error(http_url: str, ctx: ToolContext) -> None:
    # Only the call has the short limit: listing keeps the default, so a loaded machine cannot fail the listing.
    [slow] = [
        spec
        for spec in load_mcp_tools(
            [McpServerConfig(name="studio", transport="streamable_http", url=http_url, timeout_s=0.5,
                             list_timeout_s=60)]
        )
        if spec.name == "mcp__studio__slow"
    ]
    with pytest.raises(McpServerError, match="calling 'slow' failed: no answer within 0.5 s"):
        slow.run(ctx, slow.args_schema(seconds=30))


def test_effects_in_the_config_override_annotations(http_url: str) -> None:
    config = McpServerConfig(
        name="studio",
        transport="streamable_http",
        url=http_url,
        effects={"palette_for": frozenset({Effect.COST_BEARING})},
    )
    effects = {spec.name: spec.effects for spec in load_mcp_tools([config])}
    assert effects["mcp__studio__palette_for"] == {Effect.COST_BEARING}
    assert effects["mcp__studio__fail"] == {Effect.COST_BEARING, Effect.DESTRUCTIVE}


def test_effects_for_a_tool_the_server_lacks_are_refused(http_url: str) -> None:
    config = McpServerConfig(
        name="studio", transport="streamable_http", url=http_url, effects={"pallete_for": frozenset()}
    )
    with pytest.raises(McpConfigError, match=r"does not list: \['pallete_for'\]"):
        load_mcp_tools([config])


def test_servers_with_the_same_name_are_refused(stdio_config: StdioConfig, http_url: str) -> None:
    twin = McpServerConfig(name="studio", transport="streamable_http", url=http_url)
    with pytest.raises(McpConfigError, match="repeated: \\['studio'\\]"):
        load_mcp_tools([stdio_config(), twin])


def test_several_servers_load_together(stdio_config: StdioConfig, http_url: str) -> None:
    remote = McpServerConfig(name="remote", transport="streamable_http", url=http_url)
    names = [spec.name for spec in load_mcp_tools([stdio_config(name="local"), remote])]
    assert "mcp__local__word_count" in names
    assert "mcp__remote__word_count" in names
    assert len(names) == 12
