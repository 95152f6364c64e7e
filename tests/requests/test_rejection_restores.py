"""Rejecting a version later (the web canvas, an agent's set_status) keeps the project whole, as a rejection in the turn does."""

from __future__ import annotations

import pytest

from nodes.actions import ToolCall
from nodes.bridge import Usage
from store.models import NodeStatus
from tests.requests.canvas_checks import build_story, check_invariants, current_outputs, hashes


@pytest.fixture
def story(make_runtime):
    return build_story(make_runtime)


def test_rejecting_a_new_image_later_restores_its_shot_and_the_cut_is_rebuilt(project, runtime, story):
    store = project.store
    before = hashes(store)
    assert runtime.run("make shot 3 night").outcome == "replied"
    assert runtime.run("change the lighting of shot 5 to dawn").outcome == "replied"
    check_invariants(store)
    night = current_outputs(store)["shot 3 image"]
    edited = hashes(store)
    assert edited["shot 3 image"] != before["shot 3 image"] and edited["shot 5 image"] != before["shot 5 image"]

    result = runtime.bridge.submit(
        ToolCall(action_id="reject-night", tool="set_status",
                 args={"node_id": night.id, "status": "rejected", "reason": "too dark"}),
        runtime.grant_for("reject the night version of shot 3"), Usage(), thread_id="person")
    assert result.verdict == "allow", result.observation

    # Exactly one current version of every output: shot 3's image and clip are their old selves again; the cut
    # that used the night clip is rejected, and the one before it is current but stale (shot 5's clip changed).
    outputs = current_outputs(store)
    restored = hashes(store)
    assert restored["shot 3 image"] == before["shot 3 image"] and restored["shot 3 clip"] == before["shot 3 clip"]
    assert restored["shot 5 image"] == edited["shot 5 image"], "rejecting shot 3 touches nothing of shot 5"
    assert store.get_node(night.id).status == NodeStatus.REJECTED
    assert outputs["final cut"].status == NodeStatus.STALE

    assert runtime.run("regenerate what is stale").outcome == "replied"
    check_invariants(store)
    final = hashes(store)
    assert final["shot 3 image"] == before["shot 3 image"] and final["shot 5 image"] == edited["shot 5 image"]
    assert final["final cut"] not in {before["final cut"], edited["final cut"]}
