"""Harness overhead benchmark: prints JSON (validation time per action, harness time per turn, view size).

The model is the scripted one (no model time) and the tool is ``create_node`` (no media), so the turn time is
the harness's own: graph steps, checkpoints, validation, commits, trajectory records, the view.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.actions import CanvasMutation, ToolCall  # noqa: E402
from nodes.bridge import Usage  # noqa: E402
from nodes.models.scripted import ScriptedModel  # noqa: E402
from nodes.view import build_view, find_focus  # noqa: E402
from store.mutations import CreateNode  # noqa: E402

SIZES = (100, 1_000, 10_000)
TURNS = 7
VALIDATIONS = 300


def grow(runtime: Runtime, target: int) -> None:
    """Add shot nodes through the bridge until the canvas has ``target`` nodes."""
    have = sum(runtime.project.store.count_nodes().values())
    grant = runtime.grant_for("grow")
    index = have
    while have < target:
        batch = [CreateNode(kind="shot", title=f"shot {index + i}", inputs={"prompt": f"beat {index + i}"})
                 for i in range(min(1_000, target - have))]
        runtime.bridge.submit(CanvasMutation(action_id=f"grow-{index}", mutations=batch), grant, Usage(),
                              thread_id="bench-grow")
        index += len(batch)
        have += len(batch)


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-turn-")) / "p"
    project = Project.init(folder)
    script = [{"name": "create_node", "args": {"kind": "text", "title": "note"}}, "done"]
    runtime = Runtime(project, model=ScriptedModel(script=script), evaluate_generations=False)
    results = []
    for size in SIZES:
        grow(runtime, size)
        grant = runtime.grant_for("bench")
        action = ToolCall(action_id="v", tool="set_status", args={"node_id": project.store.find_nodes(limit=1)[0].id,
                                                                  "status": "selected"})
        timings = []
        for _ in range(VALIDATIONS):
            started = time.perf_counter()
            runtime.bridge.validate(action, grant, Usage())
            timings.append((time.perf_counter() - started) * 1000)
        turn_ms = []
        for _ in range(TURNS):
            started = time.perf_counter()
            outcome = runtime.run("note: redo the lighting on shot 7")
            turn_ms.append((time.perf_counter() - started) * 1000)
            assert outcome.outcome == "replied"
        focus = find_focus(project.store, "redo the lighting on shot 7", [], [])
        view = build_view(project.store, focus)
        results.append({
            "canvas_nodes": sum(project.store.count_nodes().values()),
            "validate_median_ms": round(statistics.median(timings), 3),
            "harness_per_turn_median_ms": round(statistics.median(turn_ms), 1),
            "steps_per_turn": 2,
            "view_bytes": len(json.dumps(view)),
            "view_nodes_in_full": len(view["focus"]),
        })
    runtime.close()
    project.close()
    print(json.dumps({"sizes": results}, indent=2))


if __name__ == "__main__":
    main()
