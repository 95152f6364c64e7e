"""Benchmark of the offline evaluator on a shot image; prints one JSON object.

    python bench/evaluate.py [--repeats N]

What judging one storyboard shot (512x288, a character and a scene reference, a storyboard-length prompt) costs,
as the turn loop's feedback does it (an uncommitted node, its references on a scratch project's canvas):

* ``render_s``: the offline renderer drawing the shot (caption included);
* ``evaluate_s``: ``OfflineEvaluator.evaluate`` of it: one canvas read, the picture decoded and, on a checkout
  that has it, read against its own scene (``read_s``: the plates drawn without characters and the grade's
  hypotheses, alone); ``evaluate_cpu_s``: the CPU time of this process for it (the engine's aside), steadier
  than wall time on a busy machine.

Medians over ``--repeats`` pictures (each a different preset, framing and weather), and how many of these correct
pictures passed.  The checkout the script is in is measured: copy it into another checkout to compare the two.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as `python bench/evaluate.py`, this folder comes first on sys.path, where a bench script named like a package
# (bench/store.py) would hide that package: the checkout this script is in goes there instead.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.actions import ToolCall  # noqa: E402
from nodes.bridge import Usage  # noqa: E402
from nodes.feedback import pending_nodes  # noqa: E402
from nodes.evaluation import EvaluationContext  # noqa: E402
from skills.critique import OfflineEvaluator  # noqa: E402
from skills.storyboard import plan_story  # noqa: E402
from store.lifecycle import stop_engine  # noqa: E402
from tools.generate.base import Framing, ImageRequest, Lighting, ReferenceInput, Weather  # noqa: E402
from tools.generate.offline_image import png_bytes, render_image  # noqa: E402
from tools.generate.tools import GenerateImageArgs, run_generate_image  # noqa: E402

PREMISE = "a tired lifeguard on a beach finds a message in a bottle"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=24)
    args = parser.parse_args(argv)
    cells = list(itertools.islice(itertools.cycle(itertools.product(Lighting, Framing, Weather)), args.repeats))
    plan = plan_story(PREMISE)
    character = {"role": "character", **plan.character.model_dump(mode="json")}
    scene = {"role": "scene", **plan.scene.model_dump(mode="json")}
    try:
        from tools.generate.measure import rgb_array
        from tools.generate.offline_reading import read_picture
    except ImportError:  # a checkout from before the reading
        read_picture = None
    with tempfile.TemporaryDirectory(prefix="jarvishub-bench-evaluate-") as tmp:
        project = Project.init(Path(tmp) / "bench", media_provider="offline", openai_api_key=None)
        runtime = None
        try:
            runtime = Runtime(project)
            grant = runtime.grant_for("bench: references")
            ids = [runtime.bridge.submit(ToolCall(action_id=f"ref-{i}", tool="create_node", args={
                "kind": "reference", "title": inputs["name"], "status": "completed", "inputs": inputs}),
                grant, Usage(), thread_id="bench").observation["created"] for i, inputs in enumerate((character, scene))]
            evaluator = OfflineEvaluator(project.store, project.artifacts)
            renders, evaluations, evaluation_cpu, readings, passed = [], [], [], [], 0
            for seed, (lighting, framing, weather) in enumerate(cells):
                asked = {"lighting": lighting.value, "framing": framing.value, "weather": weather.value}
                refs = [ReferenceInput(node_id=i, role=inputs["role"], inputs=inputs)
                        for i, inputs in zip(ids, (character, scene))]
                request = ImageRequest(prompt=plan.beats[3].prompt, seed=seed, width=512, height=288, references=refs,
                                       **asked)
                start = time.perf_counter()
                png = png_bytes(render_image(request))
                renders.append(time.perf_counter() - start)
                made = run_generate_image(runtime.bridge.context(), GenerateImageArgs(
                    prompt=plan.beats[3].prompt, seed=seed, width=512, height=288, references=ids,
                    reference_roles={ids[0]: "character", ids[1]: "scene"}, intent=asked, **asked))
                [node] = pending_nodes({"mutations": [m.model_dump(mode="json") for m in made.mutations]})
                start, cpu = time.perf_counter(), time.process_time()
                verdict = evaluator.evaluate("", node, EvaluationContext(pending={node.id: node}))
                evaluations.append(time.perf_counter() - start)
                evaluation_cpu.append(time.process_time() - cpu)
                passed += verdict.passed
                if read_picture is not None:
                    start = time.perf_counter()
                    read_picture(rgb_array(png), request, plan.character.colors)
                    readings.append(time.perf_counter() - start)
        finally:
            if runtime is not None:
                runtime.close()
            project.close()
            stop_engine(Path(tmp) / "bench" / ".jarvishub" / "engine")  # it would linger after its folder is gone
    result: dict[str, Any] = {
        "pictures": len(cells), "size": "512x288", "passed": passed,
        "render_s": round(statistics.median(renders), 4),
        "evaluate_s": round(statistics.median(evaluations), 4),
        "evaluate_cpu_s": round(statistics.median(evaluation_cpu), 4),
        "read_s": round(statistics.median(readings), 4) if readings else None,
        "load_average": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
