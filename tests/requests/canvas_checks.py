"""A small 9-shot project for request tests, and the invariants every commit must keep.

The project is built through the real turn loop with a scripted model (small
pictures and short clips keep the suite fast); edits then run with the offline
planner, as a user's would.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from jarvishub.evaluation.outputs import Canvas, invariants
from jarvishub.evaluation.outputs import current_outputs as _current_outputs
from nodes.models.scripted import ScriptedModel, tool_call
from store.models import NodeStatus

N_SHOTS = 9
PREMISE = "a 9-shot short drama about a lighthouse keeper and a message in a bottle, by the sea"


def _last_observation(messages: list[Any]) -> dict[str, Any]:
    tool = [m for m in messages if isinstance(m, ToolMessage)][-1]
    return json.loads(str(tool.content))["observation"]


def build_story(runtime_factory, *, width: int = 192, height: int = 128) -> dict[str, Any]:
    """Storyboard → shot images → clips → cut, through the bridge, with small media; returns the ids."""
    ids: dict[str, Any] = {}

    def images(messages: list[Any]) -> AIMessage:
        ids["board"] = _last_observation(messages)
        return tool_call("skill__reference_images", {"shot_ids": ids["board"]["shot_ids"], "width": width,
                                                     "height": height}, "c1")

    def clips(messages: list[Any]) -> AIMessage:
        ids["images"] = _last_observation(messages)["image_ids"]
        return tool_call("skill__video_clips", {"image_ids": ids["images"], "duration_s": 0.5, "fps": 6}, "c2")

    def cut(messages: list[Any]) -> AIMessage:
        ids["clips"] = _last_observation(messages)["clip_ids"]
        return tool_call("assemble_cut", {"clip_node_ids": ids["clips"], "title": "final cut"}, "c3")

    model = ScriptedModel(script=[
        {"name": "skill__storyboard", "args": {"premise": PREMISE, "n_shots": N_SHOTS}}, images, clips, cut,
        "built"])
    runtime = runtime_factory(model=model)
    outcome = runtime.run("build the story")
    assert outcome.outcome == "replied", outcome.reply
    return ids


_GENERATED = ("generate_image", "generate_video", "assemble_cut")


def current_outputs(store) -> dict[str, Any]:
    """Output → its one current node, for every generated output (shot images, clips, the cut); the output keys
    are the evaluation's (``jarvishub.evaluation.outputs``): "shot 3 image", "shot 3 clip", "final cut"."""
    found, problems = _current_outputs(Canvas.read(store))
    assert not problems, problems[0]
    return {key: node for key, node in found.items() if node.provenance.tool in _GENERATED}


def hashes(store) -> dict[str, str]:
    """Title → artifact hash of every current output."""
    return {title: node.outputs[0].sha256 for title, node in current_outputs(store).items()}


def check_invariants(store, *, cut_current: bool = True) -> None:
    """Every output has exactly one current version, and the current cut is made of the current clips in order."""
    problems = invariants(Canvas.read(store))  # one current version per output, no live node under a newer one
    assert not problems, "; ".join(problems)
    outputs = current_outputs(store)
    for n in range(1, N_SHOTS + 1):
        image, clip = outputs[f"shot {n} image"], outputs[f"shot {n} clip"]
        assert clip.inputs["source_node_id"] == image.id, f"shot {n}'s clip is not made from its current image"
    cut = outputs["final cut"]
    assert cut.inputs["clip_node_ids"] == [outputs[f"shot {n} clip"].id for n in range(1, N_SHOTS + 1)]
    if cut_current:
        assert cut.status != NodeStatus.STALE, "the cut's inputs changed but it was not rebuilt"
