"""The canvas store's conformance suite, unchanged, on a 3-server ArcadeDB cluster (writes through the leader)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

_SUITE = Path(__file__).resolve().parent.parent / "store" / "test_canvas_store.py"
_spec = importlib.util.spec_from_file_location("canvas_store_conformance_suite", _SUITE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)

# On ArcadeDB 26.3 a second relationship delete on the same node finds nothing: after `Unlink` of one edge of
# a node, the MATCH that resolves the next `Unlink` of another of its edges returns no row (on the leader,
# with the replicas aligned; 26.10 on one server passes).  These two tests do that; see docs/scaling.md.
_SECOND_UNLINK_MISSES = {
    "test_link_unlink_and_neighbours_in_each_direction",
    "test_move_and_group_change_layout",
}
_NOT_ON_THIS_ENGINE = pytest.mark.xfail(
    reason="ArcadeDB 26.3 misses a node's edge after another of its edges was deleted (docs/scaling.md)"
)

# Every test of the suite, collected here so this folder's `engine` and `canvas` fixtures (the cluster) apply.
for _name in dir(_suite):
    if _name.startswith("test_"):
        _test = getattr(_suite, _name)
        globals()[_name] = _NOT_ON_THIS_ENGINE(_test) if _name in _SECOND_UNLINK_MISSES else _test


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


@pytest.mark.xfail(
    strict=True,
    reason="ArcadeDB 26.3's Bolt plugin never sets the session's user on the database (BoltNetworkExecutor; "
    "later releases do), so the read-only account's group is not enforced over Bolt (docs/scaling.md)",
)
def test_the_read_only_account_cannot_write_over_bolt(cluster, canvas) -> None:
    import neo4j

    # No lexical guard here: the statement goes straight to the leader on the read-only account.
    try:
        with cluster.reader_driver.session(database=cluster.default_database) as session:
            session.run("CREATE (:CanvasNode {id: 'intruder', kind: 'text'})").consume()
    except neo4j.exceptions.Neo4jError:
        pass
    assert canvas.count_nodes() == {}


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
        store = Neo4jCanvasStore.on(client, cluster.default_database, authority=authority)
        node = CreateNode(kind="text", title="from the client")
        record = store.apply([node], ticket=authority.issue("client", [node]), idempotency_key="client-1")
        assert canvas.get_node(node.id).title == "from the client"
        assert canvas.commit_for_key("client-1").canvas_version == record.canvas_version
        store.close()
    finally:
        client.close()
    assert all(server.running for server in cluster.servers)  # closing a client stops nothing
