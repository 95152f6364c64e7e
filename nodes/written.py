"""What a batch of mutations writes: every existing canvas node it changes, read from the canvas.

A grant's scope and kinds are checked on these nodes before the bridge issues a
write ticket (``Bridge.authorize``).  The ids come from the canvas, never from
the arguments the model chose to give: an edge named by id is resolved to the
endpoints the edge log recorded for it, and what a status change supersedes is
read from the node's version lineage.  A node is *written* by a batch when

* its own fields change (update, status, delete, move, grouping);
* an edge it is the source of is added or removed (an edge belongs to its source);
* an edge *into* it that changes what it is is added or removed: ``VERSION_OF``
  (a new version supersedes it; taking the edge away makes it current again) and
  ``IN_GROUP`` (the group's members change);
* it is a live earlier version of a node whose status changes, or that is deleted or
  restored, or of the target of a ``VERSION_OF`` edge added or removed: rejecting a
  newer version makes it current again, bringing a set-aside version back (or a new
  version) supersedes it (the ``VERSION_OF`` ancestors that are not rejected);
* it is a group a member leaves (grouping elsewhere, ungrouping) or joins
  (grouping, or creating a node inside it).

Nodes the batch creates are not in the answer (they are the batch's own).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from store.base import LineageEntry
from store.errors import InvalidMutation
from store.models import CanvasNode, Direction, EdgeType, NodeStatus
from store.mutations import (
    CreateNode,
    DeleteNode,
    GroupNodes,
    Link,
    MoveNode,
    SetStatus,
    UngroupNodes,
    Unlink,
    UpdateNode,
)

TARGET_WRITING_EDGES = frozenset({EdgeType.VERSION_OF, EdgeType.IN_GROUP})
"""Edges whose target changes with them: a version supersedes its target, a membership changes its group."""


class WrittenReader(Protocol):
    """The reads :func:`written_node_ids` makes (``Neo4jCanvasStore`` and ``ReadOnlyCanvas`` have them)."""

    def edge_records(self, edge_ids: Sequence[str]) -> dict[str, list[Any]]: ...

    def lineages(self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
                 direction: Direction = Direction.OUT, *, max_depth: int | None = None,
                 with_start: bool = False) -> dict[str, list[LineageEntry]]: ...

    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]: ...


class UnknownEdge(InvalidMutation):
    """An unlink named an edge id that the canvas never had."""

    def __init__(self, edge_id: str) -> None:
        self.edge_id = edge_id
        self.reason = "unknown_edge"
        super().__init__(f"there is no edge with id {edge_id!r}; read the node's edges (read_node) for their ids")


def resolve_edges(reader: WrittenReader, edge_ids: Iterable[str]) -> dict[str, list[Any]]:
    """The edge log's records of each id (:meth:`Neo4jCanvasStore.edge_records`); :class:`UnknownEdge` for any
    id it never saw."""
    wanted = list(dict.fromkeys(edge_ids))
    records = reader.edge_records(wanted) if wanted else {}
    for edge_id in wanted:
        if not records.get(edge_id):
            raise UnknownEdge(edge_id)
    return records


def written_node_ids(reader: WrittenReader, mutations: Sequence[Any]) -> list[str]:
    """Every existing node ``mutations`` write (see the module docstring), in first-seen order.

    At most three reads, each only when the batch needs it: the edge log for unlinks by id, the version
    lineages of nodes whose status changes and of version targets, the current group of regrouped nodes.
    """
    created = {m.id for m in mutations if isinstance(m, CreateNode)}
    records = resolve_edges(reader, (m.edge_id for m in mutations if isinstance(m, Unlink) and m.edge_id))
    written: list[str] = []
    superseding: list[str] = []  # nodes whose live earlier versions the batch may supersede or make current
    regrouped: list[str] = []

    def edge(edge_type: EdgeType | None, source: str | None, target: str | None) -> None:
        if source:
            written.append(source)
        # An edge of unknown type (a malformed unlink the store will refuse) is counted as one that writes both.
        if target and (edge_type is None or EdgeType(edge_type) in TARGET_WRITING_EDGES):
            written.append(target)
        if target and (edge_type is None or EdgeType(edge_type) == EdgeType.VERSION_OF):
            superseding.append(target)  # a version above it supersedes what it superseded, or gives it back

    for mutation in mutations:
        match mutation:
            case CreateNode():
                if mutation.group_id:
                    written.append(mutation.group_id)
            case UpdateNode():
                written.append(mutation.node_id)
                if mutation.status is not None or mutation.undelete:
                    superseding.append(mutation.node_id)
            case SetStatus() | DeleteNode():
                written.append(mutation.node_id)
                superseding.append(mutation.node_id)
            case MoveNode():
                written.append(mutation.node_id)
            case Link():
                edge(mutation.type, mutation.source, mutation.target)
            case Unlink():
                if mutation.edge_id:
                    for record in records[mutation.edge_id]:
                        edge(record.type, record.source, record.target)
                # What the unlink names besides an id counts too (the store refuses a mismatch; nothing is lost).
                if mutation.source or mutation.target:
                    edge(mutation.type, mutation.source, mutation.target)
            case GroupNodes():
                written.extend([mutation.group_id, *mutation.node_ids])
                regrouped.extend(mutation.node_ids)
            case UngroupNodes():
                written.extend([mutation.group_id, *mutation.node_ids])

    versions = _unique(i for i in superseding if i not in created)
    if versions:
        for ancestors in reader.lineages(versions, [EdgeType.VERSION_OF], Direction.OUT).values():
            written.extend(e.node.id for e in ancestors if e.node.status != NodeStatus.REJECTED)
    members = _unique(i for i in regrouped if i not in created)
    if members:  # a missing member is NodeNotFound here, as the store would refuse it
        written.extend(n.group_id for n in reader.get_nodes(members, include_deleted=True) if n.group_id)
    return _unique(i for i in written if i not in created)


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


__all__ = ["TARGET_WRITING_EDGES", "UnknownEdge", "WrittenReader", "resolve_edges", "written_node_ids"]
