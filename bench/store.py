"""Canvas store benchmark: prints JSON (insert time, read latencies at 10k nodes / 10k edges, engine start,
and commit throughput of 1, 4 and 8 writing processes on one project, with the commit lock and, for
comparison, with retries only).

``python bench/store.py --multi-only`` runs only the multi-process part."""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would shadow the `store` package.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from store.connect import EngineSettings, open_store, start_engine
from store.models import Direction, EdgeType
from store.mutations import CreateNode, Link
from store.tickets import TicketAuthority

N_NODES = 10_000
N_EDGES = 10_000
BATCH = 1_000
SAMPLES = 200


def _median_ms(action, samples: int = SAMPLES) -> float:
    timings = []
    for _ in range(samples):
        started = time.perf_counter()
        action()
        timings.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(timings), 3)


def multi_process(commits: int = 50) -> list[dict[str, object]]:
    """Commit throughput of several writing processes on one project (bench/commit_worker.py)."""
    worker = Path(__file__).resolve().with_name("commit_worker.py")
    runs = []
    for processes, extra in ((1, []), (4, []), (8, []), (8, ["--no-lock"])):
        folder = Path(tempfile.mkdtemp(prefix="jarvishub-bench-mp-"))
        out = subprocess.run(
            [sys.executable, str(worker), "fleet", str(folder / "engine"), "canvas", str(processes), str(commits),
             *extra],
            capture_output=True, text=True, timeout=1800, check=True,
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        subprocess.run([sys.executable, "-c", "import sys; from store.lifecycle import stop_engine; "
                        "stop_engine(sys.argv[1])", str(folder / "engine")], check=True,
                       cwd=Path(__file__).resolve().parents[1])
    return runs


def main() -> None:
    if "--multi-only" in sys.argv:
        print(json.dumps({"multi_process_commits": multi_process()}, indent=2))
        return
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-bench-"))
    started = time.perf_counter()
    engine = start_engine(EngineSettings(data_dir=folder))
    engine_start_s = time.perf_counter() - started
    authority = TicketAuthority()
    store = open_store(engine, authority)
    rng = random.Random(7)
    kinds = ["image", "video", "shot", "reference", "text"]
    nodes = [CreateNode(kind=kinds[i % len(kinds)], title=f"n{i}") for i in range(N_NODES)]
    ids = [n.id for n in nodes]
    # A long chain gives the 5-hop lineage something to walk; the rest are random DAG edges.
    edges = [Link(type=EdgeType.GENERATED_FROM, source=ids[i], target=ids[i - 1]) for i in range(1, 2_000)]
    while len(edges) < N_EDGES:
        a, b = sorted(rng.sample(range(N_NODES), 2))
        edges.append(Link(type=rng.choice(list(EdgeType)), source=ids[b], target=ids[a]))

    started = time.perf_counter()
    for batch in (nodes[i:i + BATCH] for i in range(0, N_NODES, BATCH)):
        store.apply(batch, ticket=authority.issue("bench", batch))
    insert_nodes_s = time.perf_counter() - started
    started = time.perf_counter()
    for batch in (edges[i:i + BATCH] for i in range(0, N_EDGES, BATCH)):
        store.apply(batch, ticket=authority.issue("bench", batch))
    insert_edges_s = time.perf_counter() - started

    result = {
        "engine": engine.profile.name,
        "engine_start_s": round(engine_start_s, 3),
        "nodes": N_NODES,
        "edges": N_EDGES,
        "insert_nodes_s": round(insert_nodes_s, 3),
        "insert_edges_s": round(insert_edges_s, 3),
        "median_ms": {
            "point_lookup": _median_ms(lambda: store.get_node(rng.choice(ids))),
            "neighbours_1_hop": _median_ms(lambda: store.neighbours(rng.choice(ids), direction=Direction.BOTH)),
            "lineage_5_hops": _median_ms(lambda: store.lineage(ids[rng.randrange(1000, 1999)],
                                                               [EdgeType.GENERATED_FROM], max_depth=5), 50),
            "count_by_kind": _median_ms(lambda: store.count_nodes(by="kind"), 50),
            # Every edge into and out of 100 nodes (the web canvas's view, the cut and undo tools read this way).
            "edges_of_100_nodes": _median_ms(lambda: store.edges(rng.sample(ids, 100)), 10),
        },
    }
    store.close()
    engine.stop()
    result["multi_process_commits"] = multi_process()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
