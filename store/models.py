"""Typed models of the canvas state C_t = (G_t, X_t, M_t, U_t, L_t).

These pydantic models are the boundary between the store and everything else:
nodes (V), typed edges (E), inputs (X), metadata (M), user interaction records
(U) and layout (L).  Neo4j properties cannot hold maps, so the store keeps the
structured fields as JSON strings and these models give them typed access.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from ulid import ULID


def new_id() -> str:
    """A fresh, sortable, never-reused id (ULID)."""
    return str(ULID())


def utc_now() -> str:
    """The current time as an ISO-8601 UTC string (what the store persists)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class DeferredModel(BaseModel):
    """A model whose validator and serializer pydantic builds on first use rather than at import.

    Every command imports all the canvas models, and most use few of them (``status`` and ``query`` build
    none of the mutations): building them all at import cost a CLI command about 15 ms of CPU.
    """

    model_config = ConfigDict(defer_build=True)


class NodeStatus(StrEnum):
    """Where a canvas node is in its life."""

    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    SELECTED = "selected"
    REJECTED = "rejected"
    STALE = "stale"


class EdgeType(StrEnum):
    """The five typed relations of the canvas graph (Neo4j relationship types)."""

    REFERENCES = "REFERENCES"
    VERSION_OF = "VERSION_OF"
    GENERATED_FROM = "GENERATED_FROM"
    IN_GROUP = "IN_GROUP"
    CONTINUES = "CONTINUES"


class Direction(StrEnum):
    """Which way to follow edges from a node."""

    OUT = "out"
    IN = "in"
    BOTH = "both"


class Position(DeferredModel):
    """Where a node sits on the canvas (the L of the canvas state)."""

    model_config = ConfigDict(frozen=True)

    x: float = 0.0
    y: float = 0.0
    pinned: bool = Field(default=False, description="Set by a person dragging; automatic layout keeps it.")


class ArtifactHandle(DeferredModel):
    """A reference to bytes kept in the artifact store; never the bytes themselves."""

    model_config = ConfigDict(frozen=True)

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    mime: str
    size: int = Field(ge=0)
    uri: str = Field(description="Where the artifact store can find it, e.g. artifact://sha256/<hash>.")
    name: str | None = Field(default=None, description="A human-facing file name, if any.")


class Provenance(DeferredModel):
    """Who and what made or changed a node (part of M)."""

    actor: str = Field(default="system", description="agent, skill:<name>, subagent:<id>, person:<name> or system")
    turn_id: str | None = None
    thread_id: str | None = None
    tool: str | None = None
    provider: str | None = None
    model: str | None = None


