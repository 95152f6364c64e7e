"""The canvas store on the official ``neo4j`` driver: one implementation for every Bolt engine.

Layout in the graph (see docs/canvas-schema.md):

* ``(:CanvasNode)`` — the current state of each canvas node, structured fields as JSON strings;
* typed relationships ``REFERENCES``, ``VERSION_OF``, ``GENERATED_FROM``, ``IN_GROUP``, ``CONTINUES``;
* ``(:NodeVersion)`` — one snapshot per node per commit, for history and time travel;
* ``(:EdgeVersion)`` — one record per link and unlink, for time travel of edges;
* ``(:Commit)`` — the commit log, with the idempotency key of each batch;
* ``(:CanvasMeta {key: 'canvas'})`` — the canvas version counter.  Every commit
  increments it in its own transaction, which serialises commits on every engine.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, NamedTuple, TypeVar

import neo4j
from neo4j.exceptions import ClientError, CypherSyntaxError as DriverSyntaxError, Neo4jError, TransientError

from store.base import CanvasStore, LineageEntry, Neighbour, QueryResult
from store.cypher import FixedCypher, check_read_only
from store.engine import CANVAS_META_KEY, Engine, EngineProfile, UserQueries
from store.errors import (
    CypherError,
    CypherSyntaxError,
    CypherWriteRefused,
    InvalidMutation,
    NodeNotFound,
    QueryTimeout,
    StaleVersion,
)
from store.kinds import KindRegistry
from store.locks import ProjectLocks, QueryBudget
from store.models import (
    CanvasDiff,
    CanvasEdge,
    CanvasNode,
    CanvasSnapshot,
    CommitRecord,
    Direction,
    EdgeType,
    NodeStatus,
    Position,
    new_id,
    utc_now,
)
from store.mutations import (
    CreateNode,
    DeleteNode,
    GroupNodes,
    Link,
    MoveNode,
    RecordTurn,
    SetStatus,
    UngroupNodes,
    Unlink,
    UpdateNode,
    touched_node_ids,
)
from store.tickets import TicketAuthority, WriteTicket

T = TypeVar("T")

_RETRY_MARKERS = (
    "concurrent",
    "ConcurrentModification",
    "DuplicatedKey",
    "ConstraintValidationFailed",
    "duplicated key",
    "was modified",
    "NeedRetry",
    "deadlock",
)
_MAX_ATTEMPTS = 12
_SCOPE_EDGES = (EdgeType.GENERATED_FROM, EdgeType.REFERENCES, EdgeType.VERSION_OF, EdgeType.IN_GROUP)


class CanvasOverview(NamedTuple):
    """What a model call's view of the canvas reads (see :meth:`Neo4jCanvasStore.overview`)."""

    lineages: dict[str, list[LineageEntry]]
    counts: list[tuple[str, str, int]]
    recent: list[CanvasNode]


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


def _is_retryable(error: Exception) -> bool:
    if isinstance(error, (TransientError, neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired)):
        # A lost server (a cluster leader's failover) too: every commit carries an idempotency key, so even
        # one whose outcome is unknown (IncompleteCommit) is safe to re-run: the key replays it.
        return True
    if isinstance(error, Neo4jError) and error.is_retryable():
        return True
    text = f"{type(error).__name__} {error}"
    return any(marker.lower() in text.lower() for marker in _RETRY_MARKERS)


