"""A small 9-shot project for request tests, and the invariants every commit must keep.

The project is built through the real turn loop with a scripted model (small
pictures and short clips keep the suite fast); edits then run with the offline
planner, as a user's would.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from nodes.models.scripted import ScriptedModel, tool_call
from store.models import Direction, EdgeType, NodeStatus

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


def output_key(store, node) -> str:
    """Which output a node is a version of: its shot's image for images (an exploration's candidate has its own
    title), else its title."""
    if node.kind == "image":
        shots = [n.node for n in store.neighbours(node.id, [EdgeType.GENERATED_FROM]) if n.node.kind == "shot"]
        if shots:
            return f"{shots[0].title} image"
    return node.title or node.id


def current_outputs(store) -> dict[str, Any]:
    """Output → its one current node, for every generated output (shot images, clips, the cut)."""
    found: dict[str, Any] = {}
    for kind in ("image", "video"):
        for node in store.find_nodes(kind=kind):
            if node.status != NodeStatus.REJECTED and node.provenance.tool in _GENERATED:
                key = output_key(store, node)
                assert key not in found, f"two current versions of {key}"
                found[key] = node
    return found


def hashes(store) -> dict[str, str]:
    """Title → artifact hash of every current output."""
    return {title: node.outputs[0].sha256 for title, node in current_outputs(store).items()}


def check_invariants(store, *, cut_current: bool = True) -> None:
    """Every output has exactly one current version, and the current cut is made of the current clips in order."""
    outputs = current_outputs(store)  # asserts at most one current per output
    for kind in ("image", "video"):
        for node in store.find_nodes(kind=kind):
            if node.provenance.tool not in _GENERATED or node.status == NodeStatus.REJECTED:
                continue
            newer = [e.node for e in store.neighbours(node.id, [EdgeType.VERSION_OF], Direction.IN)]
            assert all(n.status == NodeStatus.REJECTED for n in newer), f"{node.title}: a newer version is live"
    for n in range(1, N_SHOTS + 1):
        image, clip = outputs[f"shot {n} image"], outputs[f"shot {n} clip"]
        assert clip.inputs["source_node_id"] == image.id, f"shot {n}'s clip is not made from its current image"
    cut = outputs["final cut"]
    assert cut.inputs["clip_node_ids"] == [outputs[f"shot {n} clip"].id for n in range(1, N_SHOTS + 1)]
    if cut_current:
        assert cut.status != NodeStatus.STALE, "the cut's inputs changed but it was not rebuilt"
