"""A turn's own changes follow the output it changes, and history never comes back to life (#23).

In-process, through the bridge, on a real project: the steps two racing turns take, laid out one after the
other, so each interleaving the CLI race (``test_concurrent_edits.py``) may or may not hit is hit every time.
Turn A rebuilds shot 4's image first; turn B, which read the same image, rebuilds after A committed: its
``regenerate_stale`` then finds A's version at the head and rebuilds that one.
"""

from __future__ import annotations

from typing import Any

import pytest

from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from store.errors import StaleVersion
from store.models import Direction, EdgeType, NodeStatus, new_id
from store.mutations import SetStatus

IMAGE = {"prompt": "a baker cycles across town at first light", "width": 128, "height": 72}


def _call(runtime: Runtime, tool: str, turn: str, **args: Any) -> dict[str, Any]:
    """One tool call of turn ``turn`` through the bridge; its observation (the call must succeed)."""
    done = runtime.bridge.submit(ToolCall(action_id=new_id(), tool=tool, args=args), runtime.grant_for(f"use {tool}"),
                                 Usage(), thread_id=turn, turn_id=turn)
    assert done.verdict == "allow" and "error" not in done.observation, done
    return done.observation


def _shot(runtime: Runtime, seed: int, **look: Any) -> tuple[str, str, str]:
    """An image, its clip and a cut of the clip."""
    turn = new_id()
    image = _call(runtime, "generate_image", turn, seed=seed, **IMAGE, **look)["node_id"]
    clip = _call(runtime, "generate_video", turn, source_node_id=image, duration_s=0.5, fps=6)["node_id"]
    cut = _call(runtime, "assemble_cut", turn, clip_node_ids=[clip], title="final cut")["node_id"]
    return image, clip, cut


def _edit(runtime: Runtime, turn: str, marked: list[str], image: str, change: dict[str, Any]) -> list[dict[str, Any]]:
    """What the edit playbook does once it has marked ``marked``: rebuild them with the change keyed by the image
    it saw."""
    return _call(runtime, "regenerate_stale", turn, node_ids=marked, overrides={image: change})["regenerated"]


def _newest_image(runtime: Runtime, image: str) -> Any:
    store = runtime.project.store
    newer = store.lineage(image, [EdgeType.VERSION_OF], Direction.IN)
    live = [e.node for e in newer if e.node.status != NodeStatus.REJECTED]
    assert len(live) == 1, [(e.node.id, e.node.status.value) for e in newer]
    return live[0]


def test_a_turn_that_rebuilds_another_turns_version_applies_its_own_change(runtime: Runtime):
    image, clip, cut = _shot(runtime, seed=41)
    turn_a, turn_b = new_id(), new_id()
    marked = _call(runtime, "mark_stale", turn_a, node_ids=[image])["stale"]  # both turns marked the same set
    _edit(runtime, turn_a, marked, image, {"lighting": "night", "intent": {"lighting": "night"}})
    rebuilt = _edit(runtime, turn_b, marked, image, {"lighting": "neon", "intent": {"lighting": "neon"}})

    current = _newest_image(runtime, image)
    assert current.provenance.turn_id == turn_b
    assert current.inputs["lighting"] == "neon" and current.inputs["intent"] == {"lighting": "neon"}
    store = runtime.project.store
    [older] = [n.node for n in store.neighbours(current.id, [EdgeType.VERSION_OF])]
    assert older.provenance.turn_id == turn_a and older.inputs["lighting"] == "night"  # A's version stays, superseded
    assert [r["kind"] for r in rebuilt if "new" in r] == ["image", "video", "video"]  # on A's: image, clip, cut


def test_a_number_a_turn_moved_moves_the_newer_head_by_as_much(runtime: Runtime):
    image, _, _ = _shot(runtime, seed=42)
    turn_a, turn_b = new_id(), new_id()
    marked = _call(runtime, "mark_stale", turn_a, node_ids=[image])["stale"]
    darker = {"exposure": -0.6, "intent": {"relative": {"luma": "lower"}}}  # "make shot 4 darker", from 0
    _edit(runtime, turn_a, marked, image, darker)
    _edit(runtime, turn_b, marked, image, darker)  # B asked for darker too, seeing the same first image

    assert _newest_image(runtime, image).inputs["exposure"] == pytest.approx(-1.2)  # darker twice


def test_marking_a_superseded_version_marks_the_current_one_and_never_revives_history(runtime: Runtime):
    image, clip, cut = _shot(runtime, seed=43)
    turn_a, turn_b = new_id(), new_id()
    marked = _call(runtime, "mark_stale", turn_a, node_ids=[image])["stale"]
    _edit(runtime, turn_a, marked, image, {"lighting": "dusk"})
    head = _newest_image(runtime, image)
    store = runtime.project.store
    assert store.get_node(image).status == NodeStatus.REJECTED

    again = _call(runtime, "mark_stale", turn_b, node_ids=[image])  # B planned on the image A has replaced

    assert again["replaced"] == {image: head.id} and image not in again["stale"] and head.id in again["stale"]
    assert {store.get_node(i).status for i in (image, clip, cut)} == {NodeStatus.REJECTED}
    assert store.get_node(head.id).status == NodeStatus.STALE
    # A rejected node no version replaced (a candidate a person turned down) is not marked at all.
    loser = _call(runtime, "generate_image", new_id(), seed=44, **IMAGE)["node_id"]
    _call(runtime, "set_status", new_id(), node_id=loser, status="rejected")
    refused = runtime.bridge.submit(ToolCall(action_id=new_id(), tool="mark_stale", args={"node_ids": [loser]}),
                                    runtime.grant_for("use mark_stale"), Usage(), thread_id=turn_b)
    assert "nothing to mark stale" in refused.observation.get("error", "") and refused.commit is None
    assert store.get_node(loser).status == NodeStatus.REJECTED


def test_a_mark_read_before_another_turn_superseded_the_node_is_refused_at_commit(runtime: Runtime):
    image, clip, cut = _shot(runtime, seed=45)
    spec = runtime.registry.get("mark_stale")
    ctx = runtime.bridge.context(turn_id=new_id())
    marks = spec.run(ctx, spec.args_schema(node_ids=[clip])).mutations  # read: the clip and the cut are live
    assert {m.node_id for m in marks} == {clip, cut} and all(m.expected_version is not None for m in marks)
    store = runtime.project.store
    replaced = [SetStatus(node_id=cut, status=NodeStatus.REJECTED, reason="another turn superseded the cut")]
    store.apply(replaced, ticket=store._authority.issue(new_id(), replaced))

    with pytest.raises(StaleVersion):  # the mark would have made the superseded cut stale, i.e. live again
        store.apply(marks, ticket=store._authority.issue(new_id(), marks))
    assert store.get_node(cut).status == NodeStatus.REJECTED
