"""The canvas tools as an agent calls them: through the bridge, onto the real store, read back from the store."""

from __future__ import annotations

from typing import Any

import pytest

from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import SubmitResult, Usage
from nodes.verdicts import Reject
from store.errors import NodeNotFound
from store.models import Direction, EdgeType, NodeStatus, new_id


@pytest.fixture
def runtime(make_runtime) -> Runtime:
    return make_runtime()


def call(runtime: Runtime, tool: str, **args: Any) -> SubmitResult:
    """Submit one tool call as the agent would, under the default grant of a plain request."""
    action = ToolCall(action_id=new_id(), tool=tool, args=args)
    return runtime.bridge.submit(action, runtime.grant_for("test"), Usage(), thread_id="t")


def written(result: SubmitResult) -> SubmitResult:
    """The result of a call that must have been allowed, run cleanly and committed."""
    assert result.verdict == "allow", result
    assert "error" not in result.observation, result.observation
    assert result.commit is not None, result
    return result


def make(runtime: Runtime, kind: str = "shot", title: str = "", **args: Any) -> str:
    return written(call(runtime, "create_node", kind=kind, title=title, **args)).observation["created"]


def test_create_node_puts_the_node_on_the_canvas(project: Project, runtime: Runtime):
    before = project.store.canvas_version()

    result = written(call(runtime, "create_node", kind="shot", title="Pier at dusk",
                          inputs={"prompt": "a pier", "camera": "pan"}, status="running", x=120, y=-40))

    node_id = result.observation["created"]
    node = project.store.get_node(node_id)
    assert (node.kind, node.title, node.status, node.version) == ("shot", "Pier at dusk", NodeStatus.RUNNING, 1)
    assert node.inputs == {"prompt": "a pier", "camera": "pan"}
    assert (node.position.x, node.position.y) == (120, -40)
    assert node.provenance.tool == "create_node" and node.provenance.actor == "agent"
    commit = result.commit
    assert commit is not None and commit.canvas_version == before + 1 == project.store.canvas_version()
    assert node_id in commit.node_ids


def test_create_node_of_an_unknown_kind_is_refused_without_writing(project: Project, runtime: Runtime):
    before = project.store.canvas_version()

    result = call(runtime, "create_node", kind="hologram", title="nope")

    assert result.commit is None
    assert "hologram" in result.observation["error"] and "shot" in result.observation["error"]
    assert project.store.canvas_version() == before
    assert not [n for n in project.store.find_nodes() if n.title == "nope"]


def test_update_node_patches_inputs_and_keeps_the_old_version(project: Project, runtime: Runtime):
    node_id = make(runtime, title="Shot 1", inputs={"prompt": "a pier", "lighting": "day"})

    written(call(runtime, "update_node", node_id=node_id, title="Shot 1 (night)",
                 inputs_patch={"lighting": "night"}, expected_version=1))

    node = project.store.get_node(node_id)
    assert node.title == "Shot 1 (night)" and node.version == 2
    assert node.inputs == {"prompt": "a pier", "lighting": "night"}
    history = project.store.node_history(node_id)
    assert [(h.version, h.inputs["lighting"]) for h in history] == [(1, "day"), (2, "night")]


def test_update_node_from_a_stale_version_is_rejected_and_writes_nothing(project: Project, runtime: Runtime):
    node_id = make(runtime, title="Shot 2", inputs={"lighting": "day"})
    written(call(runtime, "update_node", node_id=node_id, inputs_patch={"lighting": "dusk"}))
    before = project.store.canvas_version()

    result = call(runtime, "update_node", node_id=node_id, inputs_patch={"lighting": "noon"}, expected_version=1)

    assert result.verdict == "reject" and result.commit is None
    assert "version 2" in result.message and "expected 1" in result.message
    node = project.store.get_node(node_id)
    assert (node.version, node.inputs) == (2, {"lighting": "dusk"})
    assert len(project.store.node_history(node_id)) == 2
    assert project.store.canvas_version() == before


def test_link_and_unlink_nodes(project: Project, runtime: Runtime):
    shot, character = make(runtime, title="Shot"), make(runtime, kind="reference", title="Mira")

    edge_id = written(call(runtime, "link_nodes", type="REFERENCES", source=shot, target=character,
                           properties={"role": "character"})).observation["edge_id"]

    [linked] = project.store.neighbours(shot, [EdgeType.REFERENCES])
    assert (linked.node.id, linked.edge.id, linked.edge.properties) == (character, edge_id, {"role": "character"})
    assert [n.node.id for n in project.store.neighbours(character, [EdgeType.REFERENCES], Direction.IN)] == [shot]

    written(call(runtime, "unlink_nodes", type="REFERENCES", source=shot, target=character))

    assert project.store.neighbours(shot, direction=Direction.BOTH) == []
    assert project.store.edges([shot]) == []
    assert project.store.get_node(character).title == "Mira"


