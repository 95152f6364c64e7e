"""A person who rejects the rebuild of a local repair gets the canvas back as it was: no stale marks are left.

``mark_stale`` commits as its own step, before the ``regenerate_stale`` that needs approval; rejecting that
approval must not leave the marked nodes stale (a rejected turn changes nothing the person can see).
"""

from __future__ import annotations

import json

from langchain_core.messages import ToolMessage

from nodes.grant import Grant
from nodes.models.scripted import ScriptedModel, tool_call
from store.models import NodeStatus


def _made(messages, kind):
    for message in messages:
        if isinstance(message, ToolMessage):
            observation = json.loads(message.content).get("observation") or {}
            if observation.get("kind") == kind:
                return observation["node_id"]
    raise AssertionError(f"no {kind} yet")


def _statuses(project) -> dict[str, str]:
    return {n.id: n.status.value for n in project.store.find_nodes(include_deleted=True)
            if n.kind in ("image", "video")}


def test_rejecting_the_rebuild_after_mark_stale_leaves_no_stale_marks(make_runtime, project):
    built = make_runtime(model=ScriptedModel(script=[
        {"name": "generate_image", "args": {"prompt": "a lighthouse at dusk", "seed": 4, "width": 96, "height": 64}},
        lambda messages: tool_call("generate_video", {"source_node_id": _made(messages, "image"), "duration_s": 0.5,
                                                      "fps": 4}),
        "Made the shot."]), evaluate_generations=False)
    first = built.run("make an image of a lighthouse at dusk and a short video of it")
    assert first.outcome == "replied", first.reply
    image = first.steps[0]["observation"]["node_id"]
    before = _statuses(project)
    assert set(before.values()) == {NodeStatus.COMPLETED.value}

    repair = make_runtime(model=ScriptedModel(script=[
        {"name": "mark_stale", "args": {"node_ids": [image], "reason": "redo the lighting"}},
        lambda messages: tool_call("regenerate_stale", {"node_ids": json.loads(
            [m for m in messages if isinstance(m, ToolMessage)][-1].content)["observation"]["stale"],
            "overrides": {image: {"lighting": "night"}}}),
        "Relit it."]), evaluate_generations=False)
    paused = repair.run("redo the lighting", grant=Grant(approval_tools=["regenerate_stale"]))
    assert paused.outcome == "interrupted" and paused.interrupt["type"] == "approval"
    assert {s for s in _statuses(project).values()} == {NodeStatus.STALE.value}  # marked, waiting for the person

    final = repair.resume(paused.thread_id, {"decision": "reject", "message": "keep it as it is"})
    assert any((s.get("verdict") or {}).get("reason") == "rejected_by_person" for s in final.steps)
    assert _statuses(project) == before  # the marks of the rejected repair are gone
