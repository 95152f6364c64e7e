"""A person's edit of a node's inputs (``POST /api/nodes/{id}/inputs``) and the model's ``update_node`` are checked
against the tool that made the node: a field or value it cannot remake the node with is refused, named, and
nothing changes.  Over real HTTP on loopback, and through the bridge."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import NodeStatus
from tools.generate.base import Lighting

TOKEN = "test-token-0123456789"  # the server fixture's token (conftest.py)
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(server) -> Any:
    with httpx.Client(base_url=server.base_url, timeout=60, headers=AUTH) as c:
        yield c


def _unchanged(demo, node_id: str) -> tuple[int, dict[str, Any], NodeStatus, int]:
    node = demo.project.store.get_node(node_id)
    return demo.project.store.canvas_version(), node.inputs, node.status, node.version


def test_a_value_the_generator_does_not_know_is_refused_with_the_allowed_values(client, demo) -> None:
    node_id = demo.ids["dusk"]  # made by generate_image, lighting night
    before = _unchanged(demo, node_id)
    response = client.post(f"/api/nodes/{node_id}/inputs", json={"inputs": {"lighting": "golden hour"}})
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "InvalidEdit"
    assert "lighting='golden hour'" in body["detail"] and "generate_image" in body["detail"]
    assert all(value.value in body["detail"] for value in Lighting)  # every preset it could have meant
    assert _unchanged(demo, node_id) == before  # neither the edit nor the stale marks were written


def test_a_field_the_generator_does_not_take_is_refused_by_name(client, demo) -> None:
    node_id = demo.ids["dusk"]
    before = _unchanged(demo, node_id)
    response = client.post(f"/api/nodes/{node_id}/inputs", json={"inputs": {"lightning": "night", "seed": 3}})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert "lightning='night': generate_image has no such input" in detail and "lighting" in detail
    assert "seed" not in detail.split("cannot remake it with")[1].split("(allowed")[0]  # the good field is not blamed
    response = client.post(f"/api/nodes/{node_id}/inputs", json={"inputs": {"exposure": 9}})
    assert response.status_code == 422 and "exposure=9" in response.json()["detail"], response.text
    assert _unchanged(demo, node_id) == before


def test_a_value_the_generator_knows_is_written_and_marks_the_node_stale(client, demo) -> None:
    node_id = demo.ids["dusk"]
    response = client.post(f"/api/nodes/{node_id}/inputs", json={"inputs": {"lighting": "golden-hour"}})
    assert response.status_code == 200, response.text
    node = demo.project.store.get_node(node_id)
    assert node.inputs["lighting"] == "golden-hour" and node.status == NodeStatus.STALE
    # A node no generation tool made keeps free-form inputs.
    note = demo.ids["note"]
    response = client.post(f"/api/nodes/{note}/inputs", json={"inputs": {"mood": "golden hour"}})
    assert response.status_code == 200, response.text
    assert demo.project.store.get_node(note).inputs["mood"] == "golden hour"


def test_the_models_update_node_gets_the_same_check_through_the_bridge(demo) -> None:
    runtime, node_id = demo.runtime, demo.ids["pier_warm"]
    grant = runtime.grants.save(Grant(actor="agent", tools=["update_node"]))
    before = _unchanged(demo, node_id)
    result = runtime.bridge.submit(ToolCall(action_id="model-edit-1", tool="update_node",
                                            args={"node_id": node_id, "inputs_patch": {"lighting": "Golden Hour"}}),
                                   grant, Usage(), thread_id="model")
    assert result.verdict == "allow"  # the grant allows the tool; the tool refuses the value, and the model sees why
    assert result.observation["error_type"] == "InvalidInputs", result.observation
    assert "lighting='Golden Hour'" in result.observation["error"] and "golden-hour" in result.observation["error"]
    assert result.commit is None and _unchanged(demo, node_id) == before
    ok = runtime.bridge.submit(ToolCall(action_id="model-edit-2", tool="update_node",
                                        args={"node_id": node_id, "inputs_patch": {"lighting": "dusk"}}),
                               grant, Usage(), thread_id="model")
    assert ok.commit is not None and demo.project.store.get_node(node_id).inputs["lighting"] == "dusk"


def test_an_edit_that_meets_a_concurrent_commit_runs_again_on_the_current_canvas(client, demo, monkeypatch) -> None:
    """The web server lays out a turn's new nodes as their commits arrive; when that move lands between the
    read of the person's ``mark_stale`` and its commit, the store refuses the batch as stale.  The person is not
    told 403 with their inputs half-written: the action runs again on the canvas as it now is."""
    from jarvishub.web.layout import LAYOUT_ACTOR, layout_grant
    from nodes.actions import CanvasMutation
    from store.models import Position
    from store.mutations import MoveNode

    runtime, node_id = demo.runtime, demo.ids["waves"]  # audio made by generate_audio, nothing made from it
    bridge, real_execute, moved = runtime.bridge, runtime.bridge.execute, []

    def execute_then_layout(action: Any, ctx: Any, *rest: Any) -> Any:
        result = real_execute(action, ctx, *rest)
        if getattr(action, "tool", None) == "mark_stale" and not moved:  # after its read, before its commit
            move = CanvasMutation(action_id=f"layout-{len(moved)}", actor=LAYOUT_ACTOR,
                                  mutations=[MoveNode(node_id=node_id, position=Position(x=4321, y=1234))])
            moved.append(bridge.submit(move, layout_grant(runtime), Usage(), thread_id="layout"))
        return result

    monkeypatch.setattr(bridge, "execute", execute_then_layout)
    response = client.post(f"/api/nodes/{node_id}/inputs", json={"inputs": {"voice": "alto"}})
    assert moved and moved[0].commit is not None  # the concurrent commit did land in between
    assert response.status_code == 200, response.text
    node = demo.project.store.get_node(node_id)
    assert node.inputs["voice"] == "alto" and node.status == NodeStatus.STALE and node.position.x == 4321
