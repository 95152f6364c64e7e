"""Load the tools of the project's MCP servers as JarvisHub ToolSpecs, so they join the manifest like any tool.

Each server's tools are listed once, through langchain-mcp-adapters'
``MultiServerMCPClient.session`` (which owns the stdio and streamable-HTTP
transports), and each becomes a :class:`~tools.base.ToolSpec` of family
``MCP``.  We call tools on the raw MCP ``ClientSession`` rather than through the
adapter's LangChain tools because those reshape results into chat-message
blocks, refuse audio content and fold ``isError`` into a ToolMessage; the
bridge needs the raw result to store bytes as artifacts and raise ToolError.

Sessions: every listing and every call opens its own session, as the adapter
does by default.  For stdio that means a server process per call (about half a
second for a small Python server); for streamable HTTP it is one HTTP session
per call against a server that keeps running.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, TypeVar

from langchain_mcp_adapters.client import MultiServerMCPClient
from mcp import ClientSession, types
from mcp.shared.exceptions import McpError
from pydantic import BaseModel

from tools.base import ToolContext, ToolFamily, ToolResult, ToolSpec
from tools.mcp._sync import run_sync
from tools.mcp.config import McpServerConfig
from tools.mcp.content import error_text, observation_from_result
from tools.mcp.errors import McpConfigError, McpServerError, McpToolCallError
from tools.mcp.schema import McpArgs, args_model_from_json_schema

MAX_TOOL_NAME = 64
"""Longest tool name model providers accept (OpenAI and Anthropic both stop at 64)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
T = TypeVar("T")


def mcp_tool_name(server: str, tool: str) -> str:
    """The manifest name of an MCP tool: ``mcp__<server>__<tool>``, limited to [A-Za-z0-9_-] and 64 characters.

    A name that would be longer is cut and ends in a short hash of the full
    server and tool names, so two long names that share a start stay distinct.
    """
    name = _UNSAFE.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - len(digest) - 1]}_{digest}"


def load_mcp_tools(servers: Sequence[McpServerConfig]) -> list[ToolSpec]:
    """List every server's tools (all servers at once) and wrap each as a ToolSpec.

    Raises :class:`McpServerError` naming the server when one cannot be started,
    reached or listed, and :class:`McpConfigError` when server names repeat,
    an ``effects`` override names a tool the server does not have, or two tools
    end up with the same manifest name.
    """
    _refuse_repeats([server.name for server in servers], "MCP server names")
    client = MultiServerMCPClient({server.name: server.connection() for server in servers})

    async def list_every_server() -> list[list[types.Tool]]:
        return list(await asyncio.gather(*(_list_tools(client, server) for server in servers)))

    listings = run_sync(list_every_server)
    specs: list[ToolSpec] = []
    for server, listed in zip(servers, listings, strict=True):
        unknown = sorted(set(server.effects) - {tool.name for tool in listed})
        if unknown:
            raise McpConfigError(
                f"MCP server {server.name!r}: effects given for tools it does not list: {unknown}; "
                f"its tools are {sorted(tool.name for tool in listed)}"
            )
        specs.extend(_tool_spec(client, server, tool) for tool in listed)
    _refuse_repeats([spec.name for spec in specs], "MCP tool names after sanitising")
    return specs


def load_available_mcp_tools(entries: Sequence[dict[str, Any]]) -> tuple[list[ToolSpec], dict[str, str]]:
    """The tools of every server that can be configured, started, reached and listed, and, for each server
    that cannot, one line saying why: a broken server disables its own tools only.

    ``entries`` are the project file's ``[[mcp]]`` tables.  Only names that repeat across servers, or tool
    names that collide after sanitising, still raise :class:`McpConfigError` (no server could be told apart).
    """
    failures: dict[str, str] = {}
    servers: list[McpServerConfig] = []
    for number, entry in enumerate(entries, start=1):
        try:
            servers.append(McpServerConfig.model_validate(entry))
        except ValueError as error:  # pydantic's ValidationError is a ValueError
            name = str(entry.get("name") or f"#{number}") if isinstance(entry, dict) else f"#{number}"
            failures[name] = "its [[mcp]] table is invalid: " + " ".join(str(error).split())
    _refuse_repeats([server.name for server in servers], "MCP server names")
    client = MultiServerMCPClient({server.name: server.connection() for server in servers})

    async def list_every_server() -> list[list[types.Tool] | BaseException]:
        return list(await asyncio.gather(*(_list_tools(client, server) for server in servers), return_exceptions=True))

    specs: list[ToolSpec] = []
    for server, listed in zip(servers, run_sync(list_every_server) if servers else [], strict=True):
        if isinstance(listed, BaseException):
            if not isinstance(listed, Exception):
                raise listed  # KeyboardInterrupt, SystemExit: not the server's fault
            failures[server.name] = _one_line(listed)
            continue
        try:
            unknown = sorted(set(server.effects) - {tool.name for tool in listed})
            if unknown:
                raise McpConfigError(f"effects given for tools it does not list: {unknown}")
            specs.extend([_tool_spec(client, server, tool) for tool in listed])
        except (McpConfigError, McpServerError) as error:
            failures[server.name] = _one_line(error)
    _refuse_repeats([spec.name for spec in specs], "MCP tool names after sanitising")
    return specs, failures


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def _tool_spec(client: MultiServerMCPClient, server: McpServerConfig, tool: types.Tool) -> ToolSpec:
    name = mcp_tool_name(server.name, tool.name)
    try:
        args_model = args_model_from_json_schema(f"{name}_args", tool.inputSchema)
    except Exception as exc:  # pydantic's SchemaError (e.g. a bad pattern) is no ValueError
        raise McpServerError(
            f"MCP server {server.name!r} ({server.describe()}): tool {tool.name!r} has an input schema "
            f"JarvisHub cannot turn into arguments: {exc}"
        ) from exc

    def run(ctx: ToolContext, args: BaseModel) -> ToolResult:
        arguments = _arguments(args_model, args)
        result = run_sync(lambda: _call_tool(client, server, tool.name, arguments, ctx.progress))
        if result.isError:
            raise McpToolCallError(f"MCP tool {tool.name!r} on server {server.name!r} failed: {error_text(result)}")
        return ToolResult(observation=observation_from_result(result, ctx.artifacts, tool.name), provider_calls=1)

    return ToolSpec(
        name=name,
        family=ToolFamily.MCP,
        description=tool.description or tool.title or f"{tool.name} (MCP tool of server {server.name})",
        args_schema=args_model,
        effects=server.effects_for(tool.name, tool.annotations),
        run=run,
    )


