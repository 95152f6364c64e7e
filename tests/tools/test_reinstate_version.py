"""Selecting a candidate an exploration rejected never leaves two current versions of one output.

While the selected candidate is current, "mark <rejected candidate> as selected" is refused with a typed
reason naming that candidate; once it is rejected, selecting another candidate supersedes the explored
image and marks what was made from it stale, so the one current version is the newly selected one.
"""

from __future__ import annotations

from typing import Any

import pytest

from jarvishub.explore import explore
from nodes.actions import ToolCall
from nodes.bridge import Usage
from store.models import Direction, EdgeType, NodeStatus, new_id
from tools.versions import current_version


def _submit(runtime: Any, tool: str, **args: Any) -> Any:
    action = ToolCall(action_id=new_id(), tool=tool, args=args)
    return runtime.bridge.submit(action, runtime.grant_for(f"{tool} {args}"), Usage(), thread_id=new_id())


def _live_versions(project: Any, explored: str) -> list[str]:
    """The versions of the explored image's output (itself and every version made of it) that are not rejected."""
    newer = project.store.lineage(explored, [EdgeType.VERSION_OF], Direction.IN)
    nodes = [project.store.get_node(explored), *(e.node for e in newer)]
    return sorted(n.id for n in nodes if n.status != NodeStatus.REJECTED)


@pytest.fixture(scope="module")
def explored(project) -> dict[str, Any]:
    from jarvishub.runtime import Runtime

    runtime = Runtime(project, evaluate_generations=False)
    try:
        image = _submit(runtime, "generate_image", prompt="a lighthouse above the harbour", seed=5, width=96, height=64)
        clip = _submit(runtime, "generate_video", source_node_id=image.observation["node_id"], duration_s=0.5, fps=4)
        result = explore(runtime, image.observation["node_id"], 3, "try three lighting moods")
    finally:
        runtime.close()
    return {"image": image.observation["node_id"], "clip": clip.observation["node_id"], "result": result}


def test_selecting_a_rejected_candidate_beside_the_selected_one_is_refused(make_runtime, project, explored):
    result = explored["result"]
    loser = next(c for c in result.candidate_ids if c != result.selected_id)
    before = project.store.canvas_version()
    refused = _submit(make_runtime(evaluate_generations=False), "set_status", node_id=loser, status="selected")
    assert refused.verdict == "allow" and refused.observation["error_type"] == "NotHeadVersion"
    assert result.selected_id in refused.observation["error"] and "reject" in refused.observation["error"]
    assert project.store.canvas_version() == before  # nothing written
    assert project.store.get_node(loser).status == NodeStatus.REJECTED
    assert [v for v in _live_versions(project, explored["image"]) if v in result.candidate_ids] == [result.selected_id]


def test_after_rejecting_the_selected_one_another_candidate_becomes_the_only_current_version(
        make_runtime, project, explored):
    result = explored["result"]
    runtime = make_runtime(evaluate_generations=False)
    rejected = _submit(runtime, "set_status", node_id=result.selected_id, status="rejected")
    assert rejected.verdict == "allow" and "error" not in rejected.observation, rejected
    loser = next(c for c in result.candidate_ids if c != result.selected_id)
    selected = _submit(runtime, "set_status", node_id=loser, status="selected")
    assert selected.verdict == "allow" and "error" not in selected.observation, selected
    assert selected.observation["superseded"] == [explored["image"]]
    assert _live_versions(project, explored["image"]) == [loser]
    assert current_version(project.store, project.store.get_node(explored["image"])).id == loser
    clip = project.store.get_node(explored["clip"])  # made from the superseded image: to be rebuilt from the new one
    assert clip.status == NodeStatus.STALE and explored["clip"] in selected.observation["stale"]
