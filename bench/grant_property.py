"""The grant property at full count: N random actions (default 10,000), each checked by the canvas oracle.

Prints JSON: how many actions were submitted, how many were outside their grant structurally, executed,
committed (by tool), refused (by reason), and ``out_of_grant_changes`` (must be 0), with the wall time and
the median seconds per action.  The same generator and oracle as ``tests/bridge/test_grant_property.py``
(``tests/bridge/grant_fuzz.py``); the suite runs a bounded count of it.

    python bench/grant_property.py [--actions 10000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])
os.environ.setdefault("JARVISHUB_ENGINE_IDLE_SECONDS", "3")

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from tests.bridge.grant_fuzz import Fuzz, seed_canvas  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-grant-bench-"))
    try:
        with Project.init(folder / "p") as project:
            runtime = Runtime(project)
            try:
                seed_canvas(runtime)
                fuzz = Fuzz.on(runtime, project)
                rnd = random.Random(args.seed)
                times: list[float] = []
                started = time.perf_counter()
                for done in range(1, args.actions + 1):
                    one = time.perf_counter()
                    fuzz.one(rnd)
                    times.append(time.perf_counter() - one)
                    if done % 500 == 0:  # progress on stderr; the JSON result goes to stdout at the end
                        print(f"{done} actions, {fuzz.stats['out_of_grant_changes']} out-of-grant changes, "
                              f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
                elapsed = time.perf_counter() - started
            finally:
                runtime.close()
        print(json.dumps({**fuzz.stats, "seed": args.seed, "wall_s": round(elapsed, 1),
                          "median_action_s": round(statistics.median(times), 4),
                          "canvas_nodes_at_end": len(fuzz.state.nodes) if fuzz.state else 0,
                          "violations": fuzz.violations[:5]}, indent=1))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
