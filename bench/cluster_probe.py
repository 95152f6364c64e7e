"""The reader's write against a 3-server ArcadeDB cluster, N runs (default 20), with the Cypher lexer off: prints JSON.

Starts the cluster, creates and seeds the canvas, then runs the probe drill (``store/probe_drill.py``): each run
restarts one server (each in turn, the leader among them; SIGTERM and SIGKILL alternately) and sends every write
form of the cluster's attack list through ``store.query`` while that server rejoins and once it has.  Reports
the runs in which nothing was written anywhere (must be all of them), what the attacks met, and the probes the
gate ran.  Every server is stopped at the end.  Usage: python bench/cluster_probe.py [runs]
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would shadow the `store` package.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import store.bolt.user_queries as store_module  # where query() looks up check_read_only
from store.cluster import ArcadeClusterEngine
from store.mutations import CreateNode, Link
from store.models import EdgeType
from store.neo4j import Neo4jCanvasStore
from store.probe_drill import run_drill, summary
from store.tickets import TicketAuthority
from tests.cluster.test_cluster_conformance import _CLUSTER_ATTACKS


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-cluster-probe-"))
    started = time.perf_counter()
    engine = ArcadeClusterEngine(folder, servers=3)
    start_s = time.perf_counter() - started
    try:
        engine.ensure_database(engine.default_database)
        authority = TicketAuthority()
        store = Neo4jCanvasStore.on(engine, engine.default_database, authority=authority)
        ref, shot = CreateNode(kind="reference", title="Mira"), CreateNode(kind="image", title="shot 7")
        batch = [ref, shot, Link(type=EdgeType.REFERENCES, source=shot.id, target=ref.id)]
        store.apply(batch, ticket=authority.issue("seed", batch), idempotency_key="seed-commit")
        store_module.check_read_only = lambda cypher: None  # the string check above the engine, switched off
        started = time.perf_counter()
        results = run_drill(engine, store, list(_CLUSTER_ATTACKS), runs, progress=lambda run: print(
            f"run: {run.restarted} ({'leader, ' if run.was_leader else ''}{run.how}) {dict(run.outcomes)} "
            f"written {len(run.written)} probes {run.probes} {run.seconds} s", file=sys.stderr, flush=True))
        store.close()
        print(json.dumps({"servers": 3, "arcadedb": "26.3.2 (built-in HA)", "attacks_per_round": len(_CLUSTER_ATTACKS),
                          "cluster_start_s": round(start_s, 2), "drill_s": round(time.perf_counter() - started, 1),
                          "servers_restarted_to_rejoin": list(engine.rejoins), **summary(results)}, indent=2))
    finally:
        engine.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