class CanvasNode(DeferredModel):
    """One typed node v_i = (id, kind, position, inputs, outputs, metadata, status) and its version."""

    id: str = Field(default_factory=new_id)
    kind: str
    title: str = ""
    status: NodeStatus = NodeStatus.PENDING
    version: int = 1
    position: Position = Field(default_factory=Position)
    group_id: str | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    outputs: list[ArtifactHandle] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    deleted: bool = False
    created_at: str = Field(default_factory=utc_now)
    updated_at: str = Field(default_factory=utc_now)
    canvas_version: int = Field(default=0, description="The canvas version that last changed this node.")

    def to_properties(self) -> dict[str, Any]:
        """Flatten into Neo4j-storable properties (scalars and JSON strings)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "status": self.status.value,
            "version": self.version,
            "x": self.position.x,
            "y": self.position.y,
            "pinned": self.position.pinned,
            "group_id": self.group_id,
            "inputs_json": _dumps(self.inputs),
            "outputs_json": _dumps([h.model_dump() for h in self.outputs]),
            "metadata_json": _dumps(self.metadata),
            "deleted": self.deleted,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "canvas_version": self.canvas_version,
        }

    @classmethod
    def from_properties(cls, props: dict[str, Any]) -> CanvasNode:
        """Rebuild a node from the flat properties the store keeps."""
        return cls(
            id=props["id"],
            kind=props["kind"],
            title=props.get("title") or "",
            status=NodeStatus(props.get("status") or NodeStatus.PENDING),
            version=int(props.get("version") or 1),
            position=Position(
                x=float(props.get("x") or 0.0),
                y=float(props.get("y") or 0.0),
                pinned=bool(props.get("pinned") or False),
            ),
            group_id=props.get("group_id"),
            inputs=json.loads(props.get("inputs_json") or "{}"),
            outputs=[ArtifactHandle(**h) for h in json.loads(props.get("outputs_json") or "[]")],
            metadata=json.loads(props.get("metadata_json") or "{}"),
            deleted=bool(props.get("deleted") or False),
            created_at=props.get("created_at") or "",
            updated_at=props.get("updated_at") or "",
            canvas_version=int(props.get("canvas_version") or 0),
        )

    @property
    def provenance(self) -> Provenance:
        """Typed access to the provenance kept in metadata."""
        return Provenance(**self.metadata.get("provenance", {}))


class CanvasEdge(DeferredModel):
    """A typed directed edge between two canvas nodes."""

    id: str = Field(default_factory=new_id)
    type: EdgeType
    source: str
    target: str
    properties: dict[str, Any] = Field(default_factory=dict, description="role, weight, ...")
    created_at: str = Field(default_factory=utc_now)
    canvas_version: int = 0

    def to_properties(self) -> dict[str, Any]:
        """Flatten into Neo4j-storable relationship properties."""
        return {
            "id": self.id,
            "props_json": _dumps(self.properties),
            "created_at": self.created_at,
            "canvas_version": self.canvas_version,
        }


class Interaction(DeferredModel):
    """A person's (or agent's) interaction with the canvas: the U of the canvas state."""

    id: str = Field(default_factory=new_id)
    kind: str = Field(description="selection, edit, feedback, approval, rejection, move, request")
    actor: str
    node_ids: list[str] = Field(default_factory=list)
    payload: dict[str, Any] = Field(default_factory=dict)
    at: str = Field(default_factory=utc_now)


class CommitChanges(DeferredModel):
    """What one commit of this process left on the canvas, as it knew it in its transaction: what a follower of
    the process's commits (``outputs/``) needs to update what it keeps without reading the canvas again."""

    nodes: list[CanvasNode] = Field(default_factory=list, description="Each node it wrote, as it left it.")
    hard_deleted: list[str] = Field(default_factory=list, description="Nodes it removed with their edges.")
    links: list[CanvasEdge] = Field(default_factory=list, description="The edges it made.")
    unlinked: list[str] = Field(default_factory=list, description="Ids of the edges it removed.")


class CommitRecord(DeferredModel):
    """What one applied batch did: the canvas version it produced and the nodes and edges it touched."""

    id: str
    canvas_version: int
    idempotency_key: str | None = None
    actor: str = "system"
    thread_id: str | None = None
    action_id: str | None = None
    created_at: str = Field(default_factory=utc_now)
    node_ids: list[str] = Field(default_factory=list)
    edge_ids: list[str] = Field(default_factory=list)
    replayed: bool = Field(default=False, description="True when the idempotency key had already been applied.")
    observation: dict[str, Any] = Field(
        default_factory=dict, description="What the action reported when it ran (replayed to a resumed run)."
    )
    with_outputs: bool = Field(
        default=False, description="Whether a node the commit wrote has files (outputs/ follows those commits)."
    )
    written: CommitChanges | None = Field(
        default=None, exclude=True,
        description="What the commit changed, when this process made it (never stored; None for a commit read "
                    "back, a replay, or one whose answer was lost).",
    )


class CanvasDiff(DeferredModel):
    """The difference between two canvas versions, node by node and edge by edge."""

    from_version: int
    to_version: int
    added_nodes: list[CanvasNode] = Field(default_factory=list)
    changed_nodes: list[tuple[CanvasNode, CanvasNode]] = Field(default_factory=list)
    removed_nodes: list[CanvasNode] = Field(default_factory=list)
    added_edges: list[CanvasEdge] = Field(default_factory=list)
    removed_edges: list[CanvasEdge] = Field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        """Whether nothing changed between the two versions."""
        return not (
            self.added_nodes or self.changed_nodes or self.removed_nodes or self.added_edges or self.removed_edges
        )


class CanvasSnapshot(DeferredModel):
    """The whole canvas as it was at one canvas version."""

    canvas_version: int
    nodes: list[CanvasNode]
    edges: list[CanvasEdge]


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
