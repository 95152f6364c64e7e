"""Version and cut operations benchmark: prints JSON (wall time, Bolt round trips, Cypher statements, provider calls).

On a 6-shot narrative made by the offline planner (evaluator off, as in ``bench/turn.py``), through the bridge:

* ``relight``: shot 3's image relit (mark_stale + regenerate_stale: a new image, clip and cut: 3 provider calls),
  the edit a restore takes back;
* ``revert`` / ``undo``: shot 3's image reverted to its original, then the revert undone, alternately: each
  restores an artifact and rebuilds the clip and the cut from the signature cache (0 provider calls);
* ``list_versions``: reading shot 3's image's history once it has many versions;
* ``swap`` / ``swap_back``: shots 3 and 4 swapped in the cut (one new cut), then swapped back (from the cache);
* ``undo_turn``: a recorded relight turn of shot 5 taken back (once: an undone turn cannot be undone again alone).

Medians over ``ROUNDS`` rounds, measured in one run, and the ratio of a cached restore to the edit it takes back.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])

from bench.turn import counting_bolt  # noqa: E402
from jarvishub.project import Project  # noqa: E402
from jarvishub.runtime import Runtime  # noqa: E402
from nodes.actions import ToolCall  # noqa: E402
from nodes.bridge import Usage  # noqa: E402
from nodes.grant import Grant  # noqa: E402
from nodes.models.scripted import ScriptedModel, tool_call  # noqa: E402
from store.models import new_id  # noqa: E402
from tools.versions import current_versions  # noqa: E402

SHOTS = 6
ROUNDS = 5
LIGHTS = ("night", "dusk", "neon", "dawn", "sunset", "moonlit", "foggy")


def _call(runtime: Runtime, tool: str, counter: Any, **args: Any) -> dict[str, Any]:
    before = counter.snapshot()
    started = time.perf_counter()
    result = runtime.bridge.submit(ToolCall(action_id=new_id(), tool=tool, args=args),
                                   runtime.grants.save(Grant()), Usage(), thread_id=new_id())
    wall = (time.perf_counter() - started) * 1000
    assert result.verdict == "allow" and "error" not in result.observation, result
    return {"wall_ms": wall, "provider_calls": result.provider_calls, **counter.since(before),
            "observation": result.observation}


def _median(samples: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("wall_ms", "round_trips", "statements", "provider_calls")
    return {k: round(statistics.median(s[k] for s in samples), 1) for k in keys} | {"n": len(samples)}


def _current(store: Any, node_id: str) -> str:
    return current_versions(store, [store.get_node(node_id)])[node_id].id


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="jarvishub-versions-"))
    project = Project.init(folder / "p")
    runtime = Runtime(project, evaluate_generations=False)
    build = runtime.run(f"a {SHOTS}-shot short drama about a lighthouse keeper and a message in a bottle")
    assert build.outcome == "replied", build.reply
    store = project.store
    images = {n.title: n.id for n in store.find_nodes(kind="image")}
    cut = next(n.id for n in store.find_nodes(kind="video") if n.provenance.tool == "assemble_cut")
    image = images["shot 3 image"]
    samples: dict[str, list[dict[str, Any]]] = {k: [] for k in ("relight", "revert", "undo", "list_versions",
                                                                 "swap", "swap_back")}
    with counting_bolt() as counter:
        for round_ in range(ROUNDS):
            marked = _call(runtime, "mark_stale", counter, node_id=_current(store, image))
            relit = _call(runtime, "regenerate_stale", counter, node_ids=marked["observation"]["stale"],
                          overrides={_current(store, image): {"lighting": LIGHTS[round_]}})
            relit["wall_ms"] += marked["wall_ms"]
            samples["relight"].append(relit)
            samples["revert"].append(_call(runtime, "revert_version", counter, node_id=image, original=True))
            samples["undo"].append(_call(runtime, "undo_change", counter, node_id=image))
            samples["list_versions"].append(_call(runtime, "list_versions", counter, node_id=image))
            samples["swap"].append(_call(runtime, "reorder_cut", counter, cut_id=cut, swap=[3, 4]))
            samples["swap_back"].append(_call(runtime, "reorder_cut", counter, cut_id=cut, swap=[3, 4]))
        versions = len(samples["list_versions"][-1]["observation"]["versions"])
        undo_turn = _undo_turn(runtime, store, images["shot 5 image"], counter)
    runtime.close()
    project.close()
    medians = {k: _median(v) for k, v in samples.items()}
    print(json.dumps({
        "shots": SHOTS, "rounds": ROUNDS, "versions_listed": versions, **medians, "undo_turn": undo_turn,
        "revert_to_relight_wall_ratio": round(medians["revert"]["wall_ms"] / medians["relight"]["wall_ms"], 2),
        "swap_back_to_swap_wall_ratio": round(medians["swap_back"]["wall_ms"] / medians["swap"]["wall_ms"], 2),
    }, indent=1))


def _undo_turn(runtime: Runtime, store: Any, image: str, counter: Any) -> dict[str, Any]:
    """A recorded relight turn (scripted model), then undo_turn of it through the bridge."""

    def regenerate(messages: list[Any]) -> Any:
        stale = json.loads(str(messages[-1].content))["observation"]["stale"]
        return tool_call("regenerate_stale", {"node_ids": stale, "overrides": {image: {"lighting": "night"}}})

    worker = Runtime(runtime.project, model=ScriptedModel(script=[
        {"name": "mark_stale", "args": {"node_id": image}}, regenerate, "done"]), evaluate_generations=False)
    outcome = worker.run("make shot 5 night", grant=worker.grants.save(Grant()))
    worker.close()
    assert outcome.outcome == "replied", outcome.reply
    measured = _call(runtime, "undo_turn", counter)
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in measured.items()
            if k in ("wall_ms", "round_trips", "statements", "provider_calls")}


if __name__ == "__main__":
    main()