class Neo4jCanvasStore(CanvasStore):
    """The canvas on any engine that speaks Bolt and Neo4j Cypher."""

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str,
        *,
        authority: TicketAuthority,
        profile: EngineProfile,
        reader: neo4j.Driver,
        locks: ProjectLocks | None = None,
        kinds: KindRegistry | None = None,
        user_queries: UserQueries | None = None,
    ) -> None:
        self._driver = driver
        self._reader = reader
        self._user_queries = user_queries
        self._locks = locks
        self._database = database
        self._authority = authority
        self._profile = profile
        self.kinds = kinds or KindRegistry.default()
        self._query_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="canvas-query")
        self._listeners: list[Callable[[CommitRecord], None]] = []
        self._lock = threading.Lock()
        self._apply_lock = threading.Lock()

    @classmethod
    def on(
        cls, engine: Engine, database: str, *, authority: TicketAuthority, kinds: KindRegistry | None = None
    ) -> Neo4jCanvasStore:
        """The canvas in ``database`` of ``engine``: writes on its root account, user queries on its reader."""
        return cls(
            engine.driver,
            database,
            authority=authority,
            profile=engine.profile,
            reader=engine.reader_driver,
            locks=engine.locks,
            kinds=kinds,
            user_queries=engine.user_queries,
        )

    @property
    def database(self) -> str:
        """The database this canvas lives in."""
        return self._database

    @property
    def profile(self) -> EngineProfile:
        """What the engine under this store does differently from Neo4j."""
        return self._profile

    def on_commit(self, listener: Callable[[CommitRecord], None]) -> None:
        """Call ``listener`` after each commit this process makes (the UI's live feed uses the log instead)."""
        with self._lock:
            self._listeners.append(listener)

    # -- plumbing ----------------------------------------------------------------
    def _session(self) -> neo4j.Session:
        return self._driver.session(database=self._database)

    def _write(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        """Run ``work`` in one transaction, retrying transient conflicts with jittered backoff."""
        delay = 0.01
        for attempt in range(1, _MAX_ATTEMPTS + 1):
            with self._session() as session:
                tx = _begin_pipelined(session)
                try:
                    result = work(tx)
                    tx.commit()
                    return result
                except Exception as error:
                    if tx.closed() is False:
                        try:
                            tx.rollback()
                        except Exception:  # the engine may already have aborted it
                            pass
                    if attempt < _MAX_ATTEMPTS and not isinstance(error, _Replayed) and _is_retryable(error):
                        time.sleep(delay * (1 + random.random()))
                        delay = min(delay * 2, 0.5)
                        continue
                    raise
        raise AssertionError("unreachable")

    def _read(self, cypher: str, *, on: Callable[[], neo4j.Session] | None = None,
              **params: Any) -> list[dict[str, Any]]:
        """One read statement (in a session of ``on``, default the store's own account); a lost server (a cluster
        leader's failover) is tried again, reads being safe to repeat."""
        delay = 0.05
        for attempt in range(1, _MAX_ATTEMPTS + 1):
            try:
                with (on or self._session)() as session:
                    return session.run(cypher, **params).data()
            except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired):
                if attempt == _MAX_ATTEMPTS:
                    raise
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 1.0)
        raise AssertionError("unreachable")

    # -- the one write -------------------------------------------------------------
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
        batch = list(mutations)
        self._authority.verify(ticket, batch)
        for mutation in batch:
            if isinstance(mutation, CreateNode):
                self.kinds.require(mutation.kind)
        key = idempotency_key or f"auto:{new_id()}"
        # One commit id for every attempt of this call: when a retry finds the key already applied under this
        # id, an earlier attempt committed and only its answer was lost (a failover); it is this call's commit.
        commit_id = new_id()
        # Every commit increments the one canvas counter, so concurrent commits would only conflict and
        # retry (and under load run out of retries): queue them, across this process's threads and,
        # through the project's commit lock, across its processes.
        with self._apply_lock, (self._locks.commit() if self._locks else contextlib.nullcontext()):
            try:
                record = self._write(
                    lambda tx: self._apply_in(tx, batch, key, actor, thread_id, action_id or ticket.action_id,
                                              observation, commit_id)
                )
            except _Replayed as replay:
                record = replay.record
        if record.replayed and record.id == commit_id:
            record = record.model_copy(update={"replayed": False})
        if not record.replayed:
            for listener in list(self._listeners):
                listener(record)
        return record

    def _apply_in(
        self,
        tx: neo4j.ManagedTransaction,
        batch: list[Any],
        key: str,
        actor: str,
        thread_id: str | None,
        action_id: str | None,
        observation: dict[str, Any] | None = None,
        commit_id: str | None = None,
    ) -> CommitRecord:
        # One statement before any change: the replay check, the next canvas version, and every existing node
        # the batch touches (versions are checked before anything is written).
        created_ids = {m.id for m in batch if isinstance(m, CreateNode)}
        # Ids the batch creates are read too: one that exists already (a tool given the id of a node on the
        # canvas) is refused by _BatchState as InvalidMutation, not left to the engine's unique index.
        wanted = sorted({i for m in batch for i in touched_node_ids(m)} | created_ids)
        head = tx.run(
            _COMMIT_HEAD + ("UNWIND $ids AS id OPTIONAL MATCH (n:CanvasNode {id: id}) "
                            f"RETURN {_HEAD_RETURN}, collect(properties(n)) AS nodes" if wanted
                            else f"RETURN {_HEAD_RETURN}, [] AS nodes"),
            key=key, meta=CANVAS_META_KEY, ids=wanted,
        ).single()
        if head is None:
            raise InvalidMutation(f"database {self._database} has no canvas; create it with the engine first")
        if head["c"] is not None:
            raise _Replayed(_commit_from_props(head["c"], replayed=True))
        version = int(head["v"])
        now = utc_now()
        existing = {node.id: node for node in (CanvasNode.from_properties(p) for p in head["nodes"] or [])}
        for mutation in batch:
            expected = getattr(mutation, "expected_version", None)
            node_id = getattr(mutation, "node_id", None)
            if expected is not None and node_id in existing and existing[node_id].version != expected:
                raise StaleVersion(node_id, expected, existing[node_id].version)
            made_from = getattr(mutation, "expected_target_version", None)
            target = getattr(mutation, "target", None)
            if made_from is not None and target in existing and existing[target].version != made_from:
                raise StaleVersion(target, made_from, existing[target].version)

        state = _BatchState(existing=existing, version=version, now=now, actor=actor)
        for mutation in batch:
            state.apply(mutation)

        writes = _WriteChain()
        _chain_nodes(writes, state)
        if state.unlinks:
            # Unlinks are found through the edge log and the graph as the node writes left it: those writes go
            # first, then each unlink, then the rest (rare: regrouping and checkpoint restores).
            writes.run(tx)
            writes = _WriteChain()
            for unlink in state.unlinks:
                self._resolve_unlink(tx, unlink, state)
        record = CommitRecord(
            id=commit_id or new_id(),
            canvas_version=version,
            idempotency_key=key,
            actor=actor,
            thread_id=thread_id,
            action_id=action_id,
            created_at=now,
            node_ids=sorted(state.changed),
            edge_ids=[e["edge_id"] for e in state.edge_log],
            observation=observation or {},
            with_outputs=any(state.nodes[i].outputs for i in state.changed),
        )
        _chain_edges(writes, state)
        for turn in state.turns:
            _chain_turn(writes, turn, version)
        writes.add(
            "CREATE (c:Commit) SET c = $props",
            "c",
            expected=1,
            props={
                "id": record.id,
                "canvas_version": version,
                "idempotency_key": key,
                "actor": actor,
                "thread_id": thread_id,
                "action_id": action_id,
                "created_at": now,
                "node_ids_json": json.dumps(record.node_ids),
                "edge_ids_json": json.dumps(record.edge_ids),
                "observation_json": json.dumps(record.observation, default=str),
            },
        )
        writes.run(tx)
        return record

    def commit_for_key(self, idempotency_key: str) -> CommitRecord | None:
        """The commit already applied under this key, if any (a resumed turn checks before re-running)."""
        rows = self._read(
            "MATCH (c:Commit {idempotency_key: $key}) RETURN properties(c) AS c", key=idempotency_key
        )
        return _commit_from_props(rows[0]["c"], replayed=True) if rows else None

    def turns(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded turns (oldest first) with the ids of the nodes each touched."""
        where = "WHERE t.thread_id = $thread " if thread_id else ""
        rows = self._read(
            f"MATCH (t:Turn) {where}OPTIONAL MATCH (t)-[:TOUCHED]->(n:CanvasNode) "
            "RETURN properties(t) AS t, collect(n.id) AS nodes ORDER BY t.canvas_version",
            **({"thread": thread_id} if thread_id else {}),
        )
        return [{**r["t"], "summary": json.loads(r["t"].get("summary_json") or "{}"), "node_ids": r["nodes"]}
                for r in rows]

    def _resolve_unlink(self, tx: neo4j.ManagedTransaction, unlink: Unlink, state: _BatchState) -> None:
        if unlink.edge_id:
            rows = tx.run(
                "MATCH (h:EdgeVersion {edge_id: $id}) RETURN h.source AS s, h.op AS op ORDER BY h.canvas_version DESC",
                id=unlink.edge_id,
            ).data()
            if not rows or rows[0]["op"] != "link":
                raise InvalidMutation(f"no current edge with id {unlink.edge_id!r}")
            found = tx.run(
                "MATCH (a:CanvasNode {id: $s})-[r]->(b:CanvasNode) WHERE r.id = $id "
                "RETURN r.id AS id, type(r) AS type, a.id AS source, b.id AS target, r.props_json AS props",
                s=rows[0]["s"],
                id=unlink.edge_id,
            ).data()
            # An id with endpoints too names one edge twice: both must agree, or the batch is malformed.
            named = {"type": unlink.type and unlink.type.value, "source": unlink.source, "target": unlink.target}
            if any(value and row[field] != value for row in found for field, value in named.items()):
                raise InvalidMutation(f"edge {unlink.edge_id} is not {unlink.model_dump(exclude_none=True)}")
        else:
            if not (unlink.source and unlink.target and unlink.type):
                raise InvalidMutation("unlink needs an edge_id, or a type with a source and a target")
            # The target is filtered in WHERE, not bound in the pattern: ArcadeDB 26.3 answers a relationship
            # pattern with a property map on *both* ends with no row at all (measured on the cluster's engine).
            found = tx.run(
                f"MATCH (a:CanvasNode {{id: $s}})-[r:{unlink.type.value}]->(b:CanvasNode) WHERE b.id = $t "
                "RETURN r.id AS id, type(r) AS type, a.id AS source, b.id AS target, r.props_json AS props",
                s=unlink.source,
                t=unlink.target,
            ).data()
        if not found:
            raise InvalidMutation(f"nothing to unlink for {unlink.model_dump(exclude_none=True)}")
        ids = [row["id"] for row in found]
        for row in found:
            tx.run(
                f"MATCH (a:CanvasNode {{id: $s}})-[r:{EdgeType(row['type']).value}]->(b) WHERE r.id = $id DELETE r",
                s=row["source"],
                id=row["id"],
            ).consume()
            state.edge_log.append(
                {
                    "edge_id": row["id"],
                    "type": row["type"],
                    "source": row["source"],
                    "target": row["target"],
                    "props_json": row["props"] or "{}",
                    "created_at": state.now,
                    "canvas_version": state.version,
                    "op": "unlink",
                }
            )
        state.unlinked_ids.update(ids)

    # -- reads -----------------------------------------------------------------------
    def get_node(self, node_id: str, *, include_deleted: bool = False) -> CanvasNode:
        return self.get_nodes([node_id], include_deleted=include_deleted)[0]

    def get_nodes(self, node_ids: Sequence[str], *, include_deleted: bool = False) -> list[CanvasNode]:
        ids = list(node_ids)
        if not ids:
            return []
        rows = self._read("MATCH (n:CanvasNode) WHERE n.id IN $ids RETURN properties(n) AS p", ids=ids)
        found = {node.id: node for node in (CanvasNode.from_properties(r["p"]) for r in rows)}
        result = []
        for node_id in ids:
            node = found.get(node_id)
            if node is None or (node.deleted and not include_deleted):
                raise NodeNotFound(node_id)
            result.append(node)
        return result

    def neighbours(
        self, node_id: str, edge_types: Sequence[EdgeType] | None = None, direction: Direction = Direction.OUT
    ) -> list[Neighbour]:
        return self.neighbours_of([node_id], edge_types, direction)[node_id]

    def neighbours_of(
        self, node_ids: Sequence[str], edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
    ) -> dict[str, list[Neighbour]]:
        """:meth:`neighbours` of several nodes in one statement; ``NodeNotFound`` for a missing or deleted one."""
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return {}
        pattern = _rel_pattern(edge_types)
        arrow = {
            Direction.OUT: f"(a)-[r{pattern}]->(b:CanvasNode)",
            Direction.IN: f"(a)<-[r{pattern}]-(b:CanvasNode)",
            Direction.BOTH: f"(a)-[r{pattern}]-(b:CanvasNode)",
        }[Direction(direction)]
        rows = self._read(
            f"UNWIND $ids AS id MATCH (a:CanvasNode {{id: id}}) OPTIONAL MATCH {arrow} "
            "RETURN id, coalesce(a.deleted, false) AS gone, properties(b) AS b, type(r) AS type, "
            "startNode(r).id AS s, endNode(r).id AS t, properties(r) AS r",
            ids=ids,
        )
        found: dict[str, list[Neighbour]] = {}
        for row in rows:
            if row["gone"]:
                continue
            out = found.setdefault(row["id"], [])
            if row["b"] is None:
                continue
            node = CanvasNode.from_properties(row["b"])
            if not node.deleted:
                out.append(Neighbour(node=node, edge=_edge_from(row["type"], row["s"], row["t"], row["r"])))
        for node_id in ids:
            if node_id not in found:
                raise NodeNotFound(node_id)
            found[node_id].sort(key=lambda n: (n.node.created_at, n.node.id))
        return found

    def lineage(
        self,
        node_id: str,
        edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
        max_depth: int | None = None,
    ) -> list[LineageEntry]:
        # Breadth-first, one query per hop: linear in the lineage's size however many
        # paths a diamond-shaped lineage has, which a variable-length pattern is not.
        self.get_node(node_id)
        pattern = _rel_pattern(edge_types)
        arrow = f"(a)-[{pattern}]->(b)" if direction == Direction.OUT else f"(a)<-[{pattern}]-(b)"
        if direction == Direction.BOTH:
            arrow = f"(a)-[{pattern}]-(b)"
        seen: dict[str, int] = {node_id: 0}
        frontier = [node_id]
        depth = 0
        found: list[tuple[int, dict[str, Any]]] = []
        with self._session() as session:
            while frontier and (max_depth is None or depth < max_depth):
                depth += 1
                rows = session.run(
                    f"MATCH (a:CanvasNode) WHERE a.id IN $ids MATCH {arrow} WHERE b:CanvasNode "
                    "RETURN DISTINCT properties(b) AS b",
                    ids=frontier,
                ).data()
                frontier = []
                for row in rows:
                    other = row["b"]["id"]
                    if other not in seen:
                        seen[other] = depth
                        frontier.append(other)
                        found.append((depth, row["b"]))
        entries = [LineageEntry(node=CanvasNode.from_properties(p), depth=d) for d, p in found]
        return [e for e in entries if not e.node.deleted]

    def scope_facts(self, node_ids: Sequence[str], roots: Sequence[str]) -> dict[str, ScopeFacts]:
        """What a grant's checks need of each node, in one statement: its kind and group, whether it is deleted,
        and whether it derives from one of ``roots`` (a live root reached over outgoing lineage edges).

        Missing ids are absent from the answer.  The lineage edges are the ones a scope's ``descendants_of``
        follows: GENERATED_FROM, REFERENCES, VERSION_OF and IN_GROUP.
        """
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return {}
        derived = "false AS derived"
        if roots:
            # Any live root among the node's ancestors, as a pattern inside the row: one row per node.  The
            # engine walks the node's ancestor paths (a lineage is a small DAG; no hop limit, as lineage has none).
            derived = ("size([(n)-[" + _rel_pattern(_SCOPE_EDGES) + "*1..]->(r:CanvasNode) "
                       "WHERE r.id IN $roots AND (r.deleted IS NULL OR r.deleted = false) | r.id]) > 0 AS derived")
        rows = self._read(
            "UNWIND $ids AS id MATCH (n:CanvasNode {id: id}) "
            f"RETURN n.id AS id, n.kind AS kind, n.group_id AS group_id, coalesce(n.deleted, false) AS deleted, "
            f"{derived}",
            ids=ids, roots=list(roots),
        )
        return {r["id"]: ScopeFacts(group_id=r["group_id"], deleted=bool(r["deleted"]), derived=bool(r["derived"]),
                                    kind=r["kind"] or "") for r in rows}

    def edge_records(self, edge_ids: Sequence[str]) -> dict[str, list[EdgeRecord]]:
        """Every (type, source, target) the edge log holds under each edge id, and whether that edge is live now.

        An edge id names one edge for its whole life, so its endpoints come from the log (indexed by edge id),
        not from the caller: the bridge resolves an unlink by id to the nodes it really touches before it
        issues a ticket.  Ids the log never saw are absent from the answer.
        """
        ids = list(dict.fromkeys(edge_ids))
        if not ids:
            return {}
        rows = self._read(
            "UNWIND $ids AS id MATCH (h:EdgeVersion {edge_id: id}) "
            "RETURN h.edge_id AS id, h.type AS type, h.source AS s, h.target AS t, h.op AS op, "
            "h.canvas_version AS v ORDER BY v",
            ids=ids,
        )
        last: dict[str, dict[tuple[str, str, str], tuple[int, bool]]] = {}
        for row in rows:
            found = last.setdefault(row["id"], {})
            key, version = (row["type"], row["s"], row["t"]), int(row["v"] or 0)
            linked = row["op"] == "link"
            if key in found and found[key][0] == version:
                linked = linked and found[key][1]  # one commit linked and unlinked it: it is not left standing
            found[key] = (version, linked)
        return {edge_id: [EdgeRecord(EdgeType(t), s, tg, live) for (t, s, tg), (_, live) in found.items()]
                for edge_id, found in last.items()}

    def lineages(
        self,
        node_ids: Sequence[str],
        edge_types: Sequence[EdgeType] | None = None,
        direction: Direction = Direction.OUT,
        *,
        max_depth: int | None = None,
        with_start: bool = False,
    ) -> dict[str, list[LineageEntry]]:
        """The lineage of several nodes in one statement: for each, the live nodes reached over ``edge_types``
        (all when None) in ``direction``, nearest first, with their depth in hops, as :meth:`lineage` gives it.
        ``with_start``: each list begins with the start node itself at depth 0 (the caller needs no separate
        read of the nodes); a missing or deleted start node's list is empty.

        One variable-length pattern per start node, each reached node once at its shortest distance.  A
        lineage is a small DAG (versions, references, what a node was generated from), so its paths are few;
        :meth:`lineage` walks hop by hop for the general case.  Missing start nodes get an empty list.
        """
        roots = list(dict.fromkeys(node_ids))
        if not roots:
            return {}
        low = 0 if with_start else 1
        pattern = _rel_pattern(edge_types) + f"*{low}.." + ("" if max_depth is None else str(int(max_depth)))
        arrow = {Direction.OUT: f"(a)-[{pattern}]->(b:CanvasNode)", Direction.IN: f"(a)<-[{pattern}]-(b:CanvasNode)",
                 Direction.BOTH: f"(a)-[{pattern}]-(b:CanvasNode)"}[Direction(direction)]
        result: dict[str, list[LineageEntry]] = {root: [] for root in roots}
        if max_depth is not None and max_depth < low:
            return result
        rows = self._read(
            f"UNWIND $ids AS id MATCH (a:CanvasNode {{id: id}}) MATCH p = {arrow} "
            "WITH id, b, min(length(p)) AS depth RETURN id, properties(b) AS b, depth",
            ids=roots,
        )
        return _lineage_entries(roots, ((r["id"], int(r["depth"]), r["b"]) for r in rows), with_start=with_start)

    def overview(
        self, focus_ids: Sequence[str], *, max_depth: int, since_version: int, recent: int
    ) -> CanvasOverview:
        """What a model call's view reads, in one statement: the focus nodes with their lineages (outgoing edges
        of every type, as :meth:`lineages` with ``with_start``), the live nodes' counts by kind and status, and
        the ``recent`` live nodes written after ``since_version``, most recently written first (each node
        carries the canvas version that last wrote it, so the commit log need not be read)."""
        live = "(n.deleted IS NULL OR n.deleted = false)"
        rows = self._read(
            f"MATCH (n:CanvasNode) WHERE {live} "
            "RETURN 'count' AS part, n.kind AS key, n.status AS status, count(n) AS num, null AS p "
            # The recent nodes through the (indexed) node history of the last commits, not a scan of the canvas.
            "UNION ALL MATCH (h:NodeVersion) WHERE h.canvas_version > $since WITH DISTINCT h.node_id AS id "
            f"MATCH (n:CanvasNode {{id: id}}) WHERE {live} "
            "WITH n ORDER BY n.canvas_version DESC, n.id LIMIT $recent "
            "RETURN 'recent' AS part, null AS key, null AS status, null AS num, properties(n) AS p "
            "UNION ALL UNWIND $ids AS id MATCH (a:CanvasNode {id: id}) "
            f"MATCH path = (a)-[{_rel_pattern(None)}*0..{int(max_depth)}]->(b:CanvasNode) "
            "WITH id, b, min(length(path)) AS depth "
            "RETURN 'lineage' AS part, id AS key, null AS status, depth AS num, properties(b) AS p",
            since=int(since_version), recent=int(recent), ids=list(dict.fromkeys(focus_ids)),
        )
        counts = sorted((r["key"], r["status"], int(r["num"])) for r in rows if r["part"] == "count")
        latest = [CanvasNode.from_properties(r["p"]) for r in rows if r["part"] == "recent"]
        lineages = _lineage_entries(list(dict.fromkeys(focus_ids)),
                                    ((r["key"], int(r["num"]), r["p"]) for r in rows if r["part"] == "lineage"),
                                    with_start=True)
        return CanvasOverview(lineages=lineages, counts=counts, recent=latest)

    def titled(self, groups: Sequence[Sequence[str]], *, limit: int = 3) -> tuple[int, list[list[str]]]:
        """The canvas version and, per group of spellings of a title, the ids of the live, not rejected nodes
        with one of those exact titles, newest version first, at most ``limit`` each: one statement (title index).
        """
        titles = sorted({t for group in groups for t in group})
        by_title = ("UNION ALL MATCH (n:CanvasNode) WHERE n.title IN $titles AND (n.deleted IS NULL OR n.deleted = false) "
                    "AND n.status <> 'rejected' "
                    "RETURN null AS v, n.id AS id, n.title AS title, n.version AS ver, n.created_at AS at")
        rows = self._read(
            "MATCH (m:CanvasMeta {key: $key}) RETURN m.version AS v, null AS id, null AS title, null AS ver, null AS at "
            + (by_title if titles else ""),
            key=CANVAS_META_KEY, titles=titles,
        )
        version = next((int(r["v"]) for r in rows if r["v"] is not None), 0)
        found = sorted((r for r in rows if r["id"] is not None), key=lambda r: (int(r["ver"] or 0), r["at"] or ""),
                       reverse=True)
        return version, [[r["id"] for r in found if r["title"] in set(group)][:limit] for group in groups]

    def find_nodes(
        self,
        *,
        kind: str | None = None,
        status: NodeStatus | None = None,
        group_id: str | None = None,
        include_deleted: bool = False,
        limit: int | None = None,
    ) -> list[CanvasNode]:
        conditions = []
        params: dict[str, Any] = {}
        if kind is not None:
            conditions.append("n.kind = $kind")
            params["kind"] = kind
        if status is not None:
            conditions.append("n.status = $status")
            params["status"] = NodeStatus(status).value
        if group_id is not None:
            conditions.append("n.group_id = $group_id")
            params["group_id"] = group_id
        if not include_deleted:
            conditions.append("(n.deleted IS NULL OR n.deleted = false)")
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        tail = " LIMIT $limit" if limit is not None else ""
        if limit is not None:
            params["limit"] = int(limit)
        rows = self._read(
            f"MATCH (n:CanvasNode) {where} RETURN properties(n) AS p ORDER BY n.created_at, n.id{tail}", **params
        )
        return [CanvasNode.from_properties(r["p"]) for r in rows]

    def artifact_graph(self) -> tuple[list[CanvasNode], list[CanvasEdge]]:
        """The live nodes that have files, and every VERSION_OF and GENERATED_FROM edge, in one statement: what
        ``outputs/`` is planned from (a commit that touches files re-plans it), without reading the whole canvas."""
        rows = self._read(
            "MATCH (n:CanvasNode) WHERE (n.deleted IS NULL OR n.deleted = false) AND n.outputs_json <> '[]' "
            "RETURN properties(n) AS p, null AS type, null AS s, null AS t "
            "UNION ALL MATCH (a:CanvasNode)-[r:VERSION_OF|GENERATED_FROM]->(b:CanvasNode) "
            "RETURN properties(r) AS p, type(r) AS type, a.id AS s, b.id AS t"
        )
        nodes = sorted((CanvasNode.from_properties(r["p"]) for r in rows if r["type"] is None),
                       key=lambda n: (n.created_at, n.id))
        edges = sorted((_edge_from(r["type"], r["s"], r["t"], r["p"]) for r in rows if r["type"] is not None),
                       key=lambda e: (e.canvas_version, e.id))
        return nodes, edges

    def edges(self, node_ids: Sequence[str] | None = None) -> list[CanvasEdge]:
        if node_ids is None:
            rows = self._read(
                "MATCH (a:CanvasNode)-[r]->(b:CanvasNode) "
                "RETURN type(r) AS type, a.id AS s, b.id AS t, properties(r) AS r"
            )
        else:
            rows = self._read(
                "MATCH (a:CanvasNode)-[r]->(b:CanvasNode) WHERE a.id IN $ids OR b.id IN $ids "
                "RETURN type(r) AS type, a.id AS s, b.id AS t, properties(r) AS r",
                ids=list(node_ids),
            )
        return sorted(
            (_edge_from(r["type"], r["s"], r["t"], r["r"]) for r in rows), key=lambda e: (e.canvas_version, e.id)
        )

    def node_history(self, node_id: str) -> list[CanvasNode]:
        rows = self._read(
            "MATCH (h:NodeVersion {node_id: $id}) RETURN h.snapshot_json AS s ORDER BY h.canvas_version",
            id=node_id,
        )
        if not rows:
            raise NodeNotFound(node_id)
        return [CanvasNode.model_validate_json(r["s"]) for r in rows]

    def node_histories(self, node_ids: Sequence[str]) -> dict[str, list[CanvasNode]]:
        """:meth:`node_history` of several nodes in one statement (deleted ones included; a missing id maps to
        an empty list): every stored state of each, oldest first, for reading an output's versions."""
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return {}
        rows = self._read(
            "MATCH (h:NodeVersion) WHERE h.node_id IN $ids "
            "RETURN h.node_id AS id, h.canvas_version AS cv, h.snapshot_json AS s ORDER BY h.canvas_version",
            ids=ids,
        )
        found: dict[str, list[CanvasNode]] = {i: [] for i in ids}
        for row in rows:
            found[row["id"]].append(CanvasNode.model_validate_json(row["s"]))
        return found

    def snapshot(self, canvas_version: int | None = None) -> CanvasSnapshot:
        current = self.canvas_version()
        version = current if canvas_version is None else min(int(canvas_version), current)
        with self._session() as session:
            node_rows = session.run(
                "MATCH (h:NodeVersion) WHERE h.canvas_version <= $v "
                "RETURN h.node_id AS id, h.canvas_version AS cv, h.snapshot_json AS s, h.op AS op",
                v=version,
            ).data()
            edge_rows = session.run(
                "MATCH (h:EdgeVersion) WHERE h.canvas_version <= $v RETURN properties(h) AS h", v=version
            ).data()
        latest: dict[str, dict[str, Any]] = {}
        for row in node_rows:
            if row["id"] not in latest or row["cv"] > latest[row["id"]]["cv"]:
                latest[row["id"]] = row
        nodes = [
            CanvasNode.model_validate_json(r["s"])
            for r in latest.values()
            if r["op"] != "hard_delete"
        ]
        nodes = [n for n in nodes if not n.deleted]
        alive = {n.id for n in nodes}
        edges = [e for e in _edges_from_log([r["h"] for r in edge_rows]) if e.source in alive and e.target in alive]
        nodes.sort(key=lambda n: (n.created_at, n.id))
        return CanvasSnapshot(canvas_version=version, nodes=nodes, edges=edges)

    def diff(self, from_version: int, to_version: int | None = None) -> CanvasDiff:
        to_version = self.canvas_version() if to_version is None else int(to_version)
        with self._session() as session:
            touched = [
                r["id"]
                for r in session.run(
                    "MATCH (h:NodeVersion) WHERE h.canvas_version > $a AND h.canvas_version <= $b "
                    "RETURN DISTINCT h.node_id AS id",
                    a=from_version,
                    b=to_version,
                ).data()
            ]
            history = session.run(
                "MATCH (h:NodeVersion) WHERE h.node_id IN $ids AND h.canvas_version <= $b "
                "RETURN h.node_id AS id, h.canvas_version AS cv, h.snapshot_json AS s, h.op AS op",
                ids=touched,
                b=to_version,
            ).data()
            edge_rows = session.run(
                "MATCH (h:EdgeVersion) WHERE h.canvas_version > $a AND h.canvas_version <= $b "
                "RETURN properties(h) AS h",
                a=from_version,
                b=to_version,
            ).data()
        before: dict[str, tuple[int, dict[str, Any]]] = {}
        after: dict[str, tuple[int, dict[str, Any]]] = {}
        for row in history:
            bucket = before if row["cv"] <= from_version else after
            if row["id"] not in bucket or row["cv"] > bucket[row["id"]][0]:
                bucket[row["id"]] = (row["cv"], row)
        result = CanvasDiff(from_version=from_version, to_version=to_version)
        for node_id in touched:
            old_row = before.get(node_id, (0, None))[1]
            new_row = after[node_id][1]
            old = _live(old_row)
            new = _live(new_row)
            if old is None and new is not None:
                result.added_nodes.append(new)
            elif old is not None and new is None:
                result.removed_nodes.append(old)
            elif old is not None and new is not None:
                result.changed_nodes.append((old, new))
        net: dict[str, dict[str, Any]] = {}
        first_op: dict[str, str] = {}
        for row in sorted((r["h"] for r in edge_rows), key=lambda h: h["canvas_version"]):
            first_op.setdefault(row["edge_id"], row["op"])
            net[row["edge_id"]] = row
        for edge_id, row in net.items():
            edge = _edge_from_log(row)
            if row["op"] == "link" and first_op[edge_id] == "link":
                result.added_edges.append(edge)
            elif row["op"] == "unlink" and first_op[edge_id] == "unlink":
                result.removed_edges.append(edge)
        return result

    def commits(self, *, since_version: int = 0, limit: int | None = None) -> list[CommitRecord]:
        tail = " LIMIT $limit" if limit is not None else ""
        rows = self._read(
            "MATCH (c:Commit) WHERE c.canvas_version > $v RETURN properties(c) AS c ORDER BY c.canvas_version"
            + tail,
            v=since_version,
            **({"limit": int(limit)} if limit is not None else {}),
        )
        return [_commit_from_props(r["c"]) for r in rows]

    def canvas_version(self) -> int:
        rows = self._read("MATCH (m:CanvasMeta {key: $key}) RETURN m.version AS v", key=CANVAS_META_KEY)
        return int(rows[0]["v"]) if rows else 0

    def count_nodes(self, *, by: str = "kind", include_deleted: bool = False) -> dict[str, int]:
        if by not in ("kind", "status"):
            raise ValueError("count_nodes groups by 'kind' or 'status'")
        where = "" if include_deleted else "WHERE n.deleted IS NULL OR n.deleted = false "
        rows = self._read(f"MATCH (n:CanvasNode) {where}RETURN n.{by} AS k, count(n) AS c")
        return {r["k"]: int(r["c"]) for r in rows}

    def fixed_read(self, cypher: FixedCypher, **params: Any) -> list[dict[str, Any]]:
        """Rows of one of JarvisHub's own read statements, outside the user-query budget.

        The layout and the live feed read with fixed Cypher; taking a user-query slot would let a burst of
        user queries stall them.  They run on the read-only account all the same (the engine refuses a
        write), and only a :class:`FixedCypher` is taken, so user text cannot come this way by accident.
        """
        if not isinstance(cypher, FixedCypher):
            raise TypeError("fixed_read runs JarvisHub's own FixedCypher statements; user Cypher goes through query()")
        return self._read(cypher, on=self._reader_session, **params)

    def _reader_session(self) -> neo4j.Session:
        return self._reader.session(database=self._database, default_access_mode=neo4j.READ_ACCESS)

    # -- read-only user Cypher ---------------------------------------------------------
    def query(
        self, cypher: str, params: dict[str, Any] | None = None, *, timeout_s: float = 10.0, row_limit: int = 1000,
        budget: QueryBudget = "user",
    ) -> QueryResult:
        """Run user Cypher on the engine's read-only account, within the project's query budget.

        ``budget`` says whose query it is: a person's (refused with QueryBusy when the user slots are taken)
        or the agent's (``query_canvas``: it waits in line for a slot of the agent's own budget).  The lexical
        check only gives a friendly message early; the account's permissions are the guarantee.
        """
        check_read_only(cypher)
        slot = self._locks.query_slot(budget=budget) if self._locks else contextlib.nullcontext(0)
        slot.__enter__()  # a person's query: QueryBusy at once when the budget is spent; the agent's: it queues
        try:
            future = self._query_pool.submit(self._run_user_query, cypher, dict(params or {}), timeout_s, row_limit)
        except BaseException:
            slot.__exit__(None, None, None)
            raise
        # The slot is given back when the engine is done with the query, not when we stop waiting: an
        # abandoned query still runs on the engine until its statement timeout ends it.
        future.add_done_callback(lambda _: slot.__exit__(None, None, None))
        try:
            return future.result(timeout=timeout_s)
        except FutureTimeout as error:
            raise QueryTimeout(
                f"query ran past its {timeout_s:g} s limit and was abandoned; the engine stops it at its statement "
                "timeout. Narrow the MATCH or add a LIMIT"
            ) from error

    def _run_user_query(
        self, cypher: str, params: dict[str, Any], timeout_s: float, row_limit: int
    ) -> QueryResult:
        if self._user_queries is not None:
            # An engine whose Bolt reader is not enforced (an ArcadeDB 26.3 cluster) runs them its own way.
            return self._user_queries.run(self._database, cypher, params, timeout_s, row_limit)
        started = time.perf_counter()
        with self._reader_session() as session:
            try:
                # EXPLAIN plans without running, on every engine: it surfaces the engine's own
                # syntax message (an explicit transaction on ArcadeDB hides it) and, where the
                # engine reports it faithfully, the query type.
                summary = session.run("EXPLAIN " + cypher, **params).consume()
                if self._profile.explain_reports_query_type:
                    if summary.query_type not in ("r", None):
                        raise CypherWriteRefused(
                            f"the engine classifies this query as '{summary.query_type}', not read-only; "
                            "user Cypher may only read"
                        )
                # Auto-commit on the read-only account: the engine refuses a write before any row comes
                # back (inside an explicit transaction ArcadeDB would only refuse it at commit).  Neo4j
                # kills the query at this timeout; ArcadeDB applies its server-wide statement timeout.
                result = session.run(neo4j.Query(cypher, timeout=timeout_s), params)
                columns = list(result.keys())
                rows: list[dict[str, Any]] = []
                truncated = False
                for record in result:
                    if len(rows) >= row_limit:
                        truncated = True
                        break
                    rows.append({k: _plain(record[k]) for k in columns})
            except DriverSyntaxError as error:
                raise CypherSyntaxError(f"the engine could not parse the query: {error.message}") from error
            except ClientError as error:
                code = (error.code or "").lower()
                if "security" in code or "forbidden" in code:
                    raise CypherWriteRefused(
                        f"the engine refused the query for the read-only account: {error.message}"
                    ) from error
                if "timedout" in code or "timeout" in (error.message or "").lower():
                    raise QueryTimeout(f"the engine stopped the query at its time limit: {error.message}") from error
                if "syntax" in code or "syntax" in (error.message or "").lower():
                    raise CypherSyntaxError(f"the engine could not parse the query: {error.message}") from error
                raise CypherError(f"the engine refused the query: {error.message}") from error
            except Neo4jError as error:
                raise CypherError(f"the query failed on the engine: {error.message}") from error
        return QueryResult(
            columns=columns, rows=rows, truncated=truncated, elapsed_ms=(time.perf_counter() - started) * 1000
        )

    def close(self) -> None:
        self._query_pool.shutdown(wait=False, cancel_futures=True)