def test_unlink_nodes_by_edge_id(project: Project, runtime: Runtime):
    shot, character = make(runtime, title="Shot"), make(runtime, kind="reference", title="Mira")
    edge_id = written(call(runtime, "link_nodes", type="CONTINUES", source=shot, target=character)
                      ).observation["edge_id"]

    written(call(runtime, "unlink_nodes", edge_id=edge_id))

    assert project.store.neighbours(shot) == []


def test_linking_a_node_to_itself_is_an_error_the_model_sees(project: Project, runtime: Runtime):
    shot = make(runtime, title="Lonely")
    before = project.store.canvas_version()

    result = call(runtime, "link_nodes", type="CONTINUES", source=shot, target=shot)

    assert result.verdict == "allow" and result.commit is None
    assert "itself" in result.observation["error"] and shot in result.observation["error"]
    assert project.store.neighbours(shot, direction=Direction.BOTH) == []
    assert project.store.canvas_version() == before


def test_unlinking_an_edge_that_is_not_there_is_rejected(project: Project, runtime: Runtime):
    a, b = make(runtime), make(runtime)
    before = project.store.canvas_version()

    result = call(runtime, "unlink_nodes", type="REFERENCES", source=a, target=b)

    assert result.verdict == "reject" and "nothing to unlink" in result.message
    assert project.store.canvas_version() == before


def test_group_nodes_makes_a_group_node_and_files_the_members_under_it(project: Project, runtime: Runtime):
    a, b, c = make(runtime, title="A"), make(runtime, title="B"), make(runtime, title="C")

    group_id = written(call(runtime, "group_nodes", node_ids=[a, b], title="Candidates")).observation["group_id"]

    group = project.store.get_node(group_id)
    assert (group.kind, group.title) == ("group", "Candidates")
    for member in (a, b):
        assert project.store.get_node(member).group_id == group_id
        assert [n.node.id for n in project.store.neighbours(member, [EdgeType.IN_GROUP])] == [group_id]
    assert {n.id for n in project.store.find_nodes(group_id=group_id)} == {a, b}

    written(call(runtime, "group_nodes", node_ids=[c], group_id=group_id))
    assert {n.id for n in project.store.find_nodes(group_id=group_id)} == {a, b, c}
    assert {n.node.id for n in project.store.neighbours(group_id, [EdgeType.IN_GROUP], Direction.IN)} == {a, b, c}


def test_move_node_pins_the_position(project: Project, runtime: Runtime):
    node_id = make(runtime, x=0, y=0)

    written(call(runtime, "move_node", node_id=node_id, x=300.5, y=42))

    position = project.store.get_node(node_id).position
    assert (position.x, position.y, position.pinned) == (300.5, 42, True)


def test_set_status_records_the_status_and_reason(project: Project, runtime: Runtime):
    node_id = make(runtime)

    result = written(call(runtime, "set_status", node_id=node_id, status="rejected", reason="too dark"))

    node = project.store.get_node(node_id)
    # A node with no earlier version and nothing made from it: only itself is rejected, nothing is restored.
    assert result.observation == {"node_id": node_id, "title": node.title, "status": "rejected", "rejected": [node_id],
                                  "restored": [], "stale": []}
    assert node.status == NodeStatus.REJECTED and node.metadata["status_reason"] == "too dark"
    assert [h.status for h in project.store.node_history(node_id)] == [NodeStatus.PENDING, NodeStatus.REJECTED]


def test_branch_node_copies_as_a_new_version_and_leaves_the_original(project: Project, runtime: Runtime):
    original = make(runtime, title="Harbour", inputs={"prompt": "harbour", "lighting": "day"}, status="completed")
    before = project.store.get_node(original)

    result = written(call(runtime, "branch_node", node_id=original, inputs_patch={"lighting": "night"}))

    copy_id = result.observation["branch"]
    assert result.observation["of"] == original and copy_id != original
    copy = project.store.get_node(copy_id)
    assert (copy.kind, copy.title, copy.status) == ("shot", "Harbour", NodeStatus.PENDING)
    assert copy.inputs == {"prompt": "harbour", "lighting": "night"}
    assert copy.metadata["branched_from"] == original
    assert [n.node.id for n in project.store.neighbours(copy_id, [EdgeType.VERSION_OF])] == [original]
    assert project.store.get_node(original) == before
    assert len(project.store.node_history(original)) == 1


