"""Leader-failover benchmark on a 3-server ArcadeDB cluster: prints JSON.

Starts the cluster, creates the canvas, runs the failover drill (a writer commits through the store; the
leader is killed with SIGKILL mid-workload; the writer carries on on the new leader), then reports the time
from the kill to the first acknowledged commit, the commits lost (must be 0) and the canvas checks.
Every server is stopped at the end.  Usage: python bench/failover.py [commits-before] [commits-after]
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would shadow the `store` package.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from store.cluster import ArcadeClusterEngine
from store.failover import run_failover
from store.neo4j import Neo4jCanvasStore
from store.tickets import TicketAuthority


def main() -> None:
    before = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-failover-"))
    started = time.perf_counter()
    engine = ArcadeClusterEngine(folder, servers=3)
    start_s = time.perf_counter() - started
    try:
        started = time.perf_counter()
        engine.ensure_database(engine.default_database)
        schema_s = time.perf_counter() - started
        authority = TicketAuthority()
        store = Neo4jCanvasStore.on(engine, engine.default_database, authority=authority)
        report = run_failover(engine, store, authority, before=before, after=after)
        steady = [a.acked - a.started for a in report.acks if a.acked < report.killed_at]
        store.close()
        print(json.dumps({
            "servers": 3,
            "quorum": "majority",
            "arcadedb": "26.3.2 (built-in HA)",
            "cluster_start_s": round(start_s, 2),
            "create_database_and_schema_s": round(schema_s, 2),
            "commit_median_ms_before_kill": round(statistics.median(steady) * 1000, 1) if steady else None,
            **report.summary(),
        }, indent=2))
    finally:
        engine.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
