"""Canvas engines: what the Neo4j driver talks to.

The store is written once against the ``neo4j`` driver; an :class:`Engine`
supplies the driver, creates databases and their schema, and says what the
engine does and does not do the way Neo4j does (its :class:`EngineProfile`).
Two engines exist: a Neo4j 5 server (``NEO4J_URI``) and the embedded ArcadeDB
server started by :mod:`store.embedded`.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import neo4j

from store.base import QueryResult
from store.locks import ProjectLocks
from store.models import EdgeType

CANVAS_META_KEY = "canvas"


@dataclass(frozen=True)
class EngineProfile:
    """Where an engine differs from Neo4j, as measured (DESIGN.md §2)."""

    name: str
    explain_reports_query_type: bool
    """Neo4j's EXPLAIN tells read from write; ArcadeDB reports ``w`` for every query."""
    server_side_tx_timeout: bool
    """Whether the engine kills a transaction that passes its timeout."""


NEO4J_PROFILE = EngineProfile("neo4j", explain_reports_query_type=True, server_side_tx_timeout=True)
ARCADEDB_PROFILE = EngineProfile("arcadedb", explain_reports_query_type=False, server_side_tx_timeout=False)
"""ArcadeDB ignores Bolt transaction timeouts; its server-wide ``arcadedb.command.timeout`` bounds every statement."""


