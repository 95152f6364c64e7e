"""The web canvas HTTP API without the page: tokens, artifacts, queries, paging, approvals, the event stream."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import httpx
import pytest

from jarvishub.web import BackgroundServer, create_app, serve
from jarvishub.web.app import sniff_mime
from jarvishub.web.views import CanvasViews
from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import Direction, EdgeType, NodeStatus, Position
from store.mutations import CreateNode, DeleteNode, Link, MoveNode
from tests.web.conftest import Builder
from tools.generate.base import Lighting

TOKEN = "test-token-0123456789"  # the server fixture's token (conftest.py)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
MISSING = "01ZZZZZZZZZZZZZZZZZZZZZZZZ"  # a well-formed node id no canvas has


@pytest.fixture
def client(server) -> Any:
    """A client that reads as the page does: with the session cookie the token buys (writes send the header)."""
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        assert c.post("/api/session", headers=AUTH).status_code == 204
        yield c


def _wait_job(client: httpx.Client, job_id: str, *statuses: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["status"] in statuses:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never reached {statuses}: {job}")


def test_writes_without_the_token_are_refused_and_change_nothing(server, demo) -> None:
    client = httpx.Client(base_url=server.base_url, timeout=30)  # no session cookie: none is ever set below
    store, node_id = demo.project.store, demo.ids["mira"]
    version, position = store.canvas_version(), store.get_node(node_id).position
    writes = [
        ("post", f"/api/nodes/{node_id}/move", {"x": 900, "y": 900}),
        ("post", "/api/requests", {"text": "note: should never exist", "node_ids": [node_id]}),
        ("post", "/api/threads/some-thread/resume", {"decision": "approve"}),
        ("post", "/api/session", None),
    ]
    for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": TOKEN}):
        for method, url, body in writes:
            response = client.request(method, url, json=body, headers=headers)
            assert response.status_code == 401, (url, headers, response.text)
            assert response.headers["www-authenticate"] == "Bearer"
    assert "jarvishub_session" not in client.cookies
    client.close()
    assert store.canvas_version() == version
    assert store.get_node(node_id).position == position
    assert all("never exist" not in str(n.inputs) for n in store.find_nodes(kind="feedback"))


def test_artifacts_are_served_only_from_the_store_by_hash(client, server, demo) -> None:
    sha = demo.project.store.get_node(demo.ids["pier"]).outputs[0].sha256
    good = client.get(f"/artifacts/{sha}")
    assert good.status_code == 200 and good.headers["content-type"] == "image/png"
    assert good.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert good.headers["x-content-type-options"] == "nosniff"
    assert good.headers["content-security-policy"].startswith("sandbox")

    for bad in ("..%2F..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", sha.upper(), sha[:-1], sha + "0",
                "%2e%2e", "%2e%2e%2fjarvishub.toml"):
        response = client.get(f"/artifacts/{bad}")
        assert response.status_code in (400, 404), bad
        assert b"root:" not in response.content
    assert client.get("/artifacts/" + "0" * 64).status_code == 404
    # A raw request line that no client would normalise.
    for target in ("/artifacts/../../../../../../etc/passwd", f"/artifacts/{sha}/../../../jarvishub.toml"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            raw = b"".join(iter(lambda: sock.recv(65536), b""))
        assert raw.split(b" ", 2)[1] in (b"400", b"404"), raw[:200]
        assert b"root:" not in raw and b"[project]" not in raw


def test_a_foreign_host_header_is_refused(client) -> None:
    assert client.get("/api/info", headers={"Host": "attacker.example"}).status_code == 400
    assert client.get("/api/info", headers={"Host": "localhost:1234"}).status_code == 200


def test_queries_return_node_ids_and_refuse_writes(client, demo) -> None:
    ok = client.post("/api/query", json={"cypher": "MATCH (n:CanvasNode) WHERE n.kind = $k RETURN n",
                                         "params": {"k": "reference"}}, headers=AUTH)
    assert ok.status_code == 200
    assert set(ok.json()["node_ids"]) == {demo.ids["mira"], demo.ids["harbour"]}
    refused = client.post("/api/query", json={"cypher": "MATCH (n:CanvasNode) DETACH DELETE n"}, headers=AUTH)
    assert refused.status_code == 400 and refused.json()["error"] == "CypherWriteRefused"
    assert "read-only" in refused.json()["detail"]
    broken = client.post("/api/query", json={"cypher": "MATCH (n:CanvasNode RETURN n"}, headers=AUTH)
    assert broken.status_code == 400 and broken.json()["error"] == "CypherSyntaxError"
    assert client.get(f"/api/nodes/{demo.ids['mira']}").status_code == 200


def test_the_canvas_pages_and_node_reads(client, demo) -> None:
    total = sum(demo.project.store.count_nodes().values())
    seen, edges, offset = [], [], 0
    while offset is not None:
        page = client.get("/api/canvas", params={"offset": offset, "limit": 4}).json()
        assert page["total"] == total and len(page["nodes"]) <= 4
        seen += [n["id"] for n in page["nodes"]]
        edges += [e["id"] for e in page["edges"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) == total
    assert len(edges) == len(set(edges)) == len([e for e in demo.project.store.edges() if e.type != EdgeType.IN_GROUP])

    page_node = client.get(f"/api/nodes/{demo.ids['page']}").json()
    assert page_node["view"]["media"]["from_node"] == demo.ids["screenshot"]
    history = client.get(f"/api/nodes/{demo.ids['pier_warm']}/history").json()
    assert [v["version"] for v in history["versions"]] == sorted(v["version"] for v in history["versions"])
    assert [i["node"]["id"] for i in history["older"]] == [demo.ids["pier"]]
    lineage = client.get(f"/api/nodes/{demo.ids['clip']}/lineage", params={"max_depth": 1}).json()
    assert [i["node"]["id"] for i in lineage["ancestors"]] == [demo.ids["pier_warm"]]
    batch = client.get("/api/nodes", params={"ids": f"{demo.ids['mira']},{MISSING}"}).json()
    assert [n["id"] for n in batch["nodes"]] == [demo.ids["mira"]] and batch["removed"] == [MISSING]
    assert client.get(f"/api/nodes/{MISSING}").status_code == 404


def test_the_api_is_documented(client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/canvas", "/api/nodes/{node_id}", "/api/nodes/{node_id}/history", "/api/nodes/{node_id}/lineage",
                 "/api/query", "/api/events", "/api/requests", "/api/threads/{thread_id}/pending",
                 "/api/threads/{thread_id}/resume", "/api/nodes/{node_id}/move", "/artifacts/{sha256}"):
        assert path in paths, path
    assert client.get("/docs").status_code == 200


def test_an_approval_waits_for_a_person_and_is_recorded(client, demo) -> None:
    store = demo.project.store
    started = client.post("/api/requests", headers=AUTH,
                          json={"text": "note: check the horizon line", "approval_tools": ["create_node"]})
    assert started.status_code == 202
    job = _wait_job(client, started.json()["id"], "interrupted", "done", "failed")
    assert job["status"] == "interrupted" and job["interrupt"]["type"] == "approval"
    pending = client.get(f"/api/threads/{job['thread_id']}/pending").json()["pending"]
    assert pending["action"]["tool"] == "create_node"
    assert not [n for n in store.find_nodes(kind="text") if n.title == "check the horizon line"]

    resumed = client.post(f"/api/threads/{job['thread_id']}/resume", headers=AUTH, json={"decision": "approve"})
    assert resumed.status_code == 202
    done = _wait_job(client, resumed.json()["id"], "done", "failed", "interrupted")
    assert done["status"] == "done", done
    assert [n for n in store.find_nodes(kind="text") if n.title == "check the horizon line"]
    approval = store.get_node(resumed.json()["feedback_node_id"])
    assert approval.kind == "feedback" and approval.inputs["interaction"] == "approval"
    assert approval.inputs["actor"] == "person:tester"
    assert client.get(f"/api/threads/{job['thread_id']}/pending").json()["pending"] is None
    again = client.post(f"/api/threads/{job['thread_id']}/resume", headers=AUTH, json={"decision": "approve"})
    assert again.status_code == 409

    rejected = client.post("/api/requests", headers=AUTH,
                           json={"text": "note: rejected idea", "ask_before_changes": True}).json()
    job = _wait_job(client, rejected["id"], "interrupted", "done", "failed")
    answer = client.post(f"/api/threads/{job['thread_id']}/resume", headers=AUTH,
                         json={"decision": "reject", "message": "not now"})
    _wait_job(client, answer.json()["id"], "done", "failed", "interrupted")
    assert not [n for n in store.find_nodes(kind="text") if n.title == "rejected idea"]
    assert store.get_node(answer.json()["feedback_node_id"]).inputs["interaction"] == "rejection"


def test_a_request_about_unknown_nodes_writes_nothing(client, demo) -> None:
    version = demo.project.store.canvas_version()
    response = client.post("/api/requests", headers=AUTH, json={"text": "fix", "node_ids": [MISSING]})
    assert response.status_code == 404
    assert demo.project.store.commits(since_version=version) == []


def test_the_event_stream_names_changed_nodes(client, server, demo) -> None:
    node_id = demo.ids["harbour"]
    events: list[dict[str, Any]] = []
    ready = threading.Event()

    def listen() -> None:
        since = demo.project.store.canvas_version()
        with httpx.Client(base_url=server.base_url, timeout=10, headers=AUTH) as sse, \
                sse.stream("GET", "/api/events", params={"since": since}) as stream:
            name = None
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    if name == "hello":
                        ready.set()
                    elif name == "canvas":
                        events.append(json.loads(line[6:]))
                        if node_id in events[-1].get("node_ids", []):
                            return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert ready.wait(10)
    position = demo.project.store.get_node(node_id).position
    moved = client.post(f"/api/nodes/{node_id}/move", headers=AUTH, json={"x": position.x, "y": position.y + 1})
    assert moved.status_code == 200 and moved.json()["pinned"] is True
    started = time.monotonic()
    listener.join(5)
    assert not listener.is_alive(), events
    print(f"\nmove seen on the event stream after {time.monotonic() - started:.2f} s")
    assert "person:tester" in {c["actor"] for e in events for c in e["commits"]}
    assert [n.node.id for n in demo.project.store.neighbours(node_id, [EdgeType.REFERENCES], Direction.IN)]


def test_media_types_come_from_the_bytes(tmp_path) -> None:
    samples = {b"\x89PNG\r\n\x1a\n0000": "image/png", b"\x00\x00\x00\x18ftypmp42": "video/mp4",
               b"RIFF\x00\x00\x00\x00WAVEfmt ": "audio/wav", b"<!doctype html><script>": "application/octet-stream"}
    for index, (head, mime) in enumerate(samples.items()):
        path = tmp_path / f"blob{index}"
        path.write_bytes(head)
        assert sniff_mime(path) == mime


def test_a_server_beyond_loopback_needs_permission_and_a_token(tmp_path) -> None:
    with pytest.raises(ValueError, match="allow_remote"):
        serve(tmp_path, host="0.0.0.0")
    with pytest.raises(ValueError, match="token"):
        serve(tmp_path, host="0.0.0.0", allow_remote=True)
    assert not (tmp_path / ".jarvishub").exists()  # refused before anything was opened


def test_reads_need_the_token_or_its_session_cookie(demo) -> None:
    app = create_app(demo.runtime, "remote-token", allowed_hosts=None, watch=False)
    sha = demo.project.store.get_node(demo.ids["pier"]).outputs[0].sha256
    with BackgroundServer(app) as remote, httpx.Client(base_url=remote.base_url, timeout=30) as c:
        for url in ("/api/info", "/api/canvas", f"/api/nodes/{demo.ids['pier']}", f"/artifacts/{sha}"):
            assert c.get(url).status_code == 401, url
        assert c.get("/api/info", headers={"Authorization": "Bearer remote-token"}).status_code == 200
        assert c.get("/").status_code == 200  # the page itself holds no data
        session = c.post("/api/session", headers={"Authorization": "Bearer remote-token"})
        assert session.status_code == 204
        assert "HttpOnly" in session.headers["set-cookie"] and "SameSite=strict" in session.headers["set-cookie"]
        assert c.get(f"/artifacts/{sha}").status_code == 200  # the cookie is enough for reads ...
        moved = c.post(f"/api/nodes/{demo.ids['pier']}/move", json={"x": 1, "y": 1})
        assert moved.status_code == 401  # ... never for writes


def test_the_views_catch_up_from_the_commit_log_reading_only_what_changed(demo) -> None:
    """After the first read, a commit costs a read of the nodes it touched, and the views equal a fresh read."""
    store = demo.project.store
    views = CanvasViews(store)
    before = views.page(0, 5000)
    assert views.reads == {"whole": 1, "patched": 0, "patched_nodes": 0}
    builder = Builder(demo.runtime)
    builder.count = 1000  # the demo's own builder used demo-1 ...: new action ids, or the bridge replays them
    note = CreateNode(kind="text", title="caught up", inputs={"text": "one new note"})
    builder.mutate(note, Link(type=EdgeType.REFERENCES, source=note.id, target=demo.ids["dusk"]))
    after = views.page(0, 5000)
    assert views.reads["whole"] == 1 and views.reads["patched"] == 1
    assert views.reads["patched_nodes"] == 2  # the note and the image it references, not the canvas
    assert after.total == before.total + 1
    fresh = CanvasViews(store).page(0, 5000)
    assert [n.model_dump() for n in after.nodes] == [n.model_dump() for n in fresh.nodes]
    assert sorted(e.id for e in after.edges) == sorted(e.id for e in fresh.edges)
    assert views.lens("story").canvas_version == after.canvas_version

    builder.mutate(DeleteNode(node_id=note.id))  # gone, and so is its edge
    gone = views.page(0, 5000)
    assert views.reads["whole"] == 1 and note.id not in {n.id for n in gone.nodes}
    assert not [e for e in gone.edges if note.id in (e.source, e.target)]
    assert [n.id for n in gone.nodes] == [n.id for n in CanvasViews(store).page(0, 5000).nodes]


# -- a person's inputs edit (POST /api/nodes/{id}/inputs) and the model's update_node: checked against the tool
# that made the node; a field or value it cannot remake the node with is refused, named, and nothing changes.

def _unchanged(demo, node_id: str) -> tuple[int, dict[str, Any], NodeStatus, int]:
    node = demo.project.store.get_node(node_id)
    return demo.project.store.canvas_version(), node.inputs, node.status, node.version


def test_a_value_the_generator_does_not_know_is_refused_with_the_allowed_values(client, demo) -> None:
    node_id = demo.ids["dusk"]  # made by generate_image, lighting night
    before = _unchanged(demo, node_id)
    response = client.post(f"/api/nodes/{node_id}/inputs", headers=AUTH, json={"inputs": {"lighting": "golden hour"}})
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "InvalidEdit"
    assert "lighting='golden hour'" in body["detail"] and "generate_image" in body["detail"]
    assert all(value.value in body["detail"] for value in Lighting)  # every preset it could have meant
    assert _unchanged(demo, node_id) == before  # neither the edit nor the stale marks were written


def test_a_field_the_generator_does_not_take_is_refused_by_name(client, demo) -> None:
    node_id = demo.ids["dusk"]
    before = _unchanged(demo, node_id)
    response = client.post(f"/api/nodes/{node_id}/inputs", headers=AUTH,
                           json={"inputs": {"lightning": "night", "seed": 3}})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert "lightning='night': generate_image has no such input" in detail and "lighting" in detail
    assert "seed" not in detail.split("cannot remake it with")[1].split("(allowed")[0]  # the good field is not blamed
    response = client.post(f"/api/nodes/{node_id}/inputs", headers=AUTH, json={"inputs": {"exposure": 9}})
    assert response.status_code == 422 and "exposure=9" in response.json()["detail"], response.text
    assert _unchanged(demo, node_id) == before


def test_a_value_the_generator_knows_is_written_and_marks_the_node_stale(client, demo) -> None:
    node_id = demo.ids["dusk"]
    response = client.post(f"/api/nodes/{node_id}/inputs", headers=AUTH, json={"inputs": {"lighting": "golden-hour"}})
    assert response.status_code == 200, response.text
    node = demo.project.store.get_node(node_id)
    assert node.inputs["lighting"] == "golden-hour" and node.status == NodeStatus.STALE
    # A node no generation tool made keeps free-form inputs.
    note = demo.ids["note"]
    response = client.post(f"/api/nodes/{note}/inputs", headers=AUTH, json={"inputs": {"mood": "golden hour"}})
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


def _drag(runtime: Any, grant: Grant, node_id: str, n: int) -> Any:
    """Another person's drag of ``node_id``, committed through the bridge now."""
    move = CanvasMutation(action_id=f"drag-{node_id}-{n}", actor="person:other",
                          mutations=[MoveNode(node_id=node_id, position=Position(x=4321 + n, y=1234))])
    return runtime.bridge.submit(move, grant, Usage(), thread_id="drag")


