"""MCP tools: the project's MCP servers, their tools listed and wrapped as ToolSpecs of family MCP."""

from tools.mcp.config import DEFAULT_EFFECTS, McpServerConfig
from tools.mcp.errors import McpConfigError, McpServerError, McpToolCallError
from tools.mcp.loader import MAX_TOOL_NAME, load_mcp_tools, mcp_tool_name
from tools.mcp.schema import McpArgs, args_model_from_json_schema

__all__ = [
    "DEFAULT_EFFECTS",
    "MAX_TOOL_NAME",
    "McpArgs",
    "McpConfigError",
    "McpServerConfig",
    "McpServerError",
    "McpToolCallError",
    "args_model_from_json_schema",
    "load_mcp_tools",
    "mcp_tool_name",
]
