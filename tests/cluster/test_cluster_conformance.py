"""The canvas store's conformance suite, unchanged, on a 3-server ArcadeDB cluster (writes through the leader)."""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path

import pytest

import store.bolt.user_queries as store_module  # where query() looks up check_read_only
import tests.security.test_cypher_engine_refuses as _security
from store.errors import CypherError, CypherSyntaxError, CypherWriteRefused, NoProbedServer
from store.http_query import ClusterUserQueries, _ReaderTransaction
from store.leader import ClusterMember, LeaderTracker, http_exchange
from store.models import EdgeType
from store.mutations import CreateNode, Link
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority

pytestmark = pytest.mark.slow

_SUITE = Path(__file__).resolve().parent.parent / "store" / "test_canvas_store.py"
_spec = importlib.util.spec_from_file_location("canvas_store_conformance_suite", _SUITE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)

# Every test of the suite, collected here so this folder's `engine` and `canvas` fixtures (the cluster) apply.
for _name in dir(_suite):
    if _name.startswith("test_"):
        _test = getattr(_suite, _name)
        globals()[_name] = _test


def test_the_whole_suite_is_collected() -> None:
    names = [name for name in dir(_suite) if name.startswith("test_")]
    assert len(names) >= 16 and all(name in globals() for name in names)



def test_no_secret_on_a_server_command_line(cluster) -> None:
    secrets = (cluster._password, cluster._reader_password)
    for server in cluster.servers:
        assert server.process is not None
        command_line = Path(f"/proc/{server.process.pid}/cmdline").read_bytes().decode(errors="replace")
        assert "ha.enabled=true" in command_line and not any(secret in command_line for secret in secrets)
        assert (server.root / "config" / "server-users.jsonl").stat().st_mode & 0o077 == 0


def test_a_client_given_the_server_list_writes_through_the_leader(cluster, canvas, authority, tmp_path) -> None:
    from store.cluster_client import ArcadeClusterClient
    from store.mutations import CreateNode
    from store.neo4j import Neo4jCanvasStore

    # Listed in reverse, so the first server asked is not necessarily the leader.
    members = [server.member for server in reversed(cluster.servers)]
    client = ArcadeClusterClient(
        members, password=cluster._password, reader_password=cluster._reader_password, state_dir=tmp_path
    )
    try:
        assert client.leader() == cluster.leader()
        store = Neo4jCanvasStore.on(client, canvas.database, authority=authority)
        node = CreateNode(kind="text", title="from the client")
        record = store.apply([node], ticket=authority.issue("client", [node]), idempotency_key="client-1")
        assert canvas.get_node(node.id).title == "from the client"
        assert canvas.commit_for_key("client-1").canvas_version == record.canvas_version
        store.close()
    finally:
        client.close()
    assert all(server.running for server in cluster.servers)  # closing a client stops nothing


# -- user queries: the read-only account, enforced by the engine --------------------------------------------
# The attacks of tests/security (written for the embedded 26.10 engine) and the forms that do write on 26.3
# when sent by root: a write procedure with 26.3's three arguments, writes inside CALL subqueries, MERGE, DDL.
_PASS_THE_IDEMPOTENCY_CHECK = [
    "CALL `merge.node`(['CanvasNode'], {id: 'proc'}, {}) YIELD node RETURN node",
    "CALL `merge.node`(['Evil'], {id: 'proc'}, {}) YIELD node RETURN node",
    "CALL { CREATE (n:CanvasNode {id: 'sub'}) RETURN n } RETURN n",
    "MATCH (n:CanvasNode) CALL (n) { SET n.title = 'sub' } RETURN n",
]
"""Writes that root sends through the query API unhindered on 26.3 (measured): only a permission stops them."""
_WRITES_ON_26_3 = [
    "CREATE (:CanvasNode {id: 'intruder', kind: 'text'})",
    "MERGE (n:CanvasNode {id: 'merged'}) RETURN n",
    "CREATE CONSTRAINT evil_key FOR (n:CanvasNode) REQUIRE n.title IS UNIQUE",
    "MATCH (n:CanvasNode) SET n.title = 'pwned' RETURN n",
    "MATCH (n:CanvasNode) DETACH DELETE n",
    *_PASS_THE_IDEMPOTENCY_CHECK,
]
"""Every form root's statements carry out on 26.3; the rest of tests/security's attacks fail on 26.3 for other
reasons too (an unknown procedure, Cypher DDL it does not parse), and are sent all the same."""
_CLUSTER_ATTACKS = list(dict.fromkeys([*_security.ATTACKS, *_WRITES_ON_26_3]))


