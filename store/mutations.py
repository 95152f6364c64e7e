"""Canvas mutations: the only way the canvas changes.

A batch of these is applied by :meth:`store.base.CanvasStore.apply` in one
transaction.  Every mutation that touches an existing node may carry
``expected_version``; a mismatch raises :class:`~store.errors.StaleVersion` and
the whole batch changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from store.models import ArtifactHandle, DeferredModel, EdgeType, NodeStatus, Position, new_id


class _Base(DeferredModel):
    expected_version: int | None = Field(
        default=None, description="The node version this change was based on; None skips the check."
    )


class CreateNode(DeferredModel):
    """Create a canvas node with a fresh id (or a given one, for idempotent replays)."""

    op: Literal["create_node"] = "create_node"
    id: str = Field(default_factory=new_id)
    kind: str
    title: str = ""
    status: NodeStatus = NodeStatus.PENDING
    position: Position | None = None
    group_id: str | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    outputs: list[ArtifactHandle] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class UpdateNode(_Base):
    """Change a node's editable fields; a ``None`` field is left as it is."""

    op: Literal["update_node"] = "update_node"
    node_id: str
    title: str | None = None
    inputs: dict[str, Any] | None = Field(default=None, description="Replaces inputs wholesale when given.")
    inputs_patch: dict[str, Any] | None = Field(default=None, description="Merged into inputs key by key.")
    outputs: list[ArtifactHandle] | None = None
    metadata_patch: dict[str, Any] | None = None
    status: NodeStatus | None = None
    position: Position | None = None
    undelete: bool = Field(default=False, description="Bring back a soft-deleted node (checkpoint restore).")


class SetStatus(_Base):
    """Set a node's status (selected, rejected, stale, ...)."""

    op: Literal["set_status"] = "set_status"
    node_id: str
    status: NodeStatus
    reason: str | None = None


class DeleteNode(_Base):
    """Delete a node: soft by default, so it stays in history and time travel."""

    op: Literal["delete_node"] = "delete_node"
    node_id: str
    hard: bool = False


class Link(DeferredModel):
    """Add a typed edge between two existing nodes."""

    op: Literal["link"] = "link"
    id: str = Field(default_factory=new_id)
    type: EdgeType
    source: str
    target: str
    properties: dict[str, Any] = Field(default_factory=dict)
    expected_target_version: int | None = Field(
        default=None, description="The target's version the source was made from (a cut's clip): a mismatch raises "
                                  "StaleVersion, so nothing is committed on inputs that changed since they were read."
    )


class Unlink(DeferredModel):
    """Remove edges: by edge id, or every edge of a type between two nodes."""

    op: Literal["unlink"] = "unlink"
    edge_id: str | None = None
    type: EdgeType | None = None
    source: str | None = None
    target: str | None = None


class MoveNode(_Base):
    """Move a node on the canvas (layout); ``pinned`` marks a person's placement."""

    op: Literal["move_node"] = "move_node"
    node_id: str
    position: Position


class GroupNodes(DeferredModel):
    """Put nodes into a group node (IN_GROUP edges and their ``group_id``)."""

    op: Literal["group"] = "group"
    group_id: str
    node_ids: list[str]


class UngroupNodes(DeferredModel):
    """Take nodes out of a group."""

    op: Literal["ungroup"] = "ungroup"
    group_id: str
    node_ids: list[str]


class RecordTurn(DeferredModel):
    """Write the ``(:Turn)`` node of a finished turn and ``TOUCHED`` edges to the nodes it changed."""

    op: Literal["record_turn"] = "record_turn"
    turn_id: str
    thread_id: str
    request: str = ""
    canvas_before: int
    canvas_after: int | None = Field(
        default=None, description="The canvas version the turn left; None: the version just before this record's "
        "own commit (the store fills it in, so the turn need not read it first).")
    node_ids: list[str] = Field(default_factory=list)
    summary: dict[str, Any] = Field(default_factory=dict)


Mutation = Annotated[
    CreateNode
    | UpdateNode
    | SetStatus
    | DeleteNode
    | Link
    | Unlink
    | MoveNode
    | GroupNodes
    | UngroupNodes
    | RecordTurn,
    Field(discriminator="op"),
]
"""Any one canvas mutation (a pydantic discriminated union on ``op``)."""

MUTATION_OPS: tuple[str, ...] = (
    "create_node",
    "update_node",
    "set_status",
    "delete_node",
    "link",
    "unlink",
    "move_node",
    "group",
    "ungroup",
    "record_turn",
)

mutation_adapter: TypeAdapter[Mutation] = TypeAdapter(Mutation, config=ConfigDict(defer_build=True))
mutation_list_adapter: TypeAdapter[list[Mutation]] = TypeAdapter(list[Mutation], config=ConfigDict(defer_build=True))


def batch_digest(mutations: list[Any]) -> str:
    """A stable hash of a batch: the write ticket is bound to exactly this digest."""
    canonical = json.dumps(
        [m.model_dump(mode="json") for m in mutations], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def touched_node_ids(mutation: Any) -> list[str]:
    """Ids of existing nodes a mutation changes or hangs an edge on (not ones it creates)."""
    match mutation:
        case CreateNode():
            return [mutation.group_id] if mutation.group_id else []
        case UpdateNode() | SetStatus() | DeleteNode() | MoveNode():
            return [mutation.node_id]
        case Link():
            return [mutation.source, mutation.target]
        case Unlink():
            return [i for i in (mutation.source, mutation.target) if i]
        case GroupNodes() | UngroupNodes():
            return [mutation.group_id, *mutation.node_ids]
    return []
