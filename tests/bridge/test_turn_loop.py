"""The bridge and the supervisor turn loop against the real store: grants, rejections, approvals, malformed output."""

from __future__ import annotations

import pytest

from nodes.grant import Budget, Grant, GrantStore, Scope
from nodes.models.scripted import ScriptedModel, tool_call
from store.models import NodeStatus
from store.mutations import CreateNode


def _canvas_state(project):
    return project.store.canvas_version(), project.store.count_nodes()


def _seed(runtime, title="seed"):
    """A node written through the bridge, as everything is."""
    from nodes.actions import ToolCall
    from nodes.bridge import Usage

    result = runtime.bridge.submit(
        ToolCall(action_id=f"seed-{title}", tool="create_node", args={"kind": "image", "title": title}),
        runtime.grant_for("seed"), Usage(), thread_id="seed-thread")
    return result.observation["created"]


def test_an_allowed_tool_call_commits_and_the_turn_is_recorded(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": "brief", "inputs": {"text": "a quiet film"}}},
        "Made the brief."]))
    before = project.store.canvas_version()
    outcome = runtime.run("write the brief down")
    assert outcome.outcome == "replied" and outcome.reply == "Made the brief."
    created = outcome.steps[0]["observation"]["created"]
    node = project.store.get_node(created)
    assert node.title == "brief" and node.metadata["provenance"]["tool"] == "create_node"
    turn = project.store.turns(outcome.thread_id)[-1]
    assert turn["canvas_before"] == before and created in turn["node_ids"]
    recorded = runtime.trajectories.turns(outcome.thread_id)[-1]
    assert recorded["request"] == "write the brief down"
    assert [a["kind"] for a in recorded["actions"]] == ["tool_call", "reply"]
    assert recorded["grant"]["id"] == outcome.grant_id and recorded["manifest"]["tools"]


@pytest.mark.parametrize("grant_kwargs, reason", [
    ({"tools": ["read_node", "query_canvas"]}, "tool_not_granted"),
    ({"node_kinds": ["text"]}, "kind_not_granted"),
    ({"budget": Budget(tool_calls=0)}, "budget"),
])
def test_a_grant_that_lacks_something_rejects_and_changes_nothing(make_runtime, project, grant_kwargs, reason):
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "image", "title": "not allowed"}}, "gave up"]))
    before = _canvas_state(project)
    outcome = runtime.run("make an image node", grant=Grant(**grant_kwargs))
    assert outcome.steps[0]["verdict"]["verdict"] == "reject"
    assert outcome.steps[0]["verdict"]["reason"] == reason
    assert project.store.canvas_version() == before[0] + 1  # only the Turn record
    assert project.store.count_nodes() == before[1]


def test_a_scope_outside_the_grant_rejects(make_runtime, project):
    runtime = make_runtime()
    inside, outside = _seed(runtime, "inside"), _seed(runtime, "outside")
    scoped = Grant(scope=Scope(all_nodes=False, node_ids=[inside]))
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "set_status", "args": {"node_id": outside, "status": "rejected"}},
        {"name": "set_status", "args": {"node_id": inside, "status": "selected"}}, "ok"]))
    outcome = runtime.run("select things", grant=scoped)
    assert outcome.steps[0]["verdict"]["reason"] == "out_of_scope"
    assert project.store.get_node(outside).status == NodeStatus.PENDING
    assert project.store.get_node(inside).status == NodeStatus.SELECTED


def test_a_turn_whose_only_write_the_grant_refused_is_refused_whatever_the_model_says(make_runtime, project):
    """The model is told "outside this grant's scope" and answers "Done!": the turn wrote nothing, so its outcome
    is refused (exit 3) and its reply says what was not written.  A turn that went on to write something else
    keeps its outcome (test_a_scope_outside_the_grant_rejects)."""
    runtime = make_runtime()
    inside, outside = _seed(runtime, "inside-only"), _seed(runtime, "outside-only")
    scoped = Grant(scope=Scope(all_nodes=False, node_ids=[inside]))
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "set_status", "args": {"node_id": outside, "status": "rejected"}}, "Done! It is rejected."]))
    outcome = runtime.run("reject the outside one", grant=scoped)
    assert outcome.steps[0]["verdict"]["reason"] == "out_of_scope"
    assert project.store.get_node(outside).status == NodeStatus.PENDING
    assert outcome.outcome == "refused", outcome.outcome
    assert outcome.reply.startswith("Done! It is rejected.") and "Nothing was changed: set_status" in outcome.reply
    assert runtime.trajectories.turns(outcome.thread_id)[-1]["outcome"] == "refused"


def test_malformed_model_output_becomes_a_rejection_not_a_crash(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=[
        tool_call("create_node", "{not json"),
        {"name": "no_such_tool", "args": {}},
        {"name": "create_node", "args": {"kind": 7}},
        "I stop here."]))
    before = project.store.count_nodes()
    outcome = runtime.run("do something", grant=Grant(budget=Budget(rejections=5)))
    reasons = [s["verdict"]["reason"] for s in outcome.steps if (s.get("verdict") or {}).get("verdict") == "reject"]
    assert reasons[:3] == ["malformed", "unknown_tool", "bad_arguments"]
    assert outcome.outcome == "replied" and project.store.count_nodes() == before


