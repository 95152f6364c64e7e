"""Kill the leader of a 3-server ArcadeDB cluster with SIGKILL while a writer commits through the store."""

from __future__ import annotations

import threading

import pytest
from neo4j._sync.work.transaction import Transaction
from neo4j.exceptions import Neo4jError

from store.cluster import ArcadeClusterEngine
from store.failover import run_failover
from store.mutations import CreateNode, UpdateNode
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority

pytestmark = pytest.mark.slow


def test_a_replica_that_refused_a_replicated_transaction_gets_a_full_copy_from_the_leader(
    cluster: ArcadeClusterEngine, authority: TicketAuthority, empty_canvas, commit_everywhere
) -> None:
    """What ArcadeDB 26.3 logs when a replica's pages diverged from the leader's (seen here after deletes) is
    written into a replica's log; told of a quorum loss, the engine replaces that replica's databases and
    replication log, and the replica comes back with the leader's canvas (nothing it held is needed)."""
    store = Neo4jCanvasStore.on(cluster, empty_canvas(cluster), authority=authority)
    try:
        node = CreateNode(kind="text", title="before the resync")
        store.apply([node], ticket=authority.issue("resync", [node]), idempotency_key="before-resync")
        leader = cluster.leader()
        replica = next(s for s in cluster.servers if s.running and s.member != leader)
        with open(replica.root / "server.log", "a") as log:
            log.write("WARNI [TransactionManager] <x> Cannot apply changes to the database because modified page "
                      "PageId(canvas/4/0) version in WAL (93) does not match with existent version (91) fileId=4\n")
        # Done from a thread that ends right after, as when a writer's commit finds the quorum lost: the
        # restarted server must outlive that thread (the kernel's parent-death signal follows the forking thread).
        rejoins = len(cluster.rejoins)
        done: list[bool] = []
        worker = threading.Thread(target=lambda: done.append(cluster._resync_diverged(leader)))
        worker.start()
        worker.join()
        assert done == [True] and cluster.resyncs[-1] == replica.member.name
        commit_everywhere(cluster, store.database, "before-resync")
        assert replica.running and cluster.rejoins[rejoins:] == [], "the replica came back by itself"
        with cluster.driver.driver_for(replica.member).session(database=store.database) as session:
            assert session.run("MATCH (n:CanvasNode {id: $id}) RETURN n.title AS t", id=node.id).single()["t"] == \
                "before the resync"
        assert not cluster._resync_diverged(leader), "a fresh log has nothing to act on"
    finally:
        store.close()


def test_a_leader_whose_transaction_timed_out_waiting_for_its_quorum_is_restarted_and_writes_carry_on(
    cluster: ArcadeClusterEngine, authority: TicketAuthority, empty_canvas, commit_everywhere
) -> None:
    """26.3's leader takes a message number before it waits for the quorum and logs the message only once the
    quorum answered: after a timeout its replicas skip every later message, and it logs no "jump" when every
    later transaction times out too (seen here).  Its timeout, written into its log, makes the engine restart
    it; the cluster elects, and the store's next commit lands on a leader with its majority."""
    store = Neo4jCanvasStore.on(cluster, empty_canvas(cluster), authority=authority)
    try:
        first = CreateNode(kind="text", title="before the timeout")
        store.apply([first], ticket=authority.issue("wedge-1", [first]), idempotency_key="wedge-1")
        leader = cluster.leader()
        with open(cluster.server(leader.name).root / "server.log", "a") as log:
            log.write("2026-12-01 00:35:35.202 WARNI [HAServer] Timeout waiting for quorum (2) to be reached for "
                      "request 201\n")
        rejoins = len(cluster.rejoins)
        assert cluster._resync_diverged(leader)
        assert cluster.rejoins[rejoins:rejoins + 1] == [leader.name] and cluster.server(leader.name).running
        second = CreateNode(kind="text", title="after the restart")
        store.apply([second], ticket=authority.issue("wedge-2", [second]), idempotency_key="wedge-2")
        commit_everywhere(cluster, store.database, "wedge-2")
        assert {store.get_node(first.id).title, store.get_node(second.id).title} == \
            {"before the timeout", "after the restart"}
    finally:
        store.close()


