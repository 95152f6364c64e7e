"""A lean turn: the model is offered only granted tools, compactly, and the scope check is one query
that gives the verdicts the lineage walk gave, on a real canvas."""

from __future__ import annotations

import itertools
import json
from typing import ClassVar

import pytest

from nodes.actions import CanvasMutation, ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant, Scope
from nodes.models.scripted import ScriptedModel
from nodes.propose import compact_schema
from nodes.verdicts import GrantDenied
from store.errors import NodeNotFound
from store.models import EdgeType
from store.mutations import CreateNode, DeleteNode, GroupNodes, Link, SetStatus
from tests.system_tools import missing_system_tool
from tools.generate.base import Lighting
from tools.native.code import sandbox_status

_SCOPE_EDGES = [EdgeType.GENERATED_FROM, EdgeType.REFERENCES, EdgeType.VERSION_OF, EdgeType.IN_GROUP]
_keys = itertools.count()


class RecordingModel(ScriptedModel):
    """A scripted model that remembers which tool names each model call was offered."""

    offered: ClassVar[list[list[str]]] = []
    systems: ClassVar[list[str]] = []
    named: ClassVar[list[set[str]]] = []

    def bind_tools(self, tools, **kwargs):
        from nodes.menu import named_tools

        type(self).named.append(named_tools([t for t in tools if isinstance(t, dict)]))
        return super().bind_tools(tools, **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        from nodes.menu import MORE_TOOLS

        type(self).offered.append([n for n in self.bound_tool_names if n != MORE_TOOLS])
        type(self).systems.append(str(messages[0].content))
        return super()._generate(messages, stop, run_manager, **kwargs)


@pytest.fixture(scope="module")
def canvas_ids(project):
    """A small narrative canvas written through the bridge: two shots, a character, images, a clip, versions,
    a group, and a deleted node."""
    from jarvishub.runtime import Runtime

    runtime = Runtime(project, model=ScriptedModel(script=["done"]))
    ids = {}

    def node(name, kind):
        mutation = CreateNode(kind=kind, title=name)
        ids[name] = mutation.id
        return mutation

    def link(kind, source, target):
        return Link(type=kind, source=ids[source], target=ids[target])

    batch = [node("shot 1", "shot"), node("shot 2", "shot"), node("character", "reference"),
             node("image 1", "image"), node("image 2", "image"), node("clip 1", "video"),
             node("image 1b", "image"), node("cut", "video"), node("board", "group"), node("member", "text"),
             node("gone", "image")]
    batch += [link(EdgeType.GENERATED_FROM, "image 1", "shot 1"), link(EdgeType.REFERENCES, "image 1", "character"),
              link(EdgeType.GENERATED_FROM, "image 2", "shot 2"), link(EdgeType.REFERENCES, "image 2", "character"),
              link(EdgeType.GENERATED_FROM, "clip 1", "image 1"), link(EdgeType.VERSION_OF, "image 1b", "image 1"),
              link(EdgeType.GENERATED_FROM, "cut", "clip 1"), link(EdgeType.GENERATED_FROM, "gone", "shot 1"),
              link(EdgeType.CONTINUES, "shot 2", "shot 1")]
    batch.append(GroupNodes(group_id=ids["board"], node_ids=[ids["member"]]))
    grant = runtime.grant_for("build")
    result = runtime.bridge.submit(CanvasMutation(action_id="lean-canvas", mutations=batch), grant, Usage(),
                                   thread_id="lean")
    assert result.verdict == "allow", result.message
    deleted = runtime.bridge.submit(CanvasMutation(action_id="lean-delete", mutations=[DeleteNode(node_id=ids["gone"])]),
                                    grant, Usage(), thread_id="lean")
    assert deleted.verdict == "allow", deleted.message
    runtime.close()
    return ids


def _lineage_verdict(store, scope: Scope, node_id: str) -> str:
    """The verdict of the scope check as it was before (one lineage walk per node), for comparison."""
    if node_id in scope.node_ids:
        return "allow"
    try:
        node = store.get_node(node_id)
    except NodeNotFound:
        return "not_found"
    if node.id in scope.group_ids or (node.group_id and node.group_id in scope.group_ids):
        return "allow"
    if node_id in scope.descendants_of or any(
            e.node.id in scope.descendants_of for e in store.lineage(node_id, _SCOPE_EDGES)):
        return "allow"
    return "out_of_scope"


def _authorize_verdict(runtime, grant: Grant, node_id: str) -> str:
    try:
        runtime.bridge.authorize(f"lean-{next(_keys)}", [SetStatus(node_id=node_id, status="stale")], grant, Usage())
    except GrantDenied as denied:
        return denied.reason
    except NodeNotFound:
        return "not_found"
    return "allow"


def test_scope_check_allows_descendants_and_refuses_the_rest(make_runtime, project, canvas_ids):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    ids = canvas_ids
    grant = runtime.grants.save(Grant(scope=Scope(all_nodes=False, node_ids=[ids["shot 1"]],
                                                  descendants_of=[ids["shot 1"]])))
    verdicts = {name: _authorize_verdict(runtime, grant, node_id) for name, node_id in ids.items()}
    assert verdicts == {
        "shot 1": "allow", "image 1": "allow", "clip 1": "allow", "cut": "allow", "image 1b": "allow",
        "shot 2": "out_of_scope", "image 2": "out_of_scope", "character": "out_of_scope",
        "board": "out_of_scope", "member": "out_of_scope", "gone": "not_found",
    }
    # Nothing outside the scope was written by the refused checks.
    assert project.store.get_node(ids["shot 2"]).status.value != "stale"


@pytest.mark.parametrize("scope_of", [
    lambda ids: Scope(all_nodes=False, node_ids=[ids["shot 1"]], descendants_of=[ids["shot 1"]]),
    lambda ids: Scope(all_nodes=False, descendants_of=[ids["character"]]),
    lambda ids: Scope(all_nodes=False, descendants_of=[ids["image 1"], ids["shot 2"]]),
    lambda ids: Scope(all_nodes=False, node_ids=[ids["cut"]], group_ids=[ids["board"]]),
    lambda ids: Scope(all_nodes=False, descendants_of=[ids["board"]]),
])
def test_scope_check_gives_the_verdicts_of_the_lineage_walk(make_runtime, project, canvas_ids, scope_of):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    scope = scope_of(canvas_ids)
    grant = runtime.grants.save(Grant(scope=scope))
    for name, node_id in canvas_ids.items():
        expected = _lineage_verdict(project.store, scope, node_id)
        assert _authorize_verdict(runtime, grant, node_id) == expected, name


def test_scope_check_of_a_local_edit_from_the_default_policy(make_runtime, project, canvas_ids):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    grant = runtime.grant_for("redo the lighting on shot 1")
    assert not grant.scope.all_nodes and canvas_ids["shot 1"] in grant.scope.descendants_of
    assert _authorize_verdict(runtime, grant, canvas_ids["clip 1"]) == "allow"
    assert _authorize_verdict(runtime, grant, canvas_ids["image 2"]) == "out_of_scope"
    # At validation a tool may name (read) a node outside the scope; what it writes is checked at commit.
    mark = ToolCall(action_id="lean-v", tool="mark_stale", args={"node_id": canvas_ids["image 2"]})
    assert runtime.bridge.validate(mark, grant, Usage()).verdict == "allow"
    gone = ToolCall(action_id="lean-v", tool="mark_stale", args={"node_id": canvas_ids["gone"]})
    assert runtime.bridge.validate(gone, grant, Usage()).verdict == "reject"


def test_the_model_is_offered_granted_tools_only_and_named_the_rest(make_runtime, canvas_ids):
    """A note needs no canvas read: of the grant's tools it is offered ``create_node``, and the reads are named
    by the menu's ``more_tools`` (``nodes.menu``), never a tool outside the grant."""
    RecordingModel.offered, RecordingModel.systems, RecordingModel.named = [], [], []
    runtime = make_runtime(model=RecordingModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": "n"}}, "done"]))
    grant = Grant(tools=["create_node", "read_node", "query_canvas"])
    outcome = runtime.run("note: lean", grant=grant)
    assert outcome.outcome == "replied"
    assert RecordingModel.offered and all(o == ["create_node"] for o in RecordingModel.offered)
    assert RecordingModel.named and all(n == {"read_node", "query_canvas"} for n in RecordingModel.named)


def test_a_tool_outside_the_grant_is_not_bound_and_is_refused(make_runtime, canvas_ids):
    RecordingModel.offered = []
    runtime = make_runtime(model=RecordingModel(script=[
        {"name": "generate_image", "args": {"prompt": "a pier", "width": 64, "height": 64}}, "done"]))
    outcome = runtime.run("note: no media", grant=Grant(tools=["create_node", "read_node"]))
    assert all("generate_image" not in o for o in RecordingModel.offered)
    first = outcome.steps[0]
    assert first["verdict"]["verdict"] == "reject" and first["verdict"]["reason"] == "tool_not_granted"


def test_a_local_edit_is_offered_the_repair_tools_and_no_builders(make_runtime, canvas_ids):
    from nodes.propose import tool_schemas

    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    grant = runtime.grant_for("redo the lighting on shot 1")
    names = {s["function"]["name"] for s in tool_schemas(runtime.turn_context, grant)}
    assert names == set(grant.tools or [])
    assert {"query_canvas", "mark_stale", "regenerate_stale", "set_status"} <= names
    assert not names & {"generate_image", "generate_video", "skill__storyboard", "restore_checkpoint"}
    # An edit of render values is offered the redo and the reads, not the rest of the canvas and recovery
    # families: their schemas would go with every model call of the edit.
    assert "repair" in names and not names & {"branch_node", "group_nodes", "move_node", "link_nodes",
                                              "undo_turn", "revert_version", "create_checkpoint", "verify_artifacts"}
    assert len(json.dumps(tool_schemas(runtime.turn_context, grant))) < 5_000
    # A narrative request is granted its skills, and the tools they call through the bridge are lent to them.
    build = runtime.grant_for("a 3-shot short drama about a pier")
    needs = {f"skill__{s.name}": s.needs_tools for s in runtime.manifest.skills}
    assert "skill__storyboard" in build.tools
    for tool in build.tools:
        assert all(build.lends_tool(need) for need in needs.get(tool, [])), tool
    # A request of no known kind keeps every non-destructive tool (run_code only where it can be sandboxed).
    unusual = runtime.grant_for("do something unusual").tools
    assert {"query_canvas", "write_file", "create_node"} <= set(unusual)
    if "run_code" in runtime.manifest.tool_names():
        assert "run_code" in unusual
    else:
        missing_system_tool(f"run_code is not in the manifest: {sandbox_status().reason}")


def test_compact_schemas_keep_what_constrains_the_arguments(make_runtime):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    for tool in runtime.manifest.tools:
        full, compact = tool.parameters, compact_schema(tool.parameters)
        text = json.dumps(compact)
        assert "$ref" not in text and '"title": "' not in text.replace('"title": {', ""), tool.name
        assert compact.get("required", []) == full.get("required", []), tool.name
        assert list(compact.get("properties", {})) == list(full.get("properties", {})), tool.name
        assert len(text) <= len(json.dumps(full)), tool.name
    image = compact_schema(runtime.manifest.tool("generate_image").parameters)
    assert image["properties"]["lighting"]["enum"] == [value.value for value in Lighting]  # every preset, none lost
    assert image["properties"]["width"]["maximum"] == 4096 and image["properties"]["edit_node_id"]["type"] == "string"


def test_a_turn_that_began_on_an_empty_canvas_is_offered_no_canvas_reads(make_runtime, canvas_ids):
    """Nothing stood on the canvas when the turn began: what it made comes back in its own tool results, so the
    model is not sent the read tools' schemas (the grant still allows them); any later turn is."""
    from nodes.manifest import canvas_reading_tools
    from nodes.propose import bound_schemas, tool_schemas

    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    grant = runtime.grant_for("do something unusual")
    reads = set(canvas_reading_tools(runtime.manifest))
    granted = {s["function"]["name"] for s in tool_schemas(runtime.turn_context, grant)}
    assert {"query_canvas", "read_node", "read_lineage"} <= reads & granted
    empty = {s["function"]["name"] for s in bound_schemas(runtime.turn_context, {"canvas_before": 0}, grant)}
    assert empty == granted - reads and "create_node" in empty
    later = {s["function"]["name"] for s in bound_schemas(runtime.turn_context, {"canvas_before": 3}, grant)}
    assert later == granted
