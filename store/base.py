"""The canvas store interface: one batch write, a handful of reads.

Shaped like LangGraph's ``BaseStore``: :meth:`CanvasStore.apply` is the only way
to change the canvas, and it takes a batch of mutations plus the write ticket
the validation node issued for exactly that batch.  Everything else reads.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import Field

from store.models import (
    CanvasDiff,
    CanvasEdge,
    CanvasNode,
    CanvasSnapshot,
    CommitRecord,
    DeferredModel,
    Direction,
    EdgeType,
    NodeStatus,
)
from store.tickets import WriteTicket


class QueryResult(DeferredModel):
    """Rows of a read-only user query."""

    columns: list[str]
    rows: list[dict[str, Any]]
    truncated: bool = Field(default=False, description="True when the row limit cut the result.")
    elapsed_ms: float = 0.0


class Neighbour(DeferredModel):
    """A node reached over one edge, with that edge."""

    node: CanvasNode
    edge: CanvasEdge


class LineageEntry(DeferredModel):
    """A node reached over a path of chosen edge types, with its distance in hops."""

    node: CanvasNode
    depth: int


class CanvasReader(Protocol):
    """The read side of the canvas, which tools and evaluators receive (they never get the write side)."""

    def get_node(self, node_id: str, *, include_deleted: bool = False) -> CanvasNode: ...

    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]: ...

    def neighbours(
        self, node_id: str, edge_types: Sequence[EdgeType] | None = None, direction: Direction = Direction.OUT
    ) -> list[Neighbour]: ...

    def lineage(
        self,
        node_id: str,
        edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
        max_depth: int | None = None,
    ) -> list[LineageEntry]: ...

    def neighbours_of(
        self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
    ) -> dict[str, list[Neighbour]]: ...

    def lineages(
        self,
        node_ids: Sequence[str],
        edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
        *,
        max_depth: int | None = None,
        with_start: bool = False,
    ) -> dict[str, list[LineageEntry]]: ...

    def find_nodes(
        self,
        *,
        kind: str | None = None,
        status: NodeStatus | None = None,
        group_id: str | None = None,
        include_deleted: bool = False,
        limit: int | None = None,
    ) -> list[CanvasNode]: ...

    def query(
        self, cypher: str, params: dict[str, Any] | None = None, *, timeout_s: float = 10.0, row_limit: int = 1000,
        budget: str = "user",
    ) -> QueryResult: ...

    def canvas_version(self) -> int: ...

    def commits(self, *, since_version: int = 0, limit: int | None = None) -> list[CommitRecord]: ...

    def edge_records(self, edge_ids: Sequence[str]) -> dict[str, list[Any]]: ...


class CanvasStore(ABC):
    """The canvas: a typed property graph with versioned nodes and a commit log."""

    # -- the one write ------------------------------------------------------
    @abstractmethod
    def apply(
        self,
        mutations: Sequence[Any],
        *,
        ticket: WriteTicket,
        idempotency_key: str | None = None,
        actor: str = "system",
        thread_id: str | None = None,
        action_id: str | None = None,
        observation: dict[str, Any] | None = None,
    ) -> CommitRecord:
        """Apply a batch atomically and return its commit record.

        Raises ``TicketRequired`` without a ticket issued for exactly this batch,
        ``StaleVersion`` when an expected node version is not current,
        ``NodeNotFound`` for unknown ids.  With an ``idempotency_key`` already
        applied, returns the first commit (``replayed=True``) and changes nothing.
        """

    # -- reads ----------------------------------------------------------------
    @abstractmethod
    def get_node(self, node_id: str, *, include_deleted: bool = False) -> CanvasNode:
        """One node by id; ``NodeNotFound`` if absent."""

    @abstractmethod
    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]:
        """Several nodes by id, in the order asked; ``NodeNotFound`` names the first missing id."""

    @abstractmethod
    def neighbours(
        self, node_id: str, edge_types: Sequence[EdgeType] | None = None, direction: Direction = Direction.OUT
    ) -> list[Neighbour]:
        """Nodes one edge away, over the given edge types (all when None)."""

    @abstractmethod
    def lineage(
        self,
        node_id: str,
        edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
        max_depth: int | None = None,
    ) -> list[LineageEntry]:
        """Ancestors (OUT: what this came from) or descendants (IN: what came from this), any depth."""

    @abstractmethod
    def find_nodes(
        self,
        *,
        kind: str | None = None,
        status: NodeStatus | None = None,
        group_id: str | None = None,
        include_deleted: bool = False,
        limit: int | None = None,
    ) -> list[CanvasNode]:
        """Nodes by kind, status and/or group, oldest first."""

    @abstractmethod
    def edges(self, node_ids: Sequence[str] | None = None,
              edge_types: Sequence[EdgeType] | None = None) -> list[CanvasEdge]:
        """Current edges, all or those touching the given nodes; of these types only when given."""

    @abstractmethod
    def node_history(self, node_id: str) -> list[CanvasNode]:
        """Every version a node has had, oldest first (old versions stay readable)."""

    @abstractmethod
    def snapshot(self, canvas_version: int | None = None) -> CanvasSnapshot:
        """The whole canvas as it was at a canvas version (now when None)."""

    @abstractmethod
    def diff(self, from_version: int, to_version: int | None = None) -> CanvasDiff:
        """What changed between two canvas versions."""

    @abstractmethod
    def commits(self, *, since_version: int = 0, limit: int | None = None) -> list[CommitRecord]:
        """The commit log after a canvas version, oldest first."""

    @abstractmethod
    def canvas_version(self) -> int:
        """The current canvas version (0 for an empty canvas)."""

    @abstractmethod
    def count_nodes(self, *, by: str = "kind", include_deleted: bool = False) -> dict[str, int]:
        """Node counts grouped by ``kind`` or ``status``."""

    @abstractmethod
    def query(
        self, cypher: str, params: dict[str, Any] | None = None, *, timeout_s: float = 10.0, row_limit: int = 1000,
        budget: str = "user",
    ) -> QueryResult:
        """Run read-only user Cypher: refused if it writes, always rolled back.

        ``budget``: ``"user"`` for a person's ad-hoc query, ``"agent"`` for the agent's own reads; each has its
        own slots (see ``store.locks``)."""

    @abstractmethod
    def close(self) -> None:
        """Release connections (the engine itself is the engine's business)."""
