"""View benchmark: prints JSON (bytes of the model's view and model calls per request kind, at 1k and 10k nodes).

The view is what the canvas agent's system message shows the model about the canvas (the focused view of
``nodes/resolve.py``); it goes with every model call of a turn.  Measured on exactly what the offline planner
was sent: per request kind, the first call's system message (``view_bytes``) and whole input
(``first_call_bytes``, tool schemas included, measured as ``nodes.context_size`` measures for the evaluation),
the number of model calls of the turn and their summed input bytes.

The canvas: a 6-shot narrative (shots, images, clips, a cut) grown with text notes to 1k, then 10k nodes.
Goals (#21): ``view_bytes`` at most 2 KB for a local edit and 4 KB for any turn, at 10k nodes; at most 2 model
calls for a local edit (the call and the reply).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

sys.path[0] = str(Path(__file__).resolve().parents[1])

from langchain_core.messages import SystemMessage  # noqa: E402

from bench.turn import grow  # noqa: E402
from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.context_size import model_input_size  # noqa: E402
from nodes.models.offline import OfflinePlanner  # noqa: E402

SIZES = (1_000, 10_000)
REQUESTS = {
    "local_edit": "make shot 3 darker",
    "two_edits": "make shot 2 warmer and put shot 5 at night",
    "question": "how many shots are there?",
    "note": "note: the keeper's lamp flickers",
    "stale_repair": "regenerate what is stale",
    "undo": "undo the last change to shot 3",
}
"""Request kinds, as people type them; every one must end as a reply that did what was asked."""


class MeasuringPlanner(OfflinePlanner):
    """The offline planner, recording what each model call was sent."""

    calls: ClassVar[list[dict[str, int]]] = []

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        system = next((str(m.content) for m in messages if isinstance(m, SystemMessage)), "")
        size = model_input_size(messages, self.bound_tools)
        self.calls.append({"view_bytes": len(system.encode("utf-8")), "bytes": size.bytes,
                           "schema_bytes": size.tool_schema_bytes})
        return super()._generate(messages, stop, run_manager, **kwargs)


def measure(runtime: Runtime, planner: MeasuringPlanner) -> dict[str, Any]:
    """Each request kind once, as its own turn on its own thread."""
    rows: dict[str, Any] = {}
    for name, request in REQUESTS.items():
        planner.calls.clear()
        started = time.perf_counter()
        outcome = runtime.run(request)
        wall = time.perf_counter() - started
        assert outcome.outcome == "replied", (name, outcome.outcome, outcome.reply)
        first = planner.calls[0]
        rows[name] = {"view_bytes": first["view_bytes"], "first_call_bytes": first["bytes"],
                      "schema_bytes": first["schema_bytes"], "model_calls": len(planner.calls),
                      "max_view_bytes": max(c["view_bytes"] for c in planner.calls),
                      "turn_bytes": sum(c["bytes"] for c in planner.calls), "wall_ms": round(wall * 1000, 1),
                      "tools": [s.get("action", {}).get("tool") for s in outcome.steps]}
    return rows


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-view-"))
    project = Project.init(folder / "p")
    planner = MeasuringPlanner()
    runtime = Runtime(project, model=planner, evaluate_generations=False)
    build = runtime.run("a 6-shot short drama about a lighthouse keeper and a message in a bottle")
    assert build.outcome == "replied", build.reply
    result: dict[str, Any] = {}
    for size in SIZES:
        grow(runtime, size)
        nodes = sum(project.store.count_nodes().values())
        result[f"{size // 1000}k"] = {"canvas_nodes": nodes, "requests": measure(runtime, planner)}
    runtime.close()
    project.close()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
