""""Regenerate what is stale" after a person's edit: the rebuild is judged by what was asked of it, and the turn's
report counts every stale output it did not rebuild (the two wrong successes of narrative-person-web-edits)."""

from __future__ import annotations

from typing import Any

import pytest

from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import NodeStatus
from store.mutations import UpdateNode
from tests.requests.canvas_checks import build_story, check_invariants, current_outputs
from tools.generate.measure import image_stats
from tools.generate.offline_image import CAPTION_SHARE


@pytest.fixture(scope="module")
def story(project) -> dict[str, Any]:
    from jarvishub.runtime import Runtime

    made: list[Runtime] = []

    def factory(**kwargs: Any) -> Runtime:
        made.append(Runtime(project, **kwargs))
        return made[-1]

    try:
        return build_story(factory)
    finally:
        for runtime in made:
            runtime.close()


def _person_edit(runtime, node_id: str, inputs: dict[str, Any], tag: str) -> None:
    """What ``POST /api/nodes/{id}/inputs`` does: update_node, then mark_stale, as a person."""
    grant = runtime.grants.save(Grant(actor="person:test", tools=["update_node", "mark_stale"]))
    for step, (tool, args) in enumerate([("update_node", {"node_id": node_id, "inputs_patch": inputs}),
                                         ("mark_stale", {"node_ids": [node_id]})]):
        done = runtime.bridge.submit(ToolCall(action_id=f"{tag}-{step}", actor="person:test", tool=tool, args=args),
                                     grant, Usage(), thread_id="ui")
        assert done.verdict == "allow" and "error" not in done.observation, done


def _luma(project, node) -> float:
    return image_stats(project.artifacts.read_bytes(node.outputs[0]), skip_bottom=CAPTION_SHARE).mean_brightness


def test_a_rebuild_after_a_persons_edit_is_not_judged_by_the_edit_before_it(project, runtime, story) -> None:
    # Turn 37 of the scenario: shot made brighter, then set to night by a person.  The rebuilt image inherited
    # the brighter edit's intent ("luma higher than the previous version"), failed it, was set aside, and the
    # turn still said "Regenerated what was stale" with the bright picture current.
    assert runtime.run("make shot 2 brighter").outcome == "replied"
    bright = current_outputs(project.store)["shot 2 image"]
    assert bright.inputs["intent"]["relative"] == {"luma": "higher"}
    _person_edit(runtime, bright.id, {"lighting": "night"}, "night")

    outcome = runtime.run("regenerate what is stale")
    assert outcome.outcome == "replied", outcome.reply
    night = current_outputs(project.store)["shot 2 image"]
    assert night.id != bright.id and night.inputs["lighting"] == "night" and night.status == NodeStatus.COMPLETED
    assert night.inputs["intent"] == {}, "a rebuild is asked for by the edit of its inputs, not by the last request"
    assert _luma(project, night) < _luma(project, bright) - 20, "night is darker than the bright picture it replaces"
    assert not project.store.find_nodes(status=NodeStatus.STALE)
    check_invariants(project.store)


def test_a_stale_output_the_turn_could_not_rebuild_makes_it_fail_and_is_named(project, runtime, story) -> None:
    # Turn 22 of the scenario: an image's inputs its tool cannot remake it with (written before update_node
    # checked them, or by a raw batch).  The rebuild skipped the image, rebuilt its clip and the cut from the old
    # picture, and reported done.
    store = project.store
    before = current_outputs(store)
    image, clip = before["shot 5 image"], before["shot 5 clip"]
    system = runtime.grants.save(Grant(actor="system"))
    raw = runtime.bridge.submit(CanvasMutation(action_id="raw-golden", mutations=[
        UpdateNode(node_id=image.id, inputs_patch={"lighting": "golden hour"})]), system, Usage(), thread_id="raw")
    assert raw.commit is not None
    marked = runtime.bridge.submit(ToolCall(action_id="raw-mark", tool="mark_stale", args={"node_ids": [image.id]}),
                                   system, Usage(), thread_id="raw")
    assert set(marked.observation["stale"]) >= {image.id, clip.id}

    outcome = runtime.run("regenerate what is stale")
    assert outcome.outcome == "failed", outcome.reply
    assert "shot 5 image (its inputs are not generate_image's arguments (lighting:" in outcome.reply, outcome.reply
    assert {"shot 5 image (still stale)", "shot 5 clip (still stale)"} <= set(outcome.measured["missing"])
    after = current_outputs(store)
    # Nothing was rebuilt on the picture that is still stale: the clip (and the cut made from it) stay stale.
    assert after["shot 5 image"].id == image.id and store.get_node(image.id).status == NodeStatus.STALE
    assert after["shot 5 clip"].id == clip.id and store.get_node(clip.id).status == NodeStatus.STALE

    # Mended, the same request rebuilds all of it and reports done.
    mended = runtime.bridge.submit(CanvasMutation(action_id="raw-mend", mutations=[
        UpdateNode(node_id=image.id, inputs_patch={"lighting": "golden-hour"})]), system, Usage(), thread_id="raw")
    assert mended.commit is not None
    outcome = runtime.run("regenerate what is stale")
    assert outcome.outcome == "replied", outcome.reply
    assert not store.find_nodes(status=NodeStatus.STALE)
    check_invariants(store)
