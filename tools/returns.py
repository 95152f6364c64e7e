"""What each built-in tool returns: the keys of its observation, as pydantic models.

A tool's observation is the dict a skill gets back from ``ctx.call(tool, ...)`` and the
model reads after a call.  The manifest lists these schemas (``jarvishub tools --json``,
``docs/tools.md``), so a skill author knows that ``create_node`` returns ``created`` and
``generate_image`` returns ``node_id``.  ``tests/tools/test_returns.py`` runs every
built-in tool through the bridge and checks its observation against its model here
(extra keys are refused), so this table cannot drift from what the tools do.

Any tool may instead fail: its observation is then :class:`ToolFailure`.
A skill's tool (``skill__<name>``) returns ``skill`` and the skill's output model's fields.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.native.code import CodeRun


class _Returns(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolFailure(_Returns):
    """What any tool returns instead when it fails (the step is a failed step, the model sees why)."""

    error: str = Field(description="What went wrong, in words the model and a person can act on")
    tool: str
    error_type: str = Field(description="The error's type (QueryBusy: try again in a moment)")
    refused: str | None = Field(default=None, description="For a skill: the bridge's reason for refusing one of its "
                                                          "steps (kind_not_granted, budget, ...)")


class NodeSummary(_Returns):
    """A node as read tools show it."""

    id: str
    kind: str
    title: str
    status: str
    version: int
    group_id: str | None
    inputs: dict[str, Any]
    outputs: list[dict[str, Any]] = Field(description="sha256, mime and size of each artifact")


# -- canvas ---------------------------------------------------------------------------------------------------------
class CreateNodeReturns(_Returns):
    created: str = Field(description="The new node's id")


class UpdateNodeReturns(_Returns):
    updated: str = Field(description="The node's id")


class LinkNodesReturns(_Returns):
    edge_id: str


class UnlinkNodesReturns(_Returns):
    unlinked: dict[str, Any] = Field(description="The arguments that named the edge")


class GroupNodesReturns(_Returns):
    group_id: str = Field(description="The group node (new unless one was given)")


class MoveNodeReturns(_Returns):
    moved: str = Field(description="The node's id")


class SetStatusReturns(_Returns):
    node_id: str
    status: str
    rejected: list[str] | None = Field(default=None, description="Rejecting a current version: the nodes rejected "
                                                                 "with it (what was made from it)")
    restored: list[str] | None = Field(default=None, description="Rejecting a current version: the earlier "
                                                                 "versions made current again")
    superseded: list[str] | None = Field(default=None, description="Reinstating a version: the versions it replaces")
    stale: list[str] | None = Field(default=None, description="Reinstating a version: what is now stale")


class BranchNodeReturns(_Returns):
    branch: str = Field(description="The copy's id (a new version, VERSION_OF the original)")
    of: str = Field(description="The original's id")


class ReadNodeReturns(_Returns):
    node: NodeSummary
    edges_out: list[dict[str, Any]] = Field(description="edge, to, kind, title of each outgoing edge")


class ReadLineageReturns(_Returns):
    node_id: str
    lineage: list[dict[str, Any]] = Field(description="depth and the node summary of each node reached")


class QueryCanvasReturns(_Returns):
    columns: list[str]
    rows: list[dict[str, Any]]
    truncated: bool = Field(description="Whether the row limit cut the result")


class EvaluateNodeReturns(_Returns):
    evaluation_id: str = Field(description="The evaluation node (REFERENCES the node, role evaluates)")
    node_id: str
    score: float = Field(description="0..1: the weakest check's score")
    passed: bool = Field(description="score >= 0.5")
    notes: str
    checks: dict[str, Any] = Field(description="Each check's measure and score (brightness, warmth, colours, ...)")


# -- recovery -------------------------------------------------------------------------------------------------------
class CreateCheckpointReturns(_Returns):
    checkpoint: str = Field(description="The checkpoint node's id")
    canvas_version: int


class RestoreCheckpointReturns(_Returns):
    restored_to: int = Field(description="The canvas version brought back")
    checkpoint: str
    changes: int = Field(description="How many changes the restore made")


class ListAttemptsReturns(_Returns):
    node_id: str
    history: list[dict[str, Any]] = Field(description="version, status, updated_at, error of each stored version")
    versions: list[dict[str, Any]] = Field(description="Other versions: id, status, title, relation (older/newer), "
                                                       "hops, reason")


class MarkStaleReturns(_Returns):
    stale: list[str] = Field(description="Every node marked stale (the node and what was generated from it)")


class RegenerateStaleReturns(_Returns):
    regenerated: list[dict[str, Any]] = Field(description="old, new, title, kind, sha256, cache_hit per node "
                                                          "(or node_id and skipped)")


class VerifyArtifactsReturns(_Returns):
    checked: int
    ok: bool
    broken: list[dict[str, Any]] = Field(description="node_id, sha256, problem (missing, hash mismatch)")


# -- generation -----------------------------------------------------------------------------------------------------
class GeneratedReturns(_Returns):
    """What every generation tool returns: the new node and its artifact."""

    node_id: str = Field(description="The new node (completed, holding the artifact)")
    kind: str = Field(description="image, video or audio")
    sha256: str
    mime: str
    cache_hit: bool = Field(description="True when the same signature was made before: no provider call")
    provider: str
    model: str
    width: int | None = None
    height: int | None = None
    duration_s: float | None = None


# -- native ---------------------------------------------------------------------------------------------------------
class ReadFileReturns(_Returns):
    path: str
    encoding: str
    size: int
    truncated: bool
    content: str = Field(description="UTF-8 text, or base64 with encoding base64")


class WriteFileReturns(_Returns):
    path: str
    size: int
    uri: str
    node_id: str = Field(description="The file node holding the bytes")


class ListFilesReturns(_Returns):
    path: str
    entries: list[dict[str, Any]] = Field(description="path, kind (file, dir, symlink), size")


class RunCodeReturns(CodeRun):
    """What the run did (``tools.native.code.CodeRun``), its files as path, uri and size, and its node."""

    model_config = ConfigDict(extra="forbid")

    files: list[dict[str, Any]] = Field(description="path, uri, size of each file the run made")  # type: ignore[assignment]
    node_id: str = Field(description="The code node")


class RenderPageReturns(_Returns):
    node_id: str = Field(description="The preview image node")
    png: str = Field(description="The PNG artifact's uri")
    width: int
    height: int
    blocked_requests: list[str] = Field(description="URLs the page tried to reach and was refused")


class BuildSlidesReturns(_Returns):
    deck_node_id: str
    pptx: str = Field(description="The .pptx artifact's uri")
    slides: list[dict[str, Any]] = Field(description="node_id and preview (PNG uri) of each slide")


# -- MCP ------------------------------------------------------------------------------------------------------------
class McpToolReturns(_Returns):
    """What every MCP tool returns (its own output schema, if any, applies to ``structured``)."""

    content: list[dict[str, Any]] = Field(description="text blocks inline; image, audio and blob content as artifact "
                                                      "handles")
    is_error: bool
    structured: Any = Field(default=None, description="The server's structured result, when it sends one")


BUILTIN_RETURNS: dict[str, type[BaseModel]] = {
    "create_node": CreateNodeReturns,
    "update_node": UpdateNodeReturns,
    "link_nodes": LinkNodesReturns,
    "unlink_nodes": UnlinkNodesReturns,
    "group_nodes": GroupNodesReturns,
    "move_node": MoveNodeReturns,
    "set_status": SetStatusReturns,
    "branch_node": BranchNodeReturns,
    "read_node": ReadNodeReturns,
    "read_lineage": ReadLineageReturns,
    "query_canvas": QueryCanvasReturns,
    "evaluate_node": EvaluateNodeReturns,
    "create_checkpoint": CreateCheckpointReturns,
    "restore_checkpoint": RestoreCheckpointReturns,
    "list_attempts": ListAttemptsReturns,
    "mark_stale": MarkStaleReturns,
    "regenerate_stale": RegenerateStaleReturns,
    "verify_artifacts": VerifyArtifactsReturns,
    "generate_image": GeneratedReturns,
    "generate_video": GeneratedReturns,
    "generate_audio": GeneratedReturns,
    "assemble_cut": GeneratedReturns,
    "read_file": ReadFileReturns,
    "write_file": WriteFileReturns,
    "list_files": ListFilesReturns,
    "run_code": RunCodeReturns,
    "render_page": RenderPageReturns,
    "build_slides": BuildSlidesReturns,
}
"""The observation model of every built-in tool, by tool name."""

FAMILY_RETURNS: dict[str, type[BaseModel]] = {"mcp": McpToolReturns}
"""The observation model of a whole family's tools, where they share one."""