def _env_number(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


@dataclass(frozen=True)
class EngineLimits:
    """What bounds user queries (DESIGN.md §4, issue #11): enforced by the engine where it can."""

    statement_timeout_s: float = field(default_factory=lambda: _env_number("JARVISHUB_ENGINE_STATEMENT_TIMEOUT_S", 30.0))
    """ArcadeDB: the server kills any statement running longer (it cannot be set per user or per query)."""
    user_row_limit: int = 100_000
    """The read-only account's server-side row cap (ArcadeDB group ``resultSetLimit``)."""
    query_slots: int = field(default_factory=lambda: int(_env_number("JARVISHUB_QUERY_SLOTS", 2)))
    """User queries running at once per project, across processes; more are refused at once."""
    agent_query_slots: int = field(default_factory=lambda: int(_env_number("JARVISHUB_AGENT_QUERY_SLOTS", 2)))
    """The agent's ``query_canvas`` reads running at once per project; more wait in line for a slot."""


class UserQueries(Protocol):
    """Runs one user query as an account that cannot write, and answers in the store's result shape."""

    def run(
        self, database: str, cypher: str, params: dict[str, Any], timeout_s: float, row_limit: int
    ) -> QueryResult:
        """The rows (at most ``row_limit``; ``truncated`` when there were more), or a typed ``CypherError``."""


class Engine(ABC):
    """A running graph engine reachable over Bolt."""

    profile: EngineProfile
    driver: neo4j.Driver
    """The account the store writes with (the bridge's commits and the store's own reads)."""
    reader_driver: neo4j.Driver
    """An account that cannot write: every user-supplied query runs on it."""
    locks: ProjectLocks
    """The project's commit lock and user-query slots."""
    user_queries: UserQueries | None = None
    """Where user queries run when not on ``reader_driver`` over Bolt (an ArcadeDB cluster: its HTTP API)."""
    reader_enforced_over_bolt: bool = True
    """Whether the engine applies the read-only account's permissions to a Bolt session; only then may outside
    tools (which speak Bolt) be given that account."""
    limits: EngineLimits
    default_database: str

    @abstractmethod
    def ensure_database(self, database: str) -> None:
        """Create the database and the canvas schema (indexes, constraints, the version counter) if missing."""

    @abstractmethod
    def drop_database(self, database: str) -> None:
        """Remove a database and its data (tests and `jarvishub` project removal)."""

    @abstractmethod
    def close(self) -> None:
        """Close the drivers; an embedded engine's server lingers for its idle period, then stops."""

    def stop(self, *, wait: bool = True) -> None:
        """Close, and stop a server this project runs now (a Neo4j server is not ours to stop); ``wait=False``
        asks it to stop without waiting for it (Ctrl-C)."""
        self.close()

    @property
    def uri(self) -> str:
        """The Bolt URI, for messages and for other processes."""
        return self._uri

    _uri: str = ""


def init_canvas_meta(driver: neo4j.Driver, database: str) -> None:
    """Create the canvas version counter once; every commit increments it in its transaction."""
    with driver.session(database=database) as session:
        found = session.run(
            "MATCH (m:CanvasMeta {key: $key}) RETURN count(m) AS c", key=CANVAS_META_KEY
        ).single()
        if found and found["c"] == 0:
            try:
                session.run("CREATE (:CanvasMeta {key: $key, version: 0})", key=CANVAS_META_KEY).consume()
            except neo4j.exceptions.Neo4jError:
                # Another process created it first; the unique index turned ours away.
                again = session.run("MATCH (m:CanvasMeta {key: $key}) RETURN count(m) AS c", key=CANVAS_META_KEY)
                if again.single()["c"] == 0:
                    raise


class Neo4jServerEngine(Engine):
    """A Neo4j 5 server, Aura or cluster, chosen with NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE."""

    profile = NEO4J_PROFILE

    def __init__(
        self,
        uri: str,
        user: str,
        password: str,
        database: str = "neo4j",
        *,
        state_dir: Path,
        reader_user: str | None = None,
        reader_password: str | None = None,
        limits: EngineLimits | None = None,
    ) -> None:
        self._uri = uri
        self.driver = neo4j.GraphDatabase.driver(uri, auth=(user, password))
        # User queries run in READ access-mode sessions; on Enterprise, give them an account with the
        # built-in `reader` role (NEO4J_READER_USER / NEO4J_READER_PASSWORD) so the server refuses writes
        # whatever the session says.  Without one, the READ session is the only server-side check.
        self.reader_driver = (
            neo4j.GraphDatabase.driver(uri, auth=(reader_user, reader_password or ""))
            if reader_user
            else self.driver
        )
        self.default_database = database
        self.limits = limits or EngineLimits()
        # Neo4j serialises commits on the counter row itself; the lock only spares this project's
        # processes the retries.
        self.locks = ProjectLocks(state_dir, query_slots=self.limits.query_slots,
                                  agent_query_slots=self.limits.agent_query_slots)

    def ensure_database(self, database: str) -> None:
        if database != self.default_database:
            # Multi-database needs Enterprise; Community answers with a clear error we pass on.
            with self.driver.session(database="system") as session:
                session.run(f"CREATE DATABASE `{database}` IF NOT EXISTS WAIT").consume()
        statements = [
            "CREATE CONSTRAINT canvas_node_id IF NOT EXISTS FOR (n:CanvasNode) REQUIRE n.id IS UNIQUE",
            "CREATE INDEX canvas_node_kind IF NOT EXISTS FOR (n:CanvasNode) ON (n.kind)",
            "CREATE INDEX canvas_node_status IF NOT EXISTS FOR (n:CanvasNode) ON (n.status)",
            "CREATE INDEX canvas_node_group IF NOT EXISTS FOR (n:CanvasNode) ON (n.group_id)",
            "CREATE INDEX canvas_node_title IF NOT EXISTS FOR (n:CanvasNode) ON (n.title)",
            "CREATE INDEX canvas_node_cv IF NOT EXISTS FOR (n:CanvasNode) ON (n.canvas_version)",
            "CREATE INDEX node_version_node IF NOT EXISTS FOR (h:NodeVersion) ON (h.node_id)",
            "CREATE INDEX node_version_cv IF NOT EXISTS FOR (h:NodeVersion) ON (h.canvas_version)",
            "CREATE INDEX edge_version_edge IF NOT EXISTS FOR (h:EdgeVersion) ON (h.edge_id)",
            "CREATE INDEX edge_version_cv IF NOT EXISTS FOR (h:EdgeVersion) ON (h.canvas_version)",
            "CREATE CONSTRAINT commit_key IF NOT EXISTS FOR (c:Commit) REQUIRE c.idempotency_key IS UNIQUE",
            "CREATE INDEX commit_cv IF NOT EXISTS FOR (c:Commit) ON (c.canvas_version)",
            "CREATE CONSTRAINT canvas_meta_key IF NOT EXISTS FOR (m:CanvasMeta) REQUIRE m.key IS UNIQUE",
            "CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (t:Turn) REQUIRE t.id IS UNIQUE",
        ]
        with self.driver.session(database=database) as session:
            for statement in statements:
                session.run(statement).consume()
        init_canvas_meta(self.driver, database)

    def drop_database(self, database: str) -> None:
        if database == self.default_database:
            with self.driver.session(database=database) as session:
                session.run("MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS").consume()
            return
        with self.driver.session(database="system") as session:
            session.run(f"DROP DATABASE `{database}` IF EXISTS").consume()

    def close(self) -> None:
        if self.reader_driver is not self.driver:
            self.reader_driver.close()
        self.driver.close()


ARCADEDB_SCHEMA_SQL: list[str] = [
    "CREATE VERTEX TYPE CanvasNode IF NOT EXISTS",
    "CREATE PROPERTY CanvasNode.id IF NOT EXISTS STRING",
    "CREATE PROPERTY CanvasNode.kind IF NOT EXISTS STRING",
    "CREATE PROPERTY CanvasNode.status IF NOT EXISTS STRING",
    "CREATE PROPERTY CanvasNode.group_id IF NOT EXISTS STRING",
    "CREATE INDEX IF NOT EXISTS ON CanvasNode (id) UNIQUE",
    "CREATE INDEX IF NOT EXISTS ON CanvasNode (kind) NOTUNIQUE",
    "CREATE INDEX IF NOT EXISTS ON CanvasNode (status) NOTUNIQUE",
    "CREATE PROPERTY CanvasNode.title IF NOT EXISTS STRING",
    "CREATE INDEX IF NOT EXISTS ON CanvasNode (title) NOTUNIQUE",
    "CREATE INDEX IF NOT EXISTS ON CanvasNode (group_id) NOTUNIQUE_HASH NULL_STRATEGY SKIP",
    # The view's most recent nodes: a range on the canvas version that last wrote each node (store/bolt/reads.py).
    "CREATE PROPERTY CanvasNode.canvas_version IF NOT EXISTS INTEGER",
    "CREATE INDEX IF NOT EXISTS ON CanvasNode (canvas_version) NOTUNIQUE",
    "CREATE VERTEX TYPE NodeVersion IF NOT EXISTS",
    "CREATE PROPERTY NodeVersion.node_id IF NOT EXISTS STRING",
    "CREATE PROPERTY NodeVersion.canvas_version IF NOT EXISTS INTEGER",
    "CREATE INDEX IF NOT EXISTS ON NodeVersion (node_id) NOTUNIQUE",
    "CREATE INDEX IF NOT EXISTS ON NodeVersion (canvas_version) NOTUNIQUE",
    "CREATE VERTEX TYPE EdgeVersion IF NOT EXISTS",
    "CREATE PROPERTY EdgeVersion.edge_id IF NOT EXISTS STRING",
    "CREATE PROPERTY EdgeVersion.canvas_version IF NOT EXISTS INTEGER",
    "CREATE INDEX IF NOT EXISTS ON EdgeVersion (edge_id) NOTUNIQUE",
    "CREATE INDEX IF NOT EXISTS ON EdgeVersion (canvas_version) NOTUNIQUE",
    "CREATE VERTEX TYPE Commit IF NOT EXISTS",
    "CREATE PROPERTY Commit.idempotency_key IF NOT EXISTS STRING",
    "CREATE PROPERTY Commit.canvas_version IF NOT EXISTS INTEGER",
    "CREATE INDEX IF NOT EXISTS ON Commit (idempotency_key) UNIQUE",
    "CREATE INDEX IF NOT EXISTS ON Commit (canvas_version) NOTUNIQUE",
    "CREATE VERTEX TYPE CanvasMeta IF NOT EXISTS",
    "CREATE PROPERTY CanvasMeta.key IF NOT EXISTS STRING",
    "CREATE INDEX IF NOT EXISTS ON CanvasMeta (key) UNIQUE",
    "CREATE VERTEX TYPE Turn IF NOT EXISTS",
    "CREATE PROPERTY Turn.id IF NOT EXISTS STRING",
    "CREATE INDEX IF NOT EXISTS ON Turn (id) UNIQUE",
    *[f"CREATE EDGE TYPE {edge.value} IF NOT EXISTS" for edge in EdgeType],
    "CREATE EDGE TYPE TOUCHED IF NOT EXISTS",
]