def test_read_node_shows_the_node_and_its_outgoing_edges(project: Project, runtime: Runtime):
    mira = make(runtime, kind="reference", title="Mira", inputs={"role": "character"})
    shot = make(runtime, title="Mira on the pier", inputs={"prompt": "pier"})
    written(call(runtime, "link_nodes", type="REFERENCES", source=shot, target=mira))
    before = project.store.canvas_version()

    result = call(runtime, "read_node", node_id=shot)

    assert result.verdict == "allow" and result.commit is None
    node = result.observation["node"]
    assert (node["id"], node["kind"], node["title"], node["inputs"]) == (shot, "shot", "Mira on the pier",
                                                                         {"prompt": "pier"})
    assert result.observation["edges_out"] == [{"edge": "REFERENCES", "to": mira, "kind": "reference",
                                                "title": "Mira"}]
    assert project.store.canvas_version() == before


def test_read_lineage_walks_ancestors_and_descendants(project: Project, runtime: Runtime):
    still, clip, cut = make(runtime, kind="image"), make(runtime, kind="video"), make(runtime, kind="video")
    mira = make(runtime, kind="reference")
    written(call(runtime, "link_nodes", type="GENERATED_FROM", source=clip, target=still))
    written(call(runtime, "link_nodes", type="GENERATED_FROM", source=cut, target=clip))
    written(call(runtime, "link_nodes", type="REFERENCES", source=still, target=mira))

    def lineage(node_id: str, **args: Any) -> list[tuple[str, int]]:
        result = call(runtime, "read_lineage", node_id=node_id, **args)
        assert result.verdict == "allow" and result.commit is None, result
        return sorted((e["id"], e["depth"]) for e in result.observation["lineage"])

    assert lineage(cut) == sorted([(clip, 1), (still, 2), (mira, 3)])
    assert lineage(cut, edge_types=["GENERATED_FROM"]) == sorted([(clip, 1), (still, 2)])
    assert lineage(cut, max_depth=1) == [(clip, 1)]
    assert lineage(still, direction="descendants") == sorted([(clip, 1), (cut, 2)])


def test_query_canvas_returns_rows(project: Project, runtime: Runtime):
    a, b = make(runtime, title="Q-a"), make(runtime, title="Q-b")

    result = call(runtime, "query_canvas", cypher="MATCH (n:CanvasNode) WHERE n.id IN $ids "
                  "RETURN n.id AS id, n.title AS title ORDER BY n.title", params={"ids": [a, b]})

    assert result.verdict == "allow" and result.commit is None
    assert result.observation["columns"] == ["id", "title"]
    assert result.observation["rows"] == [{"id": a, "title": "Q-a"}, {"id": b, "title": "Q-b"}]
    assert result.observation["truncated"] is False

    limited = call(runtime, "query_canvas", cypher="MATCH (n:CanvasNode) WHERE n.id IN $ids RETURN n.id AS id",
                   params={"ids": [a, b]}, limit=1)
    assert len(limited.observation["rows"]) == 1 and limited.observation["truncated"] is True


@pytest.mark.parametrize("cypher", [
    "MATCH (n:CanvasNode {id: $id}) SET n.title = 'hacked' RETURN n",
    "MATCH (n:CanvasNode {id: $id}) DETACH DELETE n",
    "CREATE (n:CanvasNode {id: 'intruder', kind: 'shot'}) RETURN n",
])
def test_query_canvas_refuses_writes_and_changes_nothing(project: Project, runtime: Runtime, cypher: str):
    node_id = make(runtime, title="Untouched")
    before_version, before_count = project.store.canvas_version(), project.store.count_nodes()

    result = call(runtime, "query_canvas", cypher=cypher, params={"id": node_id})

    assert result.verdict == "allow" and result.commit is None
    assert "read-only" in result.observation["error"]
    assert project.store.get_node(node_id).title == "Untouched"
    assert project.store.query("MATCH (n:CanvasNode {id: 'intruder'}) RETURN n").rows == []
    assert (project.store.canvas_version(), project.store.count_nodes()) == (before_version, before_count)


@pytest.mark.parametrize(("tool", "args"), [
    ("update_node", {"title": "x"}),
    ("move_node", {"x": 1, "y": 2}),
    ("set_status", {"status": "selected"}),
    ("branch_node", {}),
    ("group_nodes", {"node_ids": None}),
])
def test_an_unknown_node_id_is_rejected_with_a_clear_message(project: Project, runtime: Runtime, tool: str,
                                                             args: dict[str, Any]):
    ghost = new_id()
    args = {**args, "node_ids": [ghost]} if "node_ids" in args else {**args, "node_id": ghost}
    before = project.store.canvas_version()

    result = call(runtime, tool, **args)

    assert result.verdict == "reject" and result.commit is None
    assert f"no canvas node with id '{ghost}'" in result.message
    assert project.store.canvas_version() == before
    with pytest.raises(NodeNotFound):
        project.store.get_node(ghost)