def test_repeated_rejections_ask_the_person_instead_of_looping(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=[{"name": "no_such_tool", "args": {}}] * 3 + ["thanks"]))
    outcome = runtime.run("do the impossible")
    assert outcome.outcome == "interrupted" and outcome.interrupt["type"] == "clarification"
    resumed = runtime.resume(outcome.thread_id, "never mind")
    assert resumed.outcome == "replied"


def test_approval_pauses_the_turn_and_resumes_it(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": "needs approval"}}, "done"]))
    grant = Grant(approval_tools=["create_node"])
    outcome = runtime.run("add a note", grant=grant)
    assert outcome.outcome == "interrupted" and outcome.interrupt["type"] == "approval"
    assert not project.store.find_nodes(kind="text") or all(n.title != "needs approval" for n in project.store.find_nodes(kind="text"))
    resumed = runtime.resume(outcome.thread_id, {"decision": "approve"})
    assert resumed.outcome == "replied"
    assert any(n.title == "needs approval" for n in project.store.find_nodes(kind="text"))


def test_a_person_can_edit_or_reject_a_paused_action(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": "draft title"}}, "done"]))
    outcome = runtime.run("add a note", grant=Grant(approval_tools=["create_node"]))
    runtime.resume(outcome.thread_id, {"decision": "edit", "args": {"kind": "text", "title": "edited title"}})
    titles = {n.title for n in project.store.find_nodes(kind="text")}
    assert "edited title" in titles and "draft title" not in titles
    outcome = runtime.run("add another", grant=Grant(approval_tools=["create_node"]))
    before = project.store.count_nodes()
    final = runtime.resume(outcome.thread_id, {"decision": "reject"})
    assert final.steps[0]["verdict"]["reason"] == "rejected_by_person"
    assert project.store.count_nodes() == before


def test_a_grant_revoked_while_paused_stays_revoked(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "create_node", "args": {"kind": "text", "title": "revoked work"}}, "done"]))
    outcome = runtime.run("add a note", grant=Grant(approval_tools=["create_node"]))
    runtime.grants.revoke(outcome.grant_id)
    before = _canvas_state(project)
    final = runtime.resume(outcome.thread_id, {"decision": "approve"})
    assert final.outcome == "revoked"
    assert project.store.count_nodes() == before[1]
    assert all(n.title != "revoked work" for n in project.store.find_nodes(kind="text"))


def test_a_grant_revoked_by_another_process_is_seen_by_one_that_keeps_its_file_open(tmp_path):
    """The grant store keeps one connection open (store/sqlite_files.py): a revocation committed by another
    process (another turn's, the CLI's) must still be what the next check reads, and so must a trajectory row."""
    import subprocess
    import sys

    from store.trajectories import TrajectoryStore
    from tests.cli_run import ROOT

    grants, trajectories = GrantStore(tmp_path / "grants.sqlite"), TrajectoryStore(tmp_path / "trajectories.sqlite")
    grant = grants.save(Grant())
    assert not grants.get(grant.id).revoked and trajectories.last_turn("t") is None  # both files open now
    script = ("import sys; from pathlib import Path; from nodes.grant import GrantStore; "
              "from store.trajectories import TrajectoryStore; folder = Path(sys.argv[1]); "
              "GrantStore(folder / 'grants.sqlite').revoke(sys.argv[2]); "
              "TrajectoryStore(folder / 'trajectories.sqlite').record_turn('t', 'u', {'turn_id': 'u', 'request': 'r'})")
    subprocess.run([sys.executable, "-c", script, str(tmp_path), grant.id], check=True, timeout=60, cwd=ROOT)
    assert grants.get(grant.id).revoked
    assert trajectories.last_turn("t")["request"] == "r"
    assert [t["turn_id"] for t in trajectories.recent_turns("t", 3)] == ["u"]
    grants.close()
    trajectories.close()


def test_an_old_projects_layout_grant_is_dropped_when_its_grants_are_opened(make_runtime, project):
    """The web server's automatic layout (gone) stored a system grant that could move any node; an older project
    still has it.  Opening the project's grants drops it, and keeps every other grant."""
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    layout = runtime.grants.save(Grant(id="system-layout", actor="system:layout", tools=[], operations=["move_node"],
                                       budget=Budget(tool_calls=None, generation_calls=0, wall_time_s=None)))
    kept = runtime.grants.save(Grant(actor="person"))
    runtime.close()
    reopened = make_runtime(model=ScriptedModel(script=["done"]))
    with pytest.raises(KeyError):
        reopened.grants.get(layout.id)
    assert reopened.grants.get(kept.id).actor == "person"


def test_a_subagent_grant_can_only_narrow(project):
    parent = Grant(tools=["create_node", "read_node"], node_kinds=["text", "image"], budget=Budget(tool_calls=10))
    child = parent.narrow(actor="subagent:1", tools=["create_node", "generate_video"], node_kinds=["video", "text"],
                          budget=Budget(tool_calls=50))
    assert child.tools == ["create_node"] and child.node_kinds == ["text"]
    assert child.budget.tool_calls == 10 and child.parent_id == parent.id


def test_writes_around_the_bridge_fail_loudly(project):
    from store.errors import TicketRequired

    with pytest.raises(TicketRequired):
        project.store.apply([CreateNode(kind="text")], ticket=None)  # type: ignore[arg-type]
