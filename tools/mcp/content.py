"""Turn an MCP tool result into a JarvisHub observation: text stays inline, bytes go to the artifact store.

The model sees observations, and the canvas keeps only handles; so image,
audio and blob content is stored with ``ArtifactStore.put_bytes`` and the
observation carries the handle, never base64.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from typing import Any

from mcp import types

from store.artifacts import ArtifactStore
from tools.base import ToolError


def observation_from_result(result: types.CallToolResult, artifacts: ArtifactStore, tool: str) -> dict[str, Any]:
    """The observation for one call: ``content`` blocks, ``structured`` content if any, and ``is_error``.

    Blocks are ``{"type": "text", "text"}``, ``{"type": "image" | "audio", "artifact": <handle>}``,
    ``{"type": "resource", "uri", "text" | "artifact"}`` and ``{"type": "resource_link", "uri", "name", "mime"}``.
    """
    observation: dict[str, Any] = {
        "content": [_block(item, artifacts, f"{tool}-{i}") for i, item in enumerate(result.content)],
        "is_error": result.isError,
    }
    if result.structuredContent is not None:
        observation["structured"] = result.structuredContent
    return observation


def error_text(result: types.CallToolResult) -> str:
    """The text an MCP error result carries, for the ToolError message the model reads."""
    texts = [item.text for item in result.content if isinstance(item, types.TextContent)]
    return "\n".join(texts) or f"no error text ({len(result.content)} non-text content block(s))"


def _block(item: types.ContentBlock, artifacts: ArtifactStore, stem: str) -> dict[str, Any]:
    if isinstance(item, types.TextContent):
        return {"type": "text", "text": item.text}
    if isinstance(item, types.ImageContent | types.AudioContent):
        return {"type": item.type, "artifact": _store(item.data, item.mimeType, artifacts, stem)}
    if isinstance(item, types.ResourceLink):
        return {"type": "resource_link", "uri": str(item.uri), "name": item.name, "mime": item.mimeType}
    if isinstance(item, types.EmbeddedResource):
        resource = item.resource
        block: dict[str, Any] = {"type": "resource", "uri": str(resource.uri), "mime": resource.mimeType}
        if isinstance(resource, types.TextResourceContents):
            return {**block, "text": resource.text}
        mime = resource.mimeType or "application/octet-stream"
        return {**block, "artifact": _store(resource.blob, mime, artifacts, stem)}
    raise ToolError(f"MCP content of type {getattr(item, 'type', type(item).__name__)!r} is not supported")


def _store(data: str, mime: str, artifacts: ArtifactStore, stem: str) -> dict[str, Any]:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ToolError(f"MCP {mime} content for {stem} is not valid base64: {exc}") from exc
    handle = artifacts.put_bytes(raw, mime, name=stem + (mimetypes.guess_extension(mime) or ""))
    return handle.model_dump(mode="json")