def _fingerprint(cluster, store) -> dict[str, object]:
    """Everything an attack could change, read as root: records, relationships, indexes and types."""
    with cluster.driver.session(database=store.database) as session:
        nodes = session.run("MATCH (n) RETURN labels(n) AS l, properties(n) AS p").data()
        rels = session.run("MATCH ()-[r]->() RETURN type(r) AS t, properties(r) AS p").data()
    schema = cluster._leader_http(f"/api/v1/query/{store.database}",
                                  {"language": "sql", "command": "select name, indexes from schema:types"})
    return {
        "nodes": sorted(json.dumps(n, sort_keys=True, default=str) for n in nodes),
        "rels": sorted(json.dumps(r, sort_keys=True, default=str) for r in rels),
        "schema": sorted(json.dumps(t, sort_keys=True, default=str) for t in schema["result"]),
    }


@pytest.fixture(scope="module")
def seed_authority() -> TicketAuthority:
    """The ticket authority of the seeded canvas below."""
    return TicketAuthority()


@pytest.fixture(scope="module")
def seeded(cluster, seed_authority, empty_canvas, commit_everywhere):
    """One canvas for every read-only test below (each checks it is unchanged): emptied and seeded once, as each
    reset costs a replicated delete and an ALIGN.  These tests come last in the module, after every `canvas` user."""
    store = Neo4jCanvasStore.on(cluster, empty_canvas(cluster), authority=seed_authority)
    ref, shot = CreateNode(kind="reference", title="Mira"), CreateNode(kind="image", title="shot 7")
    batch = [ref, shot, Link(type=EdgeType.REFERENCES, source=shot.id, target=ref.id)]
    store.apply(batch, ticket=seed_authority.issue("seed", batch), idempotency_key="seed-commit")
    # Each server is attacked on its own below: each must hold the records an attack would write to.
    commit_everywhere(cluster, store.database, "seed-commit")
    yield store
    store.close()


def test_user_queries_on_the_cluster_are_refused_every_write_by_the_engine(cluster, seeded, seed_authority, monkeypatch):
    # Formerly a strict xfail: over 26.3's Bolt the reader's group is not applied.  User queries now go through
    # the HTTP query API as the reader; with the lexical check off, only the engine stands in the way.
    monkeypatch.setattr(store_module, "check_read_only", lambda cypher: None)
    before = _fingerprint(cluster, seeded)
    for cypher in _CLUSTER_ATTACKS:
        with pytest.raises(CypherError):
            seeded.query(cypher)
        assert _fingerprint(cluster, seeded) == before, cypher
    assert seeded.count_nodes() == {"reference": 1, "image": 1}
    # The servers' own files stay unread: the users file holds every account's password hash.
    users_file = cluster.servers[0].root / "config" / "server-users.jsonl"
    for cypher in (f"LOAD CSV FROM 'file://{users_file}' AS row RETURN row", f"LOAD CSV FROM '{users_file}' AS row RETURN row"):
        with pytest.raises(CypherError) as refused:
            seeded.query(cypher)
        assert "PBKDF2" not in str(refused.value)
    # The idempotency key's unique index still turns a second commit into a replay.
    again = [CreateNode(kind="text", title="again")]
    assert seeded.apply(again, ticket=seed_authority.issue("again", again), idempotency_key="seed-commit").replayed


def test_every_server_refuses_the_readers_writes_by_its_permission(cluster, seeded, commit_everywhere):
    """Each server, asked on its own as the store asks it when the leader does not answer: every attack is
    refused, and the forms that pass the query API's idempotency check are refused by the reader's permission.

    A form such as ``MATCH (n:CanvasNode) CALL (n) { SET … }`` writes nothing, and so raises nothing, on a server
    that holds no CanvasNode: every server must hold the seeded canvas first (a replica that had dropped out
    and missed it answered such an attack without an error in an earlier round)."""
    commit_everywhere(cluster, seeded.database, "seed-commit")
    before = _fingerprint(cluster, seeded)
    reader = cluster.user_queries._auth
    for server in cluster.servers:
        alone = ClusterUserQueries(LeaderTracker([server.member], cluster._auth), reader, reopen=cluster._reopen)
        for cypher in _CLUSTER_ATTACKS:
            try:
                alone.run(seeded.database, cypher, {}, 10.0, 10)
            except NoProbedServer:
                # Asked alone, a replica has no leader to count it in, so the probe gate does not send it the
                # query at all (the cluster fails closed, store/probe_gate.py): refused before its permission.
                continue
            except CypherError as refused:
                if cypher in _PASS_THE_IDEMPOTENCY_CHECK:
                    assert isinstance(refused, CypherWriteRefused) and "not allowed" in str(refused), cypher
                continue
            view = cluster.tracker.view(server.member)
            with cluster.driver.driver_for(server.member).session(database=seeded.database) as session:
                held = session.run("MATCH (n:CanvasNode) RETURN count(n) AS c").single()["c"]
            pytest.fail(f"server {server.member.name} (role {view and view.role}, leader {view and view.leader}, "
                        f"{held} CanvasNode records) answered the reader's {cypher!r} without refusing it")
    assert _fingerprint(cluster, seeded) == before