@pytest.mark.parametrize("server_side", ["rolled back", "committed"])
def test_a_commit_whose_leader_lost_its_leadership_is_retried_under_its_key_and_applied_once(
    cluster: ArcadeClusterEngine, authority: TicketAuthority, empty_canvas, monkeypatch, server_side: str
) -> None:
    """26.3's answer to a COMMIT on a server that lost its leadership while replicating it (both replicas
    refused the transaction and elected another; CI at 4311e1d): ``TransactionNotFound`` "Cannot execute
    command".  The answer is given here at the driver, once, after the server rolled the transaction back (what
    the old leader does) or committed it (a replica that applied it leads now); either way the store's apply
    succeeds and the canvas holds the batch once.  Before, the error reached the caller and the turn failed."""
    store = Neo4jCanvasStore.on(cluster, empty_canvas(cluster), authority=authority)
    real_commit = Transaction.commit
    answered: list[str] = []
    repaired: list[str] = []
    real_repair = cluster._repair_after_lost_commit

    def lost_leadership(tx: Transaction) -> None:
        if answered:
            return real_commit(tx)
        answered.append(server_side)
        tx.rollback() if server_side == "rolled back" else real_commit(tx)
        raise Neo4jError._hydrate_neo4j(code="Neo.ClientError.Transaction.TransactionNotFound",
                                        message="Cannot execute command")

    def repair(member) -> None:
        repaired.append(member.name)
        real_repair(member)

    monkeypatch.setattr(Transaction, "commit", lost_leadership)
    monkeypatch.setattr(cluster.tracker, "_on_quorum_loss", repair)
    try:
        batch = [CreateNode(kind="text", title=f"through a lost leadership ({server_side})")]
        # A key of its own per case: the canvas is emptied between them, and once (1 run of 6) 26.3's unique index
        # on the key did not find the second case's Commit after the first's was deleted, so the retry was not
        # taken for a replay.  No key is used again after a delete outside these tests.
        key = f"lost-leadership-{server_side.replace(' ', '-')}"
        record = store.apply(batch, ticket=authority.issue("lost", batch), idempotency_key=key)
        assert answered == [server_side] and repaired, "the failure was injected and the replicas looked at"
        assert not record.replayed and record.canvas_version == 1 == store.canvas_version()
        assert [n.title for n in store.find_nodes(kind="text")] == [batch[0].title]
    finally:
        store.close()


def test_killing_the_leader_mid_workload_loses_no_acknowledged_commit(
    cluster: ArcadeClusterEngine, authority: TicketAuthority, empty_canvas
) -> None:
    store = Neo4jCanvasStore.on(cluster, empty_canvas(cluster), authority=authority)
    try:
        report = run_failover(cluster, store, authority, before=15, after=10)
        assert report.writer_error is None
        assert report.killed and report.leader_after and report.leader_after != report.killed
        assert not cluster.server(report.killed).running
        assert len(report.acks_after_kill) >= 10
        assert report.lost == []
        assert report.problems == []

        # The last acknowledged batch sent again under its key after the failover: replayed, not re-applied.
        last = report.acks[-1]
        version = store.canvas_version()
        again = [CreateNode(id=last.node_id, kind="text", title="again")]
        replay = store.apply(again, ticket=authority.issue("again", again), idempotency_key=last.key)
        assert replay.replayed and replay.canvas_version == last.canvas_version
        assert store.canvas_version() == version

        # The new leader keeps enforcing optimistic concurrency.
        node = store.get_node(last.node_id)
        stale = [UpdateNode(node_id=node.id, title="late", expected_version=node.version - 1)]
        with pytest.raises(Exception, match="version"):
            store.apply(stale, ticket=authority.issue("stale", stale))
    finally:
        store.close()