def _is_inputs_edit(action: Any, node_id: str) -> bool:
    return isinstance(action, CanvasMutation) and action.actor == "person:tester" and any(
        getattr(m, "op", None) == "update_node" and m.node_id == node_id for m in action.mutations)


def test_an_edit_that_meets_a_concurrent_commit_runs_again_on_the_current_canvas(client, demo, monkeypatch) -> None:
    """Another person drags the node while this person's inputs edit runs: when the drag's commit lands between
    the edit's read of the node and its commit, the store refuses the batch as stale.  The person is not told
    403 with their inputs half-written: the edit runs again on the canvas as it now is."""
    runtime, node_id = demo.runtime, demo.ids["waves"]  # audio made by generate_audio, nothing made from it
    bridge, real_submit, moved = runtime.bridge, runtime.bridge.submit, []
    drag_grant = runtime.grants.save(Grant(actor="person:other", tools=[], operations=["move_node"]))

    def drag_first(action: Any, *rest: Any, **named: Any) -> Any:
        if _is_inputs_edit(action, node_id) and not moved:  # after the edit's read, before its commit
            moved.append(_drag(runtime, drag_grant, node_id, 0))
        return real_submit(action, *rest, **named)

    monkeypatch.setattr(bridge, "submit", drag_first)
    response = client.post(f"/api/nodes/{node_id}/inputs", headers=AUTH, json={"inputs": {"voice": "alto"}})
    assert moved and moved[0].commit is not None  # the concurrent commit did land in between
    assert response.status_code == 200, response.text
    node = demo.project.store.get_node(node_id)
    assert node.inputs["voice"] == "alto" and node.status == NodeStatus.STALE and node.position.x == 4321