def test_linking_to_an_unknown_node_is_rejected(project: Project, runtime: Runtime):
    shot, ghost = make(runtime), new_id()

    result = call(runtime, "link_nodes", type="REFERENCES", source=shot, target=ghost)

    assert result.verdict == "reject" and ghost in result.message
    assert project.store.neighbours(shot) == []


def test_reading_an_unknown_node_is_an_error_the_model_sees(runtime: Runtime):
    ghost = new_id()
    for tool in ("read_node", "read_lineage"):
        result = call(runtime, tool, node_id=ghost)
        assert result.verdict == "allow" and result.commit is None
        assert f"no canvas node with id '{ghost}'" in result.observation["error"]


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("create_node", {"kind": "shot", "inputs": "not a mapping"}, "inputs"),
    ("create_node", {"kind": "shot", "x": "left"}, "x"),
    ("update_node", {"node_id": "n", "expected_version": "latest"}, "expected_version"),
    ("link_nodes", {"type": "LIKES", "source": "a", "target": "b"}, "type"),
    ("move_node", {"node_id": "n", "x": 1}, "y"),
    ("set_status", {"node_id": "n", "status": "gorgeous"}, "status"),
    ("group_nodes", {"node_ids": []}, "node_ids"),
    ("query_canvas", {"cypher": "MATCH (n) RETURN n", "limit": 0}, "limit"),
])
def test_bad_arguments_are_rejected_before_anything_runs(project: Project, runtime: Runtime, tool: str,
                                                         args: dict[str, Any], field: str):
    before = project.store.canvas_version()
    action = ToolCall(action_id=new_id(), tool=tool, args=args)

    verdict = runtime.bridge.validate(action, runtime.grant_for("test"), Usage())
    result = runtime.bridge.submit(action, runtime.grant_for("test"), Usage(), thread_id="t")

    assert isinstance(verdict, Reject) and verdict.reason == "bad_arguments"
    assert result.verdict == "reject" and result.commit is None
    assert f"arguments for {tool} are invalid" in result.message and field in result.message
    assert project.store.canvas_version() == before


def test_rejecting_an_image_brings_back_an_older_cut_as_stale_when_its_other_clips_were_set_aside_since(
        project: Project, runtime: Runtime):
    """The cut an image's rejection brings back must not be current with clips that are no longer current: after
    an undo brought back shot 1's earlier clip, the older cut (made with shot 1's later clip) comes back stale, to be
    rebuilt, not completed (it came back completed, using a rejected clip, and the report said done)."""
    def link(kind: str, source: str, target: str) -> None:
        written(call(runtime, "link_nodes", type=kind, source=source, target=target))

    def status(node: str, value: str, reason: str) -> None:
        written(call(runtime, "set_status", node_id=node, status=value, reason=reason))

    shot1, shot2 = make(runtime, "shot", "shot 1"), make(runtime, "shot", "shot 2")
    clip1, clip1_later = make(runtime, "video", "shot 1 clip"), make(runtime, "video", "shot 1 clip")
    image2_old, image2 = make(runtime, "image", "shot 2 image"), make(runtime, "image", "shot 2 image")
    clip2_old, clip2 = make(runtime, "video", "shot 2 clip"), make(runtime, "video", "shot 2 clip")
    cut_old, cut = make(runtime, "video", "final cut"), make(runtime, "video", "final cut")
    for later, earlier in ((clip1_later, clip1), (image2, image2_old), (clip2, clip2_old), (cut, cut_old)):
        link("VERSION_OF", later, earlier)
    for made, source in ((clip1, shot1), (clip1_later, shot1), (image2_old, shot2), (image2, shot2),
                         (clip2_old, image2_old), (clip2, image2), (cut_old, clip1_later), (cut_old, clip2_old),
                         (cut, clip1), (cut, clip2)):
        link("GENERATED_FROM", made, source)
    # shot 1's later clip was undone (its earlier one is current again); the older versions were replaced
    status(clip1_later, "rejected", "undone")
    for replaced, by in ((image2_old, image2), (clip2_old, clip2), (cut_old, cut)):
        status(replaced, "rejected", f"superseded by {by}")

    result = written(call(runtime, "set_status", node_id=image2, status="rejected", reason="not what I wanted"))

    store = project.store
    assert {n: store.get_node(n).status for n in (image2, clip2, cut)} == {n: NodeStatus.REJECTED
                                                                         for n in (image2, clip2, cut)}
    assert store.get_node(image2_old).status == NodeStatus.COMPLETED
    assert store.get_node(clip2_old).status == NodeStatus.COMPLETED
    assert store.get_node(cut_old).status == NodeStatus.STALE, "its shot 1 clip was set aside since"
    assert cut_old in result.observation["stale"]
