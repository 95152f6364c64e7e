"""Local repair vs full regeneration on a 12-shot narrative project: prints JSON (provider calls, wall time).

"redo the lighting on shot 7" should pay for one image, one clip and the cut; regenerating the whole
project with the new lighting (what a chat-log agent that loses track does) pays for every shot again.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402

PREMISE = "a 12-shot short drama about a lighthouse keeper who finds a message in a bottle"


def calls(runtime: Runtime) -> int:
    return sum(runtime.services["generation"].provider_calls.values())


def timed_turn(runtime: Runtime, request: str) -> tuple[float, int]:
    before = calls(runtime)
    started = time.perf_counter()
    outcome = runtime.run(request)
    assert outcome.outcome == "replied", outcome.reply
    return time.perf_counter() - started, calls(runtime) - before


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="jarvishub-repair-"))
    with Project.init(root / "repair") as project:
        runtime = Runtime(project)
        build_s, build_calls = timed_turn(runtime, PREMISE)
        repair_s, repair_calls = timed_turn(runtime, "keep the character but redo the lighting on shot 7")
        runtime.close()
    with Project.init(root / "full") as project:
        runtime = Runtime(project)
        full_s, full_calls = timed_turn(runtime, PREMISE + ", lit warm")
        runtime.close()
    print(json.dumps({
        "shots": 12,
        "initial_build": {"wall_s": round(build_s, 2), "provider_calls": build_calls},
        "local_repair": {"wall_s": round(repair_s, 2), "provider_calls": repair_calls},
        "full_regeneration": {"wall_s": round(full_s, 2), "provider_calls": full_calls},
        "provider_call_ratio": round(full_calls / max(repair_calls, 1), 2),
        "wall_time_ratio": round(full_s / repair_s, 2),
    }, indent=2))


if __name__ == "__main__":
    main()