def test_the_readers_permission_alone_refuses_writes_on_the_leader(cluster, seeded):
    """The guarantee is the permission, not the query endpoint's check: sent to the leader's *command* endpoint
    (no idempotency check), every write form that root's statements carry out is refused as a security error.
    (A replica's command endpoint forwards DDL to the leader, which runs it without the user's permissions:
    the store never sends user queries there; see docs/scaling.md.)"""
    before = _fingerprint(cluster, seeded)
    reader = cluster.user_queries._auth
    for cypher in _WRITES_ON_26_3:
        status, body, _ = http_exchange(cluster.leader(), reader, f"/api/v1/command/{seeded.database}",
                                        {"language": "cypher", "command": cypher})
        assert status == 403 or "not allowed" in str(body.get("detail")), (cypher, body)
    assert _fingerprint(cluster, seeded) == before


def test_the_query_endpoint_alone_would_let_root_write(cluster, seeded):
    """Control: root's write inside CALL { } passes the query endpoint's idempotency check (in a transaction
    rolled back here), so that check is no guarantee; what refuses the reader above is its permission."""
    root = cluster._auth
    leader = cluster.leader()
    _, _, headers = http_exchange(leader, root, f"/api/v1/begin/{seeded.database}", {"isolationLevel": "READ_COMMITTED"})
    session = {"arcadedb-session-id": headers["arcadedb-session-id"]}
    try:
        status, body, _ = http_exchange(
            leader, root, f"/api/v1/query/{seeded.database}",
            {"language": "cypher", "command": "CALL { CREATE (n:CanvasNode {id: 'ctl'}) RETURN n } RETURN n.id AS id"},
            headers=session,
        )
        assert status == 200 and body["result"] == [{"id": "ctl"}]
    finally:
        http_exchange(leader, root, f"/api/v1/rollback/{seeded.database}", {}, headers=session)
    assert seeded.count_nodes() == {"reference": 1, "image": 1}


def test_a_database_created_at_run_time_is_reopened_until_the_reader_is_refused(cluster):
    """ArcadeDB 26.3 opens a database it has just created without its security manager: until it is opened
    again the reader may write there.  Before every user query the cluster client checks, in the query's own
    transaction, that the reader is refused, and has the server reopen the database when it is not."""
    cluster.wait_until_all_online()  # creating a database needs every server
    name = "probe" + uuid.uuid4().hex[:8]
    cluster._leader_http("/api/v1/server", {"command": f"create database {name}"})  # no reopen: as 26.3 leaves it
    try:
        cluster._leader_http(f"/api/v1/command/{name}",
                             {"language": "sql", "command": "CREATE VERTEX TYPE CanvasMeta IF NOT EXISTS"})
        queries = cluster.user_queries
        leader = cluster.leader()
        assert not queries.refuses_writes(leader, name), "26.3 enforces permissions on a new database now"
        assert queries.run(name, "MATCH (m:CanvasMeta) RETURN count(m) AS c", {}, 10.0, 10).rows == [{"c": 0}]
        assert queries.refuses_writes(leader, name)
        # Checked again at every query, in the query's own transaction, not remembered from an earlier one.
        probes: list[str] = []
        real = _ReaderTransaction.refuses_writes

        def spied(tx: _ReaderTransaction) -> bool:
            probes.append(tx.member.name)
            return real(tx)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_ReaderTransaction, "refuses_writes", spied)
            for _ in range(2):
                assert queries.run(name, "MATCH (m:CanvasMeta) RETURN count(m) AS c", {}, 10.0, 10).rows == [{"c": 0}]
        assert probes == [leader.name, leader.name]
    finally:
        cluster._leader_http("/api/v1/server", {"command": f"drop database {name}"})


