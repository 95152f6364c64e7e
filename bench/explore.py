"""Benchmark of parallel explorations; prints one JSON object.

    python bench/explore.py [--branches 8] [--latency 1.0] [--runs 3]

Opens a scratch project (embedded ArcadeDB) whose offline generation providers
sleep ``--latency`` seconds per call, makes a parent image, then runs
``explore(runtime, parent, n=--branches, "try eight lighting moods")`` ``--runs``
times, each on a fresh parent (another seed) so no branch is a cache hit, after
one untimed warm-up exploration (first-use costs of the engine and the driver).
For each run it reports the wall time of the whole exploration (plan, the
parallel subagents, the critique, the status batch and the turn record) against
the sequential sums: every branch's own wall time added up (what running them
one after another would cost at least), and the injected latency alone
(branches × latency).  Then the medians over the runs.
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
from typing import Any

# Run as `python bench/explore.py`, this folder comes first on sys.path, and a bench
# script named like a package (bench/store.py) would hide that package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from jarvishub.explore import explore
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from tools.generate.factory import build_generation_service
from tools.generate.settings import GenerationSettings


def one_run(runtime: Runtime, branches: int, latency: float, seed: int) -> dict[str, Any]:
    """Make a parent image (not timed), explore it, and time the exploration."""
    grant = runtime.grant_for("bench: a parent image")
    made = runtime.bridge.submit(
        ToolCall(action_id=f"bench-parent-{seed}", tool="generate_image",
                 args={"prompt": "a lighthouse above the harbour", "seed": seed}),
        grant, Usage(), thread_id=f"bench-{seed}")
    start = time.perf_counter()
    result = explore(runtime, made.observation["node_id"], branches, "try eight lighting moods")
    wall = time.perf_counter() - start
    sequential = sum(b.elapsed_s for b in result.branches)
    return {
        "wall_s": round(wall, 3),
        "sequential_sum_s": round(sequential, 3),
        "latency_sum_s": round(branches * latency, 3),
        "speedup": round(sequential / wall, 2) if wall else None,
        "critic": result.critic,
        "candidates": len(result.candidate_ids),
        "failed": len(result.failed),
        "provider_calls": result.provider_calls,
        "cache_hits": result.cache_hits,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--branches", type=int, default=8)
    parser.add_argument("--latency", type=float, default=1.0, help="Injected seconds per generation call.")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="jarvishub-bench-explore-") as tmp:
        project = Project.init(Path(tmp) / "bench")  # stopped below, whatever ends the run
        runtime = None
        try:
            settings = GenerationSettings(offline_latency_s=args.latency)
            service = build_generation_service(settings, project.artifacts, project.root)
            runtime = Runtime(project, services={"generation": service})
            one_run(runtime, 2, args.latency, seed=1)  # warm-up, not reported
            runs = [one_run(runtime, args.branches, args.latency, seed=1000 * (i + 1)) for i in range(args.runs)]
        finally:
            if runtime is not None:
                runtime.close()
            project.engine.stop()  # not left lingering on a folder about to be deleted
            project.close()
    median_wall = statistics.median(r["wall_s"] for r in runs)
    report = {
        "branches": args.branches,
        "latency_s": args.latency,
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "engine": "arcadedb-embedded",
        "runs": runs,
        "median_wall_s": round(median_wall, 3),
        "median_sequential_sum_s": round(statistics.median(r["sequential_sum_s"] for r in runs), 3),
        "latency_sum_s": round(args.branches * args.latency, 3),
        "median_speedup": round(statistics.median(r["speedup"] for r in runs), 2),
        "under_2s": median_wall < 2.0,
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