class _BatchState:
    """The nodes and edges a batch changes, worked out in memory before anything is written."""

    def __init__(self, *, existing: dict[str, CanvasNode], version: int, now: str, actor: str) -> None:
        self.nodes: dict[str, CanvasNode] = dict(existing)
        self.version = version
        self.now = now
        self.actor = actor
        self.created: set[str] = set()
        self.changed: dict[str, None] = {}  # ordered set
        self.ops: dict[str, str] = {}
        self.hard_deleted: set[str] = set()
        self.links: list[CanvasEdge] = []
        self.unlinks: list[Unlink] = []
        self.unlinked_ids: set[str] = set()
        self.edge_log: list[dict[str, Any]] = []
        self.turns: list[RecordTurn] = []

    def node(self, node_id: str) -> CanvasNode:
        node = self.nodes.get(node_id)
        if node is None or (node.deleted and node_id not in self.created) or node_id in self.hard_deleted:
            raise NodeNotFound(node_id)
        return node

    def touch(self, node: CanvasNode, op: str) -> None:
        # An existing node rises one version per batch however many mutations touch it;
        # a node created in this batch stays at version 1.
        if node.id not in self.changed and node.id not in self.created:
            node.version += 1
        node.updated_at = self.now
        node.canvas_version = self.version
        self.changed[node.id] = None
        if self.ops.get(node.id) != "create" or op == "hard_delete":
            self.ops[node.id] = op

    def apply(self, mutation: Any) -> None:
        match mutation:
            case CreateNode():
                if mutation.id in self.nodes:
                    raise InvalidMutation(f"a node with id {mutation.id} already exists")
                node = CanvasNode(
                    id=mutation.id,
                    kind=mutation.kind,
                    title=mutation.title,
                    status=mutation.status,
                    version=1,
                    position=mutation.position or Position(),
                    group_id=None,
                    inputs=mutation.inputs,
                    outputs=mutation.outputs,
                    metadata={**mutation.metadata, "created_by": mutation.metadata.get("created_by", self.actor)},
                    created_at=self.now,
                    updated_at=self.now,
                    canvas_version=self.version,
                )
                self.nodes[node.id] = node
                self.created.add(node.id)
                self.changed[node.id] = None
                self.ops[node.id] = "create"
                if mutation.group_id:
                    self.apply(GroupNodes(group_id=mutation.group_id, node_ids=[node.id]))
            case UpdateNode():
                if mutation.undelete and mutation.node_id in self.nodes:
                    self.nodes[mutation.node_id].deleted = False
                node = self.node(mutation.node_id)
                if mutation.title is not None:
                    node.title = mutation.title
                if mutation.inputs is not None:
                    node.inputs = dict(mutation.inputs)
                if mutation.inputs_patch:
                    node.inputs = {**node.inputs, **mutation.inputs_patch}
                if mutation.outputs is not None:
                    node.outputs = list(mutation.outputs)
                if mutation.metadata_patch:
                    node.metadata = {**node.metadata, **mutation.metadata_patch}
                if mutation.status is not None:
                    node.status = mutation.status
                if mutation.position is not None:
                    node.position = mutation.position
                self.touch(node, "update")
            case SetStatus():
                node = self.node(mutation.node_id)
                node.status = mutation.status
                if mutation.reason:
                    node.metadata = {**node.metadata, "status_reason": mutation.reason}
                self.touch(node, "set_status")
            case DeleteNode():
                node = self.node(mutation.node_id)
                if mutation.hard:
                    self.touch(node, "hard_delete")
                    node.deleted = True
                    self.hard_deleted.add(node.id)
                else:
                    node.deleted = True
                    self.touch(node, "delete")
            case MoveNode():
                node = self.node(mutation.node_id)
                node.position = mutation.position
                self.touch(node, "move")
            case Link():
                if mutation.source == mutation.target:
                    raise InvalidMutation(f"a node cannot {mutation.type.value} itself ({mutation.source})")
                self.node(mutation.source)
                self.node(mutation.target)
                edge = CanvasEdge(
                    id=mutation.id,
                    type=mutation.type,
                    source=mutation.source,
                    target=mutation.target,
                    properties=mutation.properties,
                    created_at=self.now,
                    canvas_version=self.version,
                )
                self.links.append(edge)
                self.edge_log.append(
                    {
                        "edge_id": edge.id,
                        "type": edge.type.value,
                        "source": edge.source,
                        "target": edge.target,
                        "props_json": json.dumps(edge.properties, sort_keys=True),
                        "created_at": self.now,
                        "canvas_version": self.version,
                        "op": "link",
                    }
                )
            case Unlink():
                self.unlinks.append(mutation)
            case GroupNodes():
                group = self.node(mutation.group_id)
                for member_id in mutation.node_ids:
                    member = self.node(member_id)
                    if member.id == group.id:
                        raise InvalidMutation(f"node {group.id} cannot be in its own group")
                    if member.group_id == group.id:
                        continue
                    if member.group_id:
                        self.unlinks.append(
                            Unlink(type=EdgeType.IN_GROUP, source=member.id, target=member.group_id)
                        )
                    member.group_id = group.id
                    self.touch(member, "group")
                    self.apply(Link(type=EdgeType.IN_GROUP, source=member.id, target=group.id))
            case UngroupNodes():
                for member_id in mutation.node_ids:
                    member = self.node(member_id)
                    if member.group_id != mutation.group_id:
                        raise InvalidMutation(f"node {member_id} is not in group {mutation.group_id}")
                    member.group_id = None
                    self.touch(member, "ungroup")
                    self.unlinks.append(Unlink(type=EdgeType.IN_GROUP, source=member.id, target=mutation.group_id))
            case RecordTurn():
                self.turns.append(mutation)
            case _:
                raise InvalidMutation(f"not a canvas mutation: {mutation!r}")



