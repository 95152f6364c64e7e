"""The canvas store's one write: a batch of mutations applied in one transaction, under a write ticket.

A commit reads what it needs in one statement (the replay check, the next canvas version, the nodes it touches),
works the batch out in memory (:class:`_BatchState`), then writes it in one chained statement (:class:`_WriteChain`).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import neo4j

from store.bolt.commit_log import CommitLog
from store.bolt.live_counts import CountKey, LiveCounts
from store.bolt.schema import commit_from_props
from store.bolt.session import BoltSession, NotRetried
from store.engine import CANVAS_META_KEY
from store.errors import InvalidMutation, NodeNotFound, StaleVersion
from store.kinds import KindRegistry
from store.locks import ProjectLocks
from store.models import CanvasEdge, CanvasNode, CommitChanges, CommitRecord, EdgeType, Position, new_id, utc_now
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


class CanvasCommits(BoltSession):
    """:meth:`apply`, the store's one write."""

    kinds: KindRegistry
    _authority: TicketAuthority
    _locks: ProjectLocks | None
    _apply_lock: threading.Lock
    _listeners: list[Callable[[CommitRecord], None]]
    _live_counts: LiveCounts
    _commit_log: CommitLog

    def own_commits(self, since_version: int) -> tuple[list[CommitRecord], bool] | None:
        """The commits this process made after ``since_version``, as :meth:`apply` returned them (with what each
        wrote), and whether they are every commit after it up to the newest of them: :meth:`CommitLog.since`."""
        return self._commit_log.since(since_version)

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
        changed: dict[str, list[CountKey]] = {}  # the live nodes' counts it moves, from its last attempt
        with self._apply_lock, (self._locks.commit() if self._locks else contextlib.nullcontext()):
            try:
                record = self._write(
                    lambda tx: self._apply_in(tx, batch, key, actor, thread_id, action_id or ticket.action_id,
                                              observation, commit_id, changed)
                )
            except _Replayed as replay:
                record = replay.record
            if not record.replayed:
                self._live_counts.committed(record.canvas_version, changed["before"], changed["after"])
        if record.replayed and record.id == commit_id:
            record = record.model_copy(update={"replayed": False})
            self._live_counts.committed(record.canvas_version, None, [])  # a lost answer: what it moved is unknown
        if not record.replayed:
            self._commit_log.add(record)
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
        changed: dict[str, list[CountKey]] | None = None,
    ) -> CommitRecord:
        created_ids = {m.id for m in batch if isinstance(m, CreateNode)}
        meta = _CommitMeta(key, actor, thread_id, action_id, observation, commit_id)
        blind = self._apply_blind(tx, batch, meta, changed, created_ids)
        if blind is not None:
            return blind
        # One statement before any change: the replay check, the next canvas version, and every existing node
        # the batch touches (versions are checked before anything is written).
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
            raise _Replayed(commit_from_props(head["c"], replayed=True))
        version = int(head["v"])
        now = utc_now()
        existing = {node.id: node for node in (CanvasNode.from_properties(p) for p in head["nodes"] or [])}
        live_before = {node.id: (node.kind, node.status.value) for node in existing.values() if not node.deleted}
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
        record = _chain_record(writes, state, meta)
        writes.run(tx)
        if changed is not None:
            changed["before"] = [live_before[i] for i in state.changed if i in live_before]
            changed["after"] = _live_after(state)
        return record

    def _apply_blind(self, tx: neo4j.ManagedTransaction, batch: list[Any], meta: _CommitMeta,
                     changed: dict[str, list[CountKey]] | None, created_ids: set[str]) -> CommitRecord | None:
        """A batch that reads nothing (new nodes outside groups, a Turn record) in one statement instead of two:
        worked out at the canvas version after the newest one this process has seen, and written only if the
        canvas is at that version still, the key was not applied and no new id exists (each checked in the
        statement, before the counter moves).  None when it is not such a batch or a check failed (another
        writer's commit, a replay, an id taken): nothing was written, and :meth:`_apply_in` commits it as any batch.
        """
        seen = self._live_counts.seen_version()
        if seen < 0 or not all(isinstance(m, RecordTurn) or (isinstance(m, CreateNode) and not m.group_id)
                               for m in batch):
            return None
        state = _BatchState(existing={}, version=seen + 1, now=utc_now(), actor=meta.actor)
        for mutation in batch:
            state.apply(mutation)
        writes = _WriteChain(carried=["blind"])
        _chain_nodes(writes, state)
        record = _chain_record(writes, state, meta)
        taken = ("UNWIND $blind_ids AS blind_id OPTIONAL MATCH (x:CanvasNode {id: blind_id}) "
                 "WITH c, count(x) AS taken WHERE c IS NULL AND taken = 0 " if created_ids else "WITH c WHERE c IS NULL ")
        head = (
            "OPTIONAL MATCH (c:Commit {idempotency_key: $blind_key}) WITH c LIMIT 1 " + taken
            + "MATCH (m:CanvasMeta {key: $blind_meta}) WITH m WHERE m.version = $blind_seen "
            "SET m.version = m.version + 1 WITH m.version AS blind "
        )
        if not writes.run(tx, head=head, blind_key=meta.key, blind_meta=CANVAS_META_KEY, blind_seen=seen,
                          blind_ids=sorted(created_ids)):
            return None
        if changed is not None:
            changed["before"] = []
            changed["after"] = _live_after(state)
        return record

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


