"""The cluster fails closed (#23): a user query goes only to a server whose reader probe has passed since it last
started or rejoined, on the session's 3-server cluster, with the checks above the engine switched off.

The full 20-run drill is ``bench/cluster_probe.py`` (docs/scaling.md has its figures); here a sample of it.
"""

from __future__ import annotations

import pytest

import store.http_query as http_query
import store.bolt.user_queries as store_module  # where query() looks up check_read_only
from store.models import EdgeType
from store.mutations import CreateNode, Link
from store.neo4j import Neo4jCanvasStore
from store.probe_drill import run_drill, summary
from store.probe_gate import incarnation
from store.tickets import TicketAuthority
from tests.cluster.test_cluster_conformance import _PASS_THE_IDEMPOTENCY_CHECK

pytestmark = pytest.mark.slow

SAMPLE_RUNS = 3
"""Each server restarted once (the leader among them): about 30 s of the suite here; bench/cluster_probe.py runs 20."""
ATTACKS = [
    "CREATE (:CanvasNode {id: 'intruder', kind: 'text'})",
    "CREATE CONSTRAINT evil_key FOR (n:CanvasNode) REQUIRE n.title IS UNIQUE",
    *_PASS_THE_IDEMPOTENCY_CHECK,
]
"""A plain write, a schema change, and the forms the query endpoint's own check lets through."""


@pytest.fixture(scope="module")
def seeded(cluster, empty_canvas, commit_everywhere):
    authority = TicketAuthority()
    store = Neo4jCanvasStore.on(cluster, empty_canvas(cluster), authority=authority)
    ref, shot = CreateNode(kind="reference", title="Mira"), CreateNode(kind="image", title="shot 7")
    batch = [ref, shot, Link(type=EdgeType.REFERENCES, source=shot.id, target=ref.id)]
    store.apply(batch, ticket=authority.issue("probe-seed", batch), idempotency_key="probe-seed")
    commit_everywhere(cluster, store.database, "probe-seed")
    yield store
    store.close()


def test_the_readers_write_lands_nowhere_while_servers_restart_and_rejoin(cluster, seeded, monkeypatch):
    # Above the reader's permission: the lexer (a string check) and the per-query check in the query's own
    # transaction are both switched off; the probe gate is what is left to keep a query off an unprobed server.
    monkeypatch.setattr(store_module, "check_read_only", lambda cypher: None)
    monkeypatch.setattr(http_query.ClusterUserQueries, "_checked_transaction",
                        lambda self, member, database: http_query._ReaderTransaction(member, self._auth,
                                                                                     database).begin())
    results = run_drill(cluster, seeded, ATTACKS, SAMPLE_RUNS)
    figures = summary(results)
    assert figures["writes_accepted"] == 0 and figures["runs_passed"] == SAMPLE_RUNS, figures
    assert {r.restarted for r in results} == {s.member.name for s in cluster.servers}
    # Every restarted server was probed again before it answered (the gate forgot it at its launch).
    assert all(r.probes >= 1 for r in results), figures
    gate = cluster.user_queries.gate
    views = cluster.tracker.views()
    for server in cluster.servers:
        assert gate.passed(server.member, seeded.database) == incarnation(server.member, views, len(cluster.servers))
    assert seeded.count_nodes() == {"reference": 1, "image": 1}


def test_a_server_that_starts_again_answers_nothing_until_its_probe_passes(cluster, seeded):
    cluster.wait_until_all_online()
    seeded.query("MATCH (n:CanvasNode) RETURN count(n) AS c")
    gate = cluster.user_queries.gate
    replica = next(s for s in cluster.servers if s.member != cluster.leader())
    assert gate.passed(replica.member, seeded.database) is not None
    cluster.stop_server(replica.member.name)
    cluster.restart(replica.member.name)
    assert gate.passed(replica.member, seeded.database) is None  # forgotten at its launch
    cluster.wait_until_all_online()
    probes = gate.probes
    assert seeded.query("MATCH (n:CanvasNode) RETURN count(n) AS c").rows == [{"c": 2}]
    # Probed for the incarnation it runs now.  Not "exactly one probe": a stalled election the wait above broke
    # by restarting another server makes that one a new incarnation too, probed as well (seen in one run of 4).
    now = incarnation(replica.member, cluster.tracker.views(), len(cluster.servers))
    assert gate.probes > probes and now is not None and gate.passed(replica.member, seeded.database) == now