def test_an_inputs_edit_and_its_stale_marks_are_one_commit(client, demo) -> None:
    """The change and the marks of what it invalidates land together: a clip made from the image is stale in the
    same commit that changed the image's inputs."""
    store, image, clip = demo.project.store, demo.ids["pier_warm"], demo.ids["clip"]
    before = store.canvas_version()
    response = client.post(f"/api/nodes/{image}/inputs", headers=AUTH, json={"inputs": {"seed": 11}})
    assert response.status_code == 200, response.text
    assert clip in response.json()["stale"]
    commits = store.commits(since_version=before)
    assert len(commits) == 1 and commits[0].actor == "person:tester"
    assert {image, clip} <= set(commits[0].node_ids)
    assert store.get_node(image).status == NodeStatus.STALE and store.get_node(clip).status == NodeStatus.STALE


def test_an_edit_whose_marks_never_commit_changes_nothing(client, demo, monkeypatch) -> None:
    """The guarantee under attack: the clip made from the image is moved by someone else before every attempt, so
    the batch never commits.  The person hears the conflict and the image's inputs are as they were: never
    changed inputs with an output still claiming to match them (what two commits, the change then the marks,
    left behind)."""
    runtime, image, clip = demo.runtime, demo.ids["pier_warm"], demo.ids["clip"]
    bridge, real_submit, moved = runtime.bridge, runtime.bridge.submit, []
    drag_grant = runtime.grants.save(Grant(actor="person:other", tools=[], operations=["move_node"]))
    store = demo.project.store
    before = store.get_node(image)

    def drag_the_clip_every_time(action: Any, *rest: Any, **named: Any) -> Any:
        if _is_inputs_edit(action, image):
            moved.append(_drag(runtime, drag_grant, clip, len(moved)))
        return real_submit(action, *rest, **named)

    monkeypatch.setattr(bridge, "submit", drag_the_clip_every_time)
    response = client.post(f"/api/nodes/{image}/inputs", headers=AUTH, json={"inputs": {"seed": 12}})
    assert len(moved) > 1 and all(m.commit is not None for m in moved)
    assert response.status_code == 409, response.text
    after = store.get_node(image)
    assert (after.inputs, after.status, after.version) == (before.inputs, before.status, before.version)