_COMMIT_HEAD = (
    "OPTIONAL MATCH (c:Commit {idempotency_key: $key}) "
    "WITH c LIMIT 1 "
    # A plain increment: ArcadeDB 26.3 (the HA runtime) adds a CASE expression wrongly in SET. A replay's
    # transaction is rolled back, increment and all.
    "MATCH (m:CanvasMeta {key: $meta}) SET m.version = m.version + 1 "
    "WITH c, m "
)
"""A commit's one read: the commit already made under this key (a replay is rolled back: it changes nothing),
else the next canvas version (incrementing the one counter serialises commits on every engine) and, when the
batch touches existing nodes, those nodes (looked up by id, so the id index answers)."""


class _Replayed(Exception):
    """Raised inside a commit's transaction when its key was applied before: the transaction is rolled back and
    the first commit returned."""

    def __init__(self, record: CommitRecord) -> None:
        super().__init__("replayed")
        self.record = record

_HEAD_RETURN = "CASE WHEN c IS NULL THEN null ELSE properties(c) END AS c, m.version AS v"


class _WriteChain:
    """A commit's writes chained into one statement, so they cost one round trip however many kinds of write.

    Each part ends by counting what it wrote, carried to the end with the counts before it: a part that wrote
    fewer rows than expected shows in the returned counts, and a part that matched nothing leaves the statement
    with no row at all.  Either raises :class:`InvalidMutation`, and the transaction is rolled back.
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._params: dict[str, Any] = {}
        self._checks: list[tuple[str, int | None, str]] = []

    def add(self, clause: str, counted: str, *, expected: int | None, failure: str = "", **params: Any) -> None:
        """Append ``clause`` (its ``$name`` parameters given as keywords; ``{carry}`` stands for the counts so far,
        for a clause with a WITH of its own) and count the rows of ``counted`` it leaves."""
        index = len(self._checks)
        carry = "".join(f"{name}, " for name, _, _ in self._checks)
        text = clause.replace("{carry}", carry)
        for name, value in params.items():
            text = re.sub(rf"\${name}\b", f"$w{index}_{name}", text)
            self._params[f"w{index}_{name}"] = value
        name = f"w{index}"
        self._parts.append(f"{text} WITH {carry}count({counted}) AS {name}")
        self._checks.append((name, expected, failure or f"a commit wrote fewer rows than asked ({clause[:60]}…)"))

    def run(self, tx: neo4j.ManagedTransaction) -> None:
        """Send the chained writes (nothing when there are none) and check every part's count."""
        if not self._parts:
            return
        names = [name for name, _, _ in self._checks]
        row = tx.run(" ".join(self._parts) + " RETURN " + ", ".join(names), self._params).single()
        if row is None:
            raise InvalidMutation("a node or edge endpoint the commit writes is missing; nothing was written")
        for name, expected, failure in self._checks:
            if expected is not None and int(row[name]) != expected:
                raise InvalidMutation(failure)


