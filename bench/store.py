"""Canvas store benchmark: prints JSON (insert time, read latencies at 10k nodes / 10k edges, engine start)."""

from __future__ import annotations

import json
import random
import statistics
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


def main() -> None:
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
        },
    }
    store.close()
    engine.close()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