def test_a_server_that_does_not_refuse_the_reader_gets_no_user_query(cluster, monkeypatch):
    """The check above the permission switched off (a reopen that does nothing): the leader's new database stays
    unprotected, and user queries go to a server that refuses the reader, or are refused with a typed error."""
    monkeypatch.setattr(store_module, "check_read_only", lambda cypher: None)
    cluster.wait_until_all_online()
    name = "bare" + uuid.uuid4().hex[:8]
    cluster._leader_http("/api/v1/server", {"command": f"create database {name}"})
    try:
        cluster._leader_http(f"/api/v1/command/{name}",
                             {"language": "sql", "command": "CREATE VERTEX TYPE CanvasMeta IF NOT EXISTS"})
        leader = cluster.leader()
        replica = next(s.member for s in cluster.servers if s.running and s.member != leader)
        reader = cluster.user_queries._auth
        reopened: list[str] = []

        def no_reopen(member: ClusterMember, database: str) -> None:
            reopened.append(member.name)

        alone = ClusterUserQueries(LeaderTracker([leader], cluster._auth), reader, reopen=no_reopen)
        assert not alone.refuses_writes(leader, name)
        with pytest.raises(NoProbedServer, match=f"{leader.name}: it did not refuse"):  # the cluster fails closed
            alone.run(name, "CREATE (:CanvasMeta {key: 'intruder'})", {}, 10.0, 10)
        assert reopened == [leader.name]
        # Listed first, the unprotected leader is passed over for a replica that refuses the reader.
        both = ClusterUserQueries(LeaderTracker([leader, replica], cluster._auth), reader, reopen=no_reopen)
        with pytest.raises(CypherWriteRefused, match="not allowed"):
            both.run(name, "CALL { CREATE (n:CanvasMeta {key: 'intruder'}) RETURN n } RETURN n", {}, 10.0, 10)
        assert both.run(name, "MATCH (m:CanvasMeta) RETURN count(m) AS c", {}, 10.0, 10).rows == [{"c": 0}]
        counted = cluster._leader_http(f"/api/v1/query/{name}", {"language": "sql",
                                                                "command": "SELECT count(*) AS c FROM CanvasMeta"})
        assert counted["result"] == [{"c": 0}]
    finally:
        cluster._leader_http("/api/v1/server", {"command": f"drop database {name}"})


def test_user_query_results_have_the_stores_shape_and_limit(cluster, seeded):
    shot = seeded.find_nodes(kind="image")[0]
    ref = seeded.find_nodes(kind="reference")[0]
    nodes = seeded.query("MATCH (n:CanvasNode) RETURN n ORDER BY n.title")
    assert nodes.columns == ["n"] and [r["n"]["title"] for r in nodes.rows] == ["Mira", "shot 7"]
    assert nodes.rows[0]["n"]["labels"] == ["CanvasNode"] and not nodes.truncated
    rel = seeded.query("MATCH (:CanvasNode)-[r:REFERENCES]->(:CanvasNode) RETURN r AS edge").rows[0]["edge"]
    assert (rel["type"], rel["start"], rel["end"]) == ("REFERENCES", shot.id, ref.id)
    path = seeded.query("MATCH p = (a:CanvasNode)-[:REFERENCES]->(b) RETURN p").rows[0]["p"]
    assert [n["id"] for n in path["nodes"]] == [shot.id, ref.id] and path["relationships"][0]["type"] == "REFERENCES"
    limited = seeded.query("MATCH (n:CanvasNode) RETURN n.id AS id, n.kind AS kind", row_limit=1)
    assert limited.columns == ["id", "kind"] and len(limited.rows) == 1 and limited.truncated
    assert seeded.query("RETURN $x AS x", {"x": 7}).rows == [{"x": 7}]
    with pytest.raises(CypherSyntaxError):
        seeded.query("MATCH (n RETURN n")


def test_user_queries_go_to_any_server_that_answers(cluster, seeded):
    """A configured server that does not answer (listed first, no leader known yet) is skipped for reads."""
    dead = ClusterMember(name="gone", bolt_port=9, http_port=9)
    tracker = LeaderTracker([dead, *(s.member for s in cluster.servers)], cluster._auth)
    queries = ClusterUserQueries(tracker, cluster.user_queries._auth, reopen=cluster._reopen)
    rows = queries.run(seeded.database, "MATCH (n:CanvasNode) RETURN n.title AS t ORDER BY t", {}, 10.0, 10).rows
    assert rows == [{"t": "Mira"}, {"t": "shot 7"}]