def _arguments(args_model: type[McpArgs], args: BaseModel) -> dict[str, Any]:
    if not isinstance(args, args_model):
        args = args_model.model_validate(args.model_dump(by_alias=True))
    return args.to_arguments()


async def _list_tools(client: MultiServerMCPClient, server: McpServerConfig) -> list[types.Tool]:
    async def list_all(session: ClientSession) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await session.list_tools(cursor=cursor)
            tools.extend(page.tools)
            if not page.nextCursor or page.nextCursor == cursor:
                return tools
            cursor = page.nextCursor

    limit = server.list_timeout_s or server.timeout_s
    try:
        return await _in_session(client, server, list_all, limit)
    except Exception as exc:
        raise McpServerError(
            f"MCP server {server.name!r} ({server.describe()}): listing its tools failed: "
            f"{_explain(exc, server, limit)}"
        ) from exc


async def _call_tool(
    client: MultiServerMCPClient,
    server: McpServerConfig,
    tool: str,
    arguments: dict[str, Any],
    on_progress: Callable[[str], None] | None,
) -> types.CallToolResult:
    async def report(progress: float, total: float | None, message: str | None) -> None:
        if on_progress is not None:
            on_progress(f"{tool}: {message or (f'{progress:g}/{total:g}' if total else f'{progress:g}')}")

    async def call(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool(tool, arguments, progress_callback=report)

    try:
        return await _in_session(client, server, call, server.timeout_s)
    except _Refused as refused:
        raise McpToolCallError(
            f"MCP server {server.name!r} refused the call to {tool!r}: {refused.error.error.message}"
        ) from refused.error
    except Exception as exc:
        raise McpServerError(
            f"MCP server {server.name!r} ({server.describe()}): calling {tool!r} failed: "
            f"{_explain(exc, server, server.timeout_s)}"
        ) from exc


class _Refused(Exception):
    """The server answered a request with a JSON-RPC error (it is up, it said no)."""

    def __init__(self, error: McpError) -> None:
        super().__init__(str(error))
        self.error = error


async def _in_session(
    client: MultiServerMCPClient, server: McpServerConfig, work: Callable[[ClientSession], Awaitable[T]],
    timeout_s: float,
) -> T:
    # The work's own error is re-raised after the session closes: the MCP SDK
    # can swallow an exception raised inside the session when the client
    # disconnects (langchain-mcp-adapters works around the same thing).
    failure: BaseException | None = None
    async with asyncio.timeout(timeout_s), client.session(server.name) as session:
        try:
            outcome = await work(session)
        except McpError as exc:
            failure = exc if exc.error.code == types.CONNECTION_CLOSED else _Refused(exc)
        except Exception as exc:  # noqa: BLE001 - re-raised below, once the session is closed
            failure = exc
    if failure is not None:
        raise failure
    return outcome


def _explain(exc: BaseException, server: McpServerConfig, timeout_s: float) -> str:
    """One line per root cause: anyio wraps transport failures in (nested) exception groups."""
    parts = []
    for leaf in _leaves(exc):
        if isinstance(leaf, TimeoutError):
            parts.append(f"no answer within {timeout_s:g} s")
        elif isinstance(leaf, McpError) and leaf.error.code == types.CONNECTION_CLOSED and server.transport == "stdio":
            parts.append("the server process exited or closed its stdout (its stderr says why)")
        else:
            parts.append(f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__)
    return "; ".join(dict.fromkeys(parts))


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def _refuse_repeats(names: list[str], what: str) -> None:
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise McpConfigError(f"{what} must be unique; repeated: {repeated}")