class _Replayed(NotRetried):
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

    def __init__(self, carried: Sequence[str] = ()) -> None:
        self._carried = list(carried)  # variables a ``head`` given to :meth:`run` binds, carried to the end
        self._parts: list[str] = []
        self._params: dict[str, Any] = {}
        self._checks: list[tuple[str, int | None, str]] = []

    def add(self, clause: str, counted: str, *, expected: int | None, failure: str = "", **params: Any) -> None:
        """Append ``clause`` (its ``$name`` parameters given as keywords; ``{carry}`` stands for the counts so far,
        for a clause with a WITH of its own) and count the rows of ``counted`` it leaves."""
        index = len(self._checks)
        carry = "".join(f"{name}, " for name in (*self._carried, *(name for name, _, _ in self._checks)))
        text = clause.replace("{carry}", carry)
        for name, value in params.items():
            text = re.sub(rf"\${name}\b", f"$w{index}_{name}", text)
            self._params[f"w{index}_{name}"] = value
        name = f"w{index}"
        self._parts.append(f"{text} WITH {carry}count({counted}) AS {name}")
        self._checks.append((name, expected, failure or f"a commit wrote fewer rows than asked ({clause[:60]}…)"))

    def run(self, tx: neo4j.ManagedTransaction, *, head: str = "", **head_params: Any) -> bool:
        """Send the chained writes (nothing when there are none) and check every part's count.

        ``head``: clauses before the writes (its parameters as keywords) that bind the chain's carried variables,
        in one row or, when its checks fail, none.  Every part counts grouped by what it carries, and a grouped
        count of no rows is no row (an ungrouped one is a row of zeros): so with no row from the head, no part
        writes anything, and False comes back instead of an :class:`InvalidMutation`.
        """
        if not self._parts:
            return True
        names = [name for name, _, _ in self._checks]
        row = tx.run(head + " ".join(self._parts) + " RETURN " + ", ".join(names),
                     {**self._params, **head_params}).single()
        if row is None and head:
            return False
        if row is None:
            raise InvalidMutation("a node or edge endpoint the commit writes is missing; nothing was written")
        for name, expected, failure in self._checks:
            if expected is not None and int(row[name]) != expected:
                raise InvalidMutation(failure)
        return True


class _CommitMeta(NamedTuple):
    """Who commits a batch and under which key: what its Commit node and record say besides what it wrote."""

    key: str
    actor: str
    thread_id: str | None
    action_id: str | None
    observation: dict[str, Any] | None
    commit_id: str | None


def _chain_record(writes: _WriteChain, state: _BatchState, meta: _CommitMeta) -> CommitRecord:
    """The batch's edges, Turn records and Commit node chained after its nodes; the commit's record."""
    version, now = state.version, state.now
    key, actor, thread_id, action_id, observation, commit_id = meta
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
        written=CommitChanges(
            nodes=[state.nodes[i] for i in state.changed], hard_deleted=sorted(state.hard_deleted),
            links=list(state.links),
            unlinked=[e["edge_id"] for e in state.edge_log if e["op"] == "unlink"],
        ),
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
    return record


def _live_after(state: _BatchState) -> list[CountKey]:
    """The (kind, status) of the nodes the batch changed that are live after it."""
    return [(state.nodes[i].kind, state.nodes[i].status.value) for i in state.changed
            if not state.nodes[i].deleted and i not in state.hard_deleted]


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
    # TOUCHED edges to the turn's nodes that still exist (a node may have been hard-deleted since), each found
    # through the id index: ``WHERE x.id IN $ids`` after the CREATE scanned every canvas node on ArcadeDB.
    touched = list(dict.fromkeys(turn.node_ids))
    writes.add(
        "CREATE (t:Turn) SET t = $props" + (
            " WITH {carry}t UNWIND $ids AS touched OPTIONAL MATCH (x:CanvasNode {id: touched}) "
            "WITH {carry}t, collect(x) AS xs FOREACH (x IN xs | CREATE (t)-[:TOUCHED]->(x))" if touched else ""),
        "t", expected=1, **({"ids": touched} if touched else {}),
        props={
            "id": turn.turn_id,
            "thread_id": turn.thread_id,
            "request": turn.request,
            "canvas_before": turn.canvas_before,
            "canvas_after": turn.canvas_after if turn.canvas_after is not None else version - 1,
            "canvas_version": version,
            "summary_json": json.dumps(turn.summary, sort_keys=True, default=str),
        },
    )
