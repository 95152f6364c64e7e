"""How the canvas lies in the graph, and how its records read back as models.

Layout (see docs/canvas-schema.md):

* ``(:CanvasNode)`` — the current state of each canvas node, structured fields as JSON strings;
* typed relationships ``REFERENCES``, ``VERSION_OF``, ``GENERATED_FROM``, ``IN_GROUP``, ``CONTINUES``;
* ``(:NodeVersion)`` — one snapshot per node per commit, for history and time travel;
* ``(:EdgeVersion)`` — one record per link and unlink, for time travel of edges;
* ``(:Commit)`` — the commit log, with the idempotency key of each batch;
* ``(:CanvasMeta {key: 'canvas'})`` — the canvas version counter.  Every commit
  increments it in its own transaction, which serialises commits on every engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from store.base import LineageEntry
from store.models import CanvasEdge, CanvasNode, CommitRecord, EdgeType

SCOPE_EDGES = (EdgeType.GENERATED_FROM, EdgeType.REFERENCES, EdgeType.VERSION_OF, EdgeType.IN_GROUP)


class CanvasOverview(NamedTuple):
    """What a model call's view of the canvas reads (see :meth:`Neo4jCanvasStore.overview`)."""

    lineages: dict[str, list[LineageEntry]]
    counts: list[tuple[str, str, int]]
    recent: list[CanvasNode]
    version: int | None = None
    """The canvas version the statement read (None on a canvas without its counter)."""
    titles: dict[str, str | None] | None = None
    """The titles of the nodes asked for by id (``named``), deleted ones too; an id not found is left out."""
    listed: list[tuple[str, str | None, str]] | None = None
    """The live nodes of the kind asked for (``listed_kind``): id, title and status, oldest first."""


class EdgeRecord(NamedTuple):
    """An edge as the edge log knows it (see :meth:`Neo4jCanvasStore.edge_records`)."""

    type: EdgeType
    source: str
    target: str
    live: bool


class ScopeFacts(NamedTuple):
    """One node as a grant's scope check sees it (see :meth:`Neo4jCanvasStore.scope_facts`)."""

    group_id: str | None
    deleted: bool
    derived: bool
    kind: str = ""


def lineage_entries(
    roots: list[str], rows: Iterable[tuple[str, int, dict[str, Any]]], *, with_start: bool
) -> dict[str, list[LineageEntry]]:
    """(start id, shortest depth, node properties) rows as each start's lineage, nearest first: deleted nodes
    left out, the start itself first at depth 0 ``with_start`` (else never), a gone start's list empty."""
    result: dict[str, list[LineageEntry]] = {root: [] for root in roots}
    for root, depth, props in rows:
        node = CanvasNode.from_properties(props)
        depth = 0 if node.id == root else depth  # a cycle back to the start is not lineage
        if not node.deleted and (depth > 0 or with_start):
            result[root].append(LineageEntry(node=node, depth=depth))
    for entries in result.values():
        entries.sort(key=lambda e: (e.depth, e.node.created_at, e.node.id))
        if with_start and not (entries and entries[0].depth == 0):
            entries.clear()  # the start node is gone: no lineage, as for a missing one
    return result


def rel_pattern(edge_types: Sequence[EdgeType] | None) -> str:
    """A relationship-type alternation for a pattern (``:A|B``); every canvas edge type when none is given."""
    if not edge_types:
        return ":" + "|".join(e.value for e in EdgeType)
    return ":" + "|".join(EdgeType(e).value for e in edge_types)


def edge_from(edge_type: str, source: str, target: str, props: dict[str, Any]) -> CanvasEdge:
    """A live relationship's properties as a :class:`CanvasEdge`."""
    return CanvasEdge(
        id=props.get("id") or "",
        type=EdgeType(edge_type),
        source=source,
        target=target,
        properties=json.loads(props.get("props_json") or "{}"),
        created_at=props.get("created_at") or "",
        canvas_version=int(props.get("canvas_version") or 0),
    )


def edge_from_log(row: dict[str, Any]) -> CanvasEdge:
    """An ``EdgeVersion`` record as the :class:`CanvasEdge` it logged."""
    return CanvasEdge(
        id=row["edge_id"],
        type=EdgeType(row["type"]),
        source=row["source"],
        target=row["target"],
        properties=json.loads(row.get("props_json") or "{}"),
        created_at=row.get("created_at") or "",
        canvas_version=int(row.get("canvas_version") or 0),
    )


def edges_from_log(rows: list[dict[str, Any]]) -> list[CanvasEdge]:
    """The edges the edge log leaves standing: each edge id's last record, when it is a link."""
    latest: dict[str, dict[str, Any]] = {}
    for row in sorted(rows, key=lambda h: h["canvas_version"]):
        latest[row["edge_id"]] = row
    return sorted(
        (edge_from_log(r) for r in latest.values() if r["op"] == "link"), key=lambda e: (e.canvas_version, e.id)
    )


def live_node(row: dict[str, Any] | None) -> CanvasNode | None:
    """A ``NodeVersion`` row's node, or None when that version is deleted (or there is no row)."""
    if row is None or row["op"] == "hard_delete":
        return None
    node = CanvasNode.model_validate_json(row["s"])
    return None if node.deleted else node


def commit_from_props(props: dict[str, Any], *, replayed: bool = False) -> CommitRecord:
    """A ``Commit`` node's properties as a :class:`CommitRecord`."""
    return CommitRecord(
        id=props["id"],
        canvas_version=int(props["canvas_version"]),
        idempotency_key=props.get("idempotency_key"),
        actor=props.get("actor") or "system",
        thread_id=props.get("thread_id"),
        action_id=props.get("action_id"),
        created_at=props.get("created_at") or "",
        node_ids=json.loads(props.get("node_ids_json") or "[]"),
        edge_ids=json.loads(props.get("edge_ids_json") or "[]"),
        observation=json.loads(props.get("observation_json") or "{}"),
        replayed=replayed,
    )
