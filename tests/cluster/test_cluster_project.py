"""A project configured for an ArcadeDB cluster by its settings: turns run on the leader and follow a failover."""

from __future__ import annotations

import pytest

from store.models import NodeStatus

pytestmark = pytest.mark.slow


@pytest.fixture
def cluster_env(cluster, monkeypatch):
    """The environment a team would set for its cluster: the server list and the two accounts."""
    members = ",".join(f"{s.member.name}@{s.member.host}:{s.member.bolt_port}:{s.member.http_port}"
                       for s in cluster.servers)
    monkeypatch.setenv("JARVISHUB_ARCADEDB_CLUSTER", members)
    monkeypatch.setenv("NEO4J_USER", "root")
    monkeypatch.setenv("NEO4J_PASSWORD", cluster._password)
    monkeypatch.setenv("NEO4J_READER_PASSWORD", cluster._reader_password)
    monkeypatch.setenv("NEO4J_DATABASE", cluster.default_database)
    return members


def test_a_project_on_the_cluster_runs_turns_through_a_leader_failover(cluster, cluster_env, tmp_path):
    from jarvishub.integrations.access import NoReadOnlyAccount, read_only_access
    from jarvishub.project import Project
    from jarvishub.runtime import Runtime

    # A replica that dropped out earlier in the session would leave no majority after the kill: it rejoins first.
    cluster.wait_until_all_online()
    with Project.init(tmp_path / "team") as project:
        runtime = Runtime(project)
        try:
            first = runtime.run("note: the keeper's coat is red")
            assert first.outcome == "replied", first.reply
            leader = cluster.leader()
            cluster.kill(leader.name)
            # The operator's side: the engine that runs the servers restarts one that a deadlocked 26.3 election
            # or a failed rejoin leaves stuck (docs/scaling.md).  The project's own client only follows the leader.
            cluster.wait_until_replicated(len(cluster.servers) - 1)
            second = runtime.run("note: the bottle is green glass")
            assert second.outcome == "replied", second.reply
            assert project.engine.leader().name != leader.name, "the project followed the failover"
        finally:
            runtime.close()
        notes = {n.title for n in project.store.find_nodes(kind="text") if n.status != NodeStatus.REJECTED}
        assert {"the keeper's coat is red", "the bottle is green glass"} <= notes
        # User queries run as the read-only account over the HTTP API, on the new leader.
        rows = project.store.query("MATCH (n:CanvasNode {kind: 'text'}) RETURN count(n) AS n")
        assert rows.rows[0]["n"] >= 2
        # Over Bolt that account is not enforced on 26.3: outside tools get none.
        with pytest.raises(NoReadOnlyAccount, match="over Bolt"):
            read_only_access(project)


def test_a_cluster_without_a_read_only_account_is_refused_with_what_to_set(cluster_env, monkeypatch, tmp_path):
    from store.connect import EngineSettings, start_engine

    with pytest.raises(ValueError, match="NEO4J_READER_PASSWORD"):
        start_engine(EngineSettings(data_dir=tmp_path, arcadedb_cluster=cluster_env, neo4j_user="root",
                                    neo4j_password="x", neo4j_reader_password=None))