def _chain_nodes(writes: _WriteChain, state: _BatchState) -> None:
    creates = [state.nodes[i].to_properties() for i in state.changed if i in state.created]
    updates = [
        {"id": i, "props": state.nodes[i].to_properties()}
        for i in state.changed
        if i not in state.created and i not in state.hard_deleted
    ]
    if creates:
        writes.add("UNWIND $rows AS row CREATE (n:CanvasNode) SET n = row", "n", expected=len(creates), rows=creates)
    if updates:
        writes.add("UNWIND $rows AS row MATCH (n:CanvasNode {id: row.id}) SET n = row.props", "n",
                   expected=len(updates), rows=updates)
    if state.hard_deleted:
        writes.add("UNWIND $ids AS id MATCH (n:CanvasNode {id: id}) DETACH DELETE n", "*",
                   expected=len(state.hard_deleted), ids=sorted(state.hard_deleted))
    history = [
        {
            "node_id": i,
            "version": state.nodes[i].version,
            "canvas_version": state.version,
            "snapshot_json": state.nodes[i].model_dump_json(),
            "op": state.ops[i],
        }
        for i in state.changed
    ]
    if history:
        writes.add("UNWIND $rows AS row CREATE (h:NodeVersion) SET h = row", "h", expected=len(history), rows=history)


