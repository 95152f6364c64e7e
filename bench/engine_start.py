"""What the embedded engine's JVM flags cost: prints JSON medians per flag set.

For each flag set (``JARVISHUB_ENGINE_JAVA_OPTIONS``, which replaces the engine's default options; pass
``-XX:AOTCache=FILE`` in one to measure an ahead-of-time cache, see ``tests/engine_aot.py``), interleaved ``--runs`` times, on a fresh project folder:

* ``ready_s``: how long a process waits for the engine (Bolt and HTTP ports open), what the first command of
  a project waits before anything else;
* ``start_cpu_s``: the JVM's CPU seconds (user + system) until then, which a loaded machine inflates less;
* ``setup_s``: creating the canvas database and its schema;
* ``steady_s`` / ``steady_cpu_s``: a warm workload, ``--writes`` single-node write transactions and
  ``--reads`` reads (a filtered, ordered match and a one-hop match), and the JVM's CPU for it.

Usage: ``python bench/engine_start.py [--runs N] [--writes N] [--reads N] [--flags "NAME=OPTS" ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)

from store.embedded import JAVA_OPTIONS_ENV, EmbeddedArcadeEngine  # noqa: E402

DEFAULT_FLAGS = {
    "jvm_defaults": "",
    "c1_serial": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
}


def jvm_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(options: str, writes: int, reads: int) -> dict[str, float]:
    os.environ[JAVA_OPTIONS_ENV] = options
    with tempfile.TemporaryDirectory(prefix="jarvishub-bench-engine-") as folder:
        started = time.monotonic()
        engine = EmbeddedArcadeEngine(Path(folder) / "engine", idle_seconds=60)
        try:
            ready = time.monotonic() - started
            start_cpu = jvm_cpu_s(engine.server_pid)
            began = time.monotonic()
            engine.ensure_database("canvas")
            setup = time.monotonic() - began
            cpu0, began = jvm_cpu_s(engine.server_pid), time.monotonic()
            with engine.driver.session(database="canvas") as session:
                for i in range(writes):
                    session.execute_write(lambda tx, i=i: tx.run(
                        "CREATE (n:CanvasNode {id: $id, kind: $kind, title: $title, version: 1})",
                        id=f"n{i}", kind="image" if i % 2 else "text", title=f"node {i}").consume())
                for i in range(0, writes - 1, 2):
                    session.execute_write(lambda tx, i=i: tx.run(
                        "MATCH (a:CanvasNode {id: $a}), (b:CanvasNode {id: $b}) CREATE (a)-[:GENERATED_FROM]->(b)",
                        a=f"n{i + 1}", b=f"n{i}").consume())
                for i in range(reads):
                    if i % 2:
                        session.run("MATCH (n:CanvasNode) WHERE n.kind = 'image' RETURN n.title AS t "
                                    "ORDER BY t LIMIT 20").data()
                    else:
                        session.run("MATCH (a:CanvasNode {id: $id})-[:GENERATED_FROM]->(b) RETURN b.id AS id",
                                    id=f"n{(i % writes) | 1}").data()
            steady = time.monotonic() - began
            steady_cpu = jvm_cpu_s(engine.server_pid) - cpu0
        finally:
            engine.stop()
    return {"ready_s": ready, "start_cpu_s": start_cpu, "setup_s": setup, "steady_s": steady,
            "steady_cpu_s": steady_cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--flags", nargs="*", help="NAME=OPTIONS pairs (default: jvm_defaults, c1_serial)")
    args = parser.parse_args()
    flags = dict(pair.split("=", 1) for pair in args.flags) if args.flags else DEFAULT_FLAGS
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in flags}
    for _ in range(args.runs):
        for name, options in flags.items():  # interleaved: a load spike hits every flag set alike
            runs[name].append(one_run(options, args.writes, args.reads))
    medians = {name: {key: round(statistics.median(r[key] for r in results), 3) for key in results[0]}
               for name, results in runs.items()}
    base = medians[next(iter(flags))]
    ratios = {name: {key: round(value / base[key], 2) for key, value in m.items() if base[key]}
              for name, m in medians.items()}
    print(json.dumps({"runs": args.runs, "writes": args.writes, "reads": args.reads, "flags": flags,
                      "median": medians, "ratio_to_first": ratios, "load": os.getloadavg()}, indent=1))


if __name__ == "__main__":
    main()
