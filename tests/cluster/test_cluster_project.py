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


@pytest.mark.xfail(strict=False, reason="ArcadeDB 26.3 HA, unreliable here: once in 5 full runs no new leader was elected within 120 s after a replica had dropped out earlier in the session; #15 stays open on it (docs/scaling.md)")
def test_a_project_on_the_cluster_runs_turns_through_a_leader_failover(cluster, cluster_env, tmp_path):
    from jarvishub.integrations.access import NoReadOnlyAccount, read_only_access
    from jarvishub.project import Project
    from jarvishub.runtime import Runtime

    with Project.init(tmp_path / "team") as project:
        runtime = Runtime(project)
        try:
            first = runtime.run("note: the keeper's coat is red")
            assert first.outcome == "replied", first.reply
            leader = cluster.leader()
            cluster.kill(leader.name)
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
