"""The canvas as tools, skills and evaluators see it: reads only, with no way back to the store.

Installed Python (tools, skills) is trusted like a library but handed a narrow
interface, so a mistake cannot write around the grant (docs/grants.md).  A
:class:`ReadOnlyCanvas` offers the store's read methods and nothing else.  It
does not refer to the store in any way Python can follow (attribute, slot,
closure, a method's ``__globals__``, the garbage collector's referents): it
holds a :class:`~tools.sealed.Handle`, and the store's reads are served by a
:class:`~tools.sealed.Desk` that the store itself keeps.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from store.base import LineageEntry, Neighbour, QueryResult
from store.kinds import KindRegistry
from store.models import CanvasDiff, CanvasEdge, CanvasNode, CanvasSnapshot, CommitRecord, Direction, EdgeType
from tools.sealed import Desk, Handle

_READS = frozenset({
    "kinds", "get_node", "get_nodes", "neighbours", "lineage", "neighbours_of", "lineages", "find_nodes", "edges",
    "edge_records", "node_history", "node_histories", "turns", "snapshot", "diff", "commits", "commit_for_key",
    "canvas_version", "count_nodes", "query",
})
_OPENING = threading.Lock()
_DESK_ATTRIBUTE = "_jarvishub_reader_desk"


class _StoreReads:
    """The far side of every reader of one store: the store's reads, served by the store's reader desk."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name not in _READS:
            raise AttributeError(name)
        return getattr(self._store, name)

    def kinds(self) -> KindRegistry:
        # A copy: a reader may check a kind, not register one in the store's registry.
        return KindRegistry(self._store.kinds.all())


def _reader_handle(store: Any) -> Handle:
    """A handle to ``store``'s reader desk, opened on first use and kept by the store (its lifetime is the store's)."""
    with _OPENING:
        kept = getattr(store, _DESK_ATTRIBUTE, None)
        if kept is None:
            reads = _StoreReads(store)
            kept = (reads, Desk(reads, _READS, name="canvas-reader"))
            setattr(store, _DESK_ATTRIBUTE, kept)
    return kept[1].handle()


class ReadOnlyCanvas:
    """Read access to one canvas store; every method is the store's read method of the same name."""

    __slots__ = ("__weakref__", "_reads")

    def __init__(self, store: Any) -> None:
        self._reads = _reader_handle(store)

    def __repr__(self) -> str:
        return "ReadOnlyCanvas()"

    def __reduce__(self) -> Any:
        raise TypeError("a ReadOnlyCanvas cannot be pickled or copied; pass the reader itself")

    @property
    def kinds(self) -> KindRegistry:
        """The node kinds the canvas knows (a copy, for a friendly 'unknown kind' message before commit)."""
        return self._reads.call("kinds")

    def get_node(self, node_id: str, *, include_deleted: bool = False) -> CanvasNode:
        """One node by id; ``NodeNotFound`` if absent."""
        return self._reads.call("get_node", node_id, include_deleted=include_deleted)

    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]:
        """Nodes by id, in order; ``NodeNotFound`` for any missing one."""
        return self._reads.call("get_nodes", node_ids, include_deleted=include_deleted)

    def neighbours(self, node_id: str, edge_types: Sequence[EdgeType] | None = None,
                   direction: Direction = Direction.OUT) -> list[Neighbour]:
        """Nodes one edge away, with the edge."""
        return self._reads.call("neighbours", node_id, edge_types, direction)

    def lineage(self, node_id: str, edge_types: Sequence[EdgeType] | None = None,
                direction: Direction = Direction.OUT, max_depth: int | None = None) -> list[LineageEntry]:
        """Nodes reached over paths of the given edge types, with their depth."""
        return self._reads.call("lineage", node_id, edge_types, direction, max_depth)

    def neighbours_of(self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
                      direction: Direction = Direction.OUT) -> dict[str, list[Neighbour]]:
        """The neighbours of several nodes at once (one query), each as :meth:`neighbours` gives them."""
        return self._reads.call("neighbours_of", node_ids, edge_types, direction)

    def lineages(self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
                 direction: Direction = Direction.OUT, *, max_depth: int | None = None,
                 with_start: bool = False) -> dict[str, list[LineageEntry]]:
        """The lineages of several nodes at once (one query), each as :meth:`lineage` gives it."""
        return self._reads.call("lineages", node_ids, edge_types, direction, max_depth=max_depth,
                                with_start=with_start)

    def find_nodes(self, **filters: Any) -> list[CanvasNode]:
        """Nodes by kind, status or group (the store's ``find_nodes`` filters)."""
        return self._reads.call("find_nodes", **filters)

    def edges(self, node_ids: Sequence[str] | None = None,
              edge_types: Sequence[EdgeType] | None = None) -> list[CanvasEdge]:
        """Edges touching these nodes (all edges when None), of these types when given."""
        return self._reads.call("edges", node_ids, edge_types)

    def edge_records(self, edge_ids: Sequence[str]) -> dict[str, list[Any]]:
        """What the edge log recorded under each edge id: type, source, target, and whether it is live."""
        return self._reads.call("edge_records", edge_ids)

    def node_history(self, node_id: str) -> list[CanvasNode]:
        """Every stored version of a node, oldest first."""
        return self._reads.call("node_history", node_id)

    def node_histories(self, node_ids: Sequence[str]) -> dict[str, list[CanvasNode]]:
        """Every stored version of several nodes, oldest first (one read)."""
        return self._reads.call("node_histories", node_ids)

    def turns(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded turns, oldest first (request, canvas versions before and after, thread)."""
        return self._reads.call("turns", thread_id)

    def snapshot(self, canvas_version: int | None = None) -> CanvasSnapshot:
        """The canvas as it was at a version (now when None)."""
        return self._reads.call("snapshot", canvas_version)

    def diff(self, from_version: int, to_version: int | None = None) -> CanvasDiff:
        """What changed between two canvas versions."""
        return self._reads.call("diff", from_version, to_version)

    def commits(self, *, since_version: int = 0, limit: int | None = None) -> list[CommitRecord]:
        """The commit log after a version."""
        return self._reads.call("commits", since_version=since_version, limit=limit)

    def commit_for_key(self, idempotency_key: str) -> CommitRecord | None:
        """The commit of an idempotency key, if it was applied."""
        return self._reads.call("commit_for_key", idempotency_key)

    def canvas_version(self) -> int:
        """The current canvas version."""
        return self._reads.call("canvas_version")

    def count_nodes(self, *, by: str = "kind", include_deleted: bool = False) -> dict[str, int]:
        """Node counts by kind or status."""
        return self._reads.call("count_nodes", by=by, include_deleted=include_deleted)

    def query(self, cypher: str, params: dict[str, Any] | None = None, *, timeout_s: float = 10.0,
              row_limit: int = 1000, budget: str = "user") -> QueryResult:
        """A user query, run by the store as its read-only account (refused at the engine if it writes);
        ``budget="agent"`` for the agent's own reads, which queue for slots of their own."""
        return self._reads.call("query", cypher, params, timeout_s=timeout_s, row_limit=row_limit, budget=budget)


def read_only(canvas: Any) -> Any:
    """``canvas`` as a reader: a store with a write side is wrapped, a reader (or None) is returned as is."""
    if canvas is None or isinstance(canvas, ReadOnlyCanvas) or not callable(getattr(canvas, "apply", None)):
        return canvas
    return ReadOnlyCanvas(canvas)


__all__ = ["ReadOnlyCanvas", "read_only"]
