"""The canvas as tools, skills and evaluators see it: reads only, with no way back to the store.

Installed Python (tools, skills) is trusted like a library but handed a narrow
interface, so a mistake cannot write around the grant (docs/grants.md).  A
:class:`ReadOnlyCanvas` forwards the store's read methods and nothing else: it
has no ``apply``, no driver, no ticket authority, and no attribute, slot or
``__dict__`` that leads to the store.  The store it reads is looked up in a
module-private weak map keyed by the reader, so walking the reader's
attributes finds nothing to write with.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from store.base import LineageEntry, Neighbour, QueryResult
from store.kinds import KindRegistry
from store.models import CanvasDiff, CanvasEdge, CanvasNode, CanvasSnapshot, CommitRecord, Direction, EdgeType

_BACKING: weakref.WeakKeyDictionary[ReadOnlyCanvas, Any] = weakref.WeakKeyDictionary()


class ReadOnlyCanvas:
    """Read access to one canvas store; every method forwards to the store's read method of the same name."""

    __slots__ = ("__weakref__",)

    def __init__(self, store: Any) -> None:
        _BACKING[self] = store

    def __repr__(self) -> str:
        return "ReadOnlyCanvas()"

    def __reduce__(self) -> Any:
        raise TypeError("a ReadOnlyCanvas cannot be pickled or copied; pass the reader itself")

    @property
    def kinds(self) -> KindRegistry:
        """The node kinds the canvas knows (for a friendly 'unknown kind' message before commit)."""
        return _store(self).kinds

    def get_node(self, node_id: str, *, include_deleted: bool = False) -> CanvasNode:
        """One node by id; ``NodeNotFound`` if absent."""
        return _store(self).get_node(node_id, include_deleted=include_deleted)

    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]:
        """Nodes by id, in order; ``NodeNotFound`` for any missing one."""
        return _store(self).get_nodes(node_ids, include_deleted=include_deleted)

    def neighbours(self, node_id: str, edge_types: Sequence[EdgeType] | None = None,
                   direction: Direction = Direction.OUT) -> list[Neighbour]:
        """Nodes one edge away, with the edge."""
        return _store(self).neighbours(node_id, edge_types, direction)

    def lineage(self, node_id: str, edge_types: Sequence[EdgeType] | None = None,
                direction: Direction = Direction.OUT, max_depth: int | None = None) -> list[LineageEntry]:
        """Nodes reached over paths of the given edge types, with their depth."""
        return _store(self).lineage(node_id, edge_types, direction, max_depth)

    def neighbours_of(self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
                      direction: Direction = Direction.OUT) -> dict[str, list[Neighbour]]:
        """The neighbours of several nodes at once (one query), each as :meth:`neighbours` gives them."""
        return _store(self).neighbours_of(node_ids, edge_types, direction)

    def lineages(self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
                 direction: Direction = Direction.OUT, *, max_depth: int | None = None,
                 with_start: bool = False) -> dict[str, list[LineageEntry]]:
        """The lineages of several nodes at once (one query), each as :meth:`lineage` gives it."""
        return _store(self).lineages(node_ids, edge_types, direction, max_depth=max_depth, with_start=with_start)

    def find_nodes(self, **filters: Any) -> list[CanvasNode]:
        """Nodes by kind, status or group (the store's ``find_nodes`` filters)."""
        return _store(self).find_nodes(**filters)

    def edges(self, node_ids: Sequence[str] | None = None) -> list[CanvasEdge]:
        """Edges touching these nodes (all edges when None)."""
        return _store(self).edges(node_ids)

    def node_history(self, node_id: str) -> list[CanvasNode]:
        """Every stored version of a node, oldest first."""
        return _store(self).node_history(node_id)

    def node_histories(self, node_ids: Sequence[str]) -> dict[str, list[CanvasNode]]:
        """Every stored version of several nodes, oldest first (one read)."""
        return _store(self).node_histories(node_ids)

    def turns(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded turns, oldest first (request, canvas versions before and after, thread)."""
        return _store(self).turns(thread_id)

    def snapshot(self, canvas_version: int | None = None) -> CanvasSnapshot:
        """The canvas as it was at a version (now when None)."""
        return _store(self).snapshot(canvas_version)

    def diff(self, from_version: int, to_version: int | None = None) -> CanvasDiff:
        """What changed between two canvas versions."""
        return _store(self).diff(from_version, to_version)

    def commits(self, *, since_version: int = 0, limit: int | None = None) -> list[CommitRecord]:
        """The commit log after a version."""
        return _store(self).commits(since_version=since_version, limit=limit)

    def commit_for_key(self, idempotency_key: str) -> CommitRecord | None:
        """The commit of an idempotency key, if it was applied."""
        return _store(self).commit_for_key(idempotency_key)

    def canvas_version(self) -> int:
        """The current canvas version."""
        return _store(self).canvas_version()

    def count_nodes(self, *, by: str = "kind", include_deleted: bool = False) -> dict[str, int]:
        """Node counts by kind or status."""
        return _store(self).count_nodes(by=by, include_deleted=include_deleted)

    def query(self, cypher: str, params: dict[str, Any] | None = None, *, timeout_s: float = 10.0,
              row_limit: int = 1000) -> QueryResult:
        """A user query, run by the store as its read-only account (refused at the engine if it writes)."""
        return _store(self).query(cypher, params, timeout_s=timeout_s, row_limit=row_limit)


def _store(reader: ReadOnlyCanvas) -> Any:
    return _BACKING[reader]


def read_only(canvas: Any) -> Any:
    """``canvas`` as a reader: a store with a write side is wrapped, a reader (or None) is returned as is."""
    if canvas is None or isinstance(canvas, ReadOnlyCanvas) or not callable(getattr(canvas, "apply", None)):
        return canvas
    return ReadOnlyCanvas(canvas)

__all__ = ["ReadOnlyCanvas", "read_only"]