def _chain_edges(writes: _WriteChain, state: _BatchState) -> None:
    by_type: dict[str, list[dict[str, Any]]] = {}
    for edge in state.links:
        by_type.setdefault(edge.type.value, []).append(
            {"source": edge.source, "target": edge.target, "props": edge.to_properties()}
        )
    for edge_type, rows in by_type.items():
        # Relationship types cannot be parameters; the type comes from the EdgeType enum only.
        writes.add(
            "UNWIND $rows AS row MATCH (a:CanvasNode {id: row.source}), (b:CanvasNode {id: row.target}) "
            f"CREATE (a)-[r:{EdgeType(edge_type).value}]->(b) SET r = row.props",
            "r", expected=len(rows), rows=rows,
            failure=f"could not create every {edge_type} edge: an endpoint is missing",
        )
    if state.edge_log:
        writes.add("UNWIND $rows AS row CREATE (h:EdgeVersion) SET h = row", "h", expected=len(state.edge_log),
                   rows=state.edge_log)


def _chain_turn(writes: _WriteChain, turn: RecordTurn, version: int) -> None:
    # TOUCHED edges to the turn's nodes that still exist (a node may have been hard-deleted since).
    writes.add(
        "CREATE (t:Turn) SET t = $props WITH {carry}t OPTIONAL MATCH (x:CanvasNode) WHERE x.id IN $ids "
        "WITH {carry}t, collect(x) AS xs FOREACH (x IN xs | CREATE (t)-[:TOUCHED]->(x))",
        "t", expected=1, ids=list(turn.node_ids),
        props={
            "id": turn.turn_id,
            "thread_id": turn.thread_id,
            "request": turn.request,
            "canvas_before": turn.canvas_before,
            "canvas_after": turn.canvas_after,
            "canvas_version": version,
            "summary_json": json.dumps(turn.summary, sort_keys=True, default=str),
        },
    )


def _lineage_entries(
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


def _begin_pipelined(session: neo4j.Session) -> neo4j.Transaction:
    """A transaction whose BEGIN goes out with its first statement instead of on its own: a round trip fewer.

    The driver's own ``execute_query`` begins this way; a driver without the switch begins as usual.
    """
    switch = getattr(session, "_pipelined_begin", None)
    with switch if switch is not None else contextlib.nullcontext():
        return session.begin_transaction()


def _rel_pattern(edge_types: Sequence[EdgeType] | None) -> str:
    if not edge_types:
        return ":" + "|".join(e.value for e in EdgeType)
    return ":" + "|".join(EdgeType(e).value for e in edge_types)


def _edge_from(edge_type: str, source: str, target: str, props: dict[str, Any]) -> CanvasEdge:
    return CanvasEdge(
        id=props.get("id") or "",
        type=EdgeType(edge_type),
        source=source,
        target=target,
        properties=json.loads(props.get("props_json") or "{}"),
        created_at=props.get("created_at") or "",
        canvas_version=int(props.get("canvas_version") or 0),
    )


def _edge_from_log(row: dict[str, Any]) -> CanvasEdge:
    return CanvasEdge(
        id=row["edge_id"],
        type=EdgeType(row["type"]),
        source=row["source"],
        target=row["target"],
        properties=json.loads(row.get("props_json") or "{}"),
        created_at=row.get("created_at") or "",
        canvas_version=int(row.get("canvas_version") or 0),
    )


def _edges_from_log(rows: list[dict[str, Any]]) -> list[CanvasEdge]:
    latest: dict[str, dict[str, Any]] = {}
    for row in sorted(rows, key=lambda h: h["canvas_version"]):
        latest[row["edge_id"]] = row
    return sorted(
        (_edge_from_log(r) for r in latest.values() if r["op"] == "link"), key=lambda e: (e.canvas_version, e.id)
    )


def _live(row: dict[str, Any] | None) -> CanvasNode | None:
    if row is None or row["op"] == "hard_delete":
        return None
    node = CanvasNode.model_validate_json(row["s"])
    return None if node.deleted else node


def _commit_from_props(props: dict[str, Any], *, replayed: bool = False) -> CommitRecord:
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


def _plain(value: Any) -> Any:
    """Turn driver values (nodes, relationships, paths, temporals) into JSON-able Python."""
    if isinstance(value, neo4j.graph.Node):
        return {"labels": sorted(value.labels), **{k: _plain(v) for k, v in value.items()}}
    if isinstance(value, neo4j.graph.Relationship):
        return {
            "type": value.type,
            "start": value.start_node.get("id") if value.start_node else None,
            "end": value.end_node.get("id") if value.end_node else None,
            **{k: _plain(v) for k, v in value.items()},
        }
    if isinstance(value, neo4j.graph.Path):
        return {"nodes": [_plain(n) for n in value.nodes], "relationships": [_plain(r) for r in value.relationships]}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "iso_format"):
        return value.iso_format()
    return value
