"""Skill-only tools: lent to the skills a grant runs, never offered to the model, refused by the bridge if it calls them.

The default grant of a narrative request lends ``generate_image`` and ``generate_video`` to the storyboard
skills instead of offering their 4 KB of schema to the model on every call.  The guarantee is the bridge:
with the offer list switched off (the model bound to every tool), a model that calls ``generate_image``
directly is refused, nothing is written and no provider is paid; the skills of the same grant generate.
"""

from __future__ import annotations

import json
import sqlite3
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nodes.actions import Evaluation, ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant, GrantStore
from nodes.models.offline import OfflinePlanner
from nodes.models.scripted import ScriptedModel
from nodes.propose import tool_schemas

NARRATIVE = "a 2-shot short drama about a pier at dawn"
DEFAULT_GRANT_REQUESTS = {
    "note": "note: the keeper's lamp flickers",
    "local edit": "redo the lighting on shot 1",
    "narrative": "a 6-shot short drama about a lighthouse keeper",
    "web": "a website for a bakery",
    "slides": "a 4-slide lecture deck on lighthouses",
}
SCHEMA_GOAL_BYTES = 8 * 1024
"""Issue 11's goal for the tool schemas sent with every model call under a default grant."""


class RecordingModel(ScriptedModel):
    """A scripted model that remembers which tool names each model call was offered."""

    offered: ClassVar[list[list[str]]] = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        type(self).offered.append(list(self.bound_tool_names))
        return super()._generate(messages, stop, run_manager, **kwargs)


class RecordingPlanner(OfflinePlanner):
    """The offline planner, remembering which tool names each model call was offered."""

    offered: ClassVar[list[list[str]]] = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        type(self).offered.append([t["function"]["name"] for t in self.bound_tools])
        return super()._generate(messages, stop, run_manager, **kwargs)


def _canvas(store) -> tuple[list[tuple], list[tuple]]:
    """Every canvas node (deleted ones too) with its version and status, and every edge."""
    nodes = sorted((n.id, n.version, n.status.value, n.deleted) for n in store.find_nodes(include_deleted=True))
    return nodes, sorted((e.type.value, e.source, e.target) for e in store.edges())


def _artifact_files(project) -> set[str]:
    return {str(p) for p in (project.state_dir / "artifacts").rglob("*") if p.is_file()}


# -- the grant as data ---------------------------------------------------------------------------------------
def test_a_skill_only_tool_is_lent_to_a_narrowed_skill_grant_never_to_the_actor():
    turn = Grant(tools=["create_node", "skill__reference_images"], skill_only_tools=["generate_image"])
    assert not turn.allows_tool("generate_image") and turn.lends_tool("generate_image")
    assert turn.allows_tool("create_node") and not turn.lends_tool("run_code")
    skill = turn.narrow(actor="skill:reference_images", tools=["generate_image", "create_node", "run_code"])
    assert skill.tools == ["generate_image", "create_node"] and skill.skill_only_tools == []
    assert skill.allows_tool("generate_image") and not skill.allows_tool("run_code")
    # Narrowed without a tool list, the child keeps the split: its actor may not call the lent tools either.
    same = turn.narrow(actor="subagent:0")
    assert not same.allows_tool("generate_image") and same.lends_tool("generate_image")
    # Skill-only wins over tools, also for a grant that allows every tool.
    everything = Grant(tools=None, skill_only_tools=["generate_video"])
    assert not everything.allows_tool("generate_video") and everything.allows_tool("run_code")


TOOL_NAMES = ["create_node", "generate_image", "generate_video", "run_code", "write_file", "skill__slides"]
tool_lists = st.lists(st.sampled_from(TOOL_NAMES), unique=True)


@settings(max_examples=300, deadline=None, database=None)
@given(tools=st.none() | tool_lists, skill_only=tool_lists,
       requests=st.lists(st.none() | tool_lists, min_size=1, max_size=4))
def test_narrowing_never_gains_a_tool(tools, skill_only, requests):
    parent = Grant(tools=tools, skill_only_tools=skill_only)
    child = parent
    for request in requests:
        narrowed = child.narrow(actor="skill:x", tools=request)
        for name in TOOL_NAMES:
            # Whatever the child may call, itself or through its own skills, its parent held or lent.
            assert not narrowed.lends_tool(name) or child.lends_tool(name), (name, child, narrowed)
            if request is None:
                assert narrowed.allows_tool(name) == child.allows_tool(name)
        child = narrowed
    for name in TOOL_NAMES:
        assert not child.lends_tool(name) or parent.lends_tool(name)


def test_a_grant_stored_before_skill_only_tools_existed_still_loads(tmp_path):
    grants = GrantStore(tmp_path / "grants.sqlite")
    old = Grant(tools=["create_node"]).model_dump(mode="json")
    del old["skill_only_tools"]
    with sqlite3.connect(tmp_path / "grants.sqlite") as db:
        db.execute("INSERT INTO grants (id, body) VALUES (?, ?)", (old["id"], json.dumps(old)))
    loaded = grants.get(old["id"])
    assert loaded.skill_only_tools == [] and loaded.allows_tool("create_node") and not loaded.lends_tool("run_code")


# -- the default grants --------------------------------------------------------------------------------------
def test_default_grants_lend_the_skills_needs_and_offer_what_the_planner_calls(make_runtime):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    needs = {f"skill__{s.name}": s.needs_tools for s in runtime.manifest.skills}
    sizes = {}
    for name, request in DEFAULT_GRANT_REQUESTS.items():
        grant = runtime.derive_grant(request)
        offered = [s["function"]["name"] for s in tool_schemas(runtime.turn_context, grant)]
        assert sorted(offered) == sorted(t for t in grant.tools if grant.allows_tool(t)), name
        assert not set(offered) & set(grant.skill_only_tools), name
        for tool in offered:  # every skill offered can run: its needs are held or lent
            assert all(grant.lends_tool(need) for need in needs.get(tool, [])), (name, tool)
        sizes[name] = len(json.dumps(tool_schemas(runtime.turn_context, grant)))
    narrative = runtime.derive_grant(DEFAULT_GRANT_REQUESTS["narrative"])
    # What the offline planner's narrative playbook calls itself stays offered; what only its skills call is lent.
    assert {"skill__storyboard", "skill__reference_images", "skill__video_clips", "assemble_cut", "mark_stale",
            "regenerate_stale", "query_canvas"} <= set(narrative.tools)
    assert {"generate_image", "generate_video"} <= set(narrative.skill_only_tools)
    web = runtime.derive_grant(DEFAULT_GRANT_REQUESTS["web"])
    assert {"skill__design_to_web", "skill__web_revise"} <= set(web.tools) and "generate_image" in web.skill_only_tools
    # Media words alone ask for the medium: the model is offered the generation tool itself.
    assert runtime.derive_grant("an image of a lighthouse at night").allows_tool("generate_image")
    assert all(size <= SCHEMA_GOAL_BYTES for size in sizes.values()), sizes


# -- the guarantee is the bridge -----------------------------------------------------------------------------
@pytest.mark.parametrize("agent", ["canvas", "chat"])
def test_with_the_offer_filter_off_a_skill_only_tool_the_model_calls_is_refused(project, monkeypatch, agent):
    """The attack: the model is bound every tool of the manifest and calls ``generate_image`` directly.

    The canvas agent binds its step's menu (``nodes.propose.bound_schemas``), the chat baseline the grant's tools
    through its own import of ``nodes.propose.tool_schemas``; both submit through the same bridge, which is what
    must refuse.
    """
    import graphs.chat_baseline
    import nodes.propose
    from jarvishub.chat_runtime import ChatRuntime
    from jarvishub.runtime import Runtime

    def every_tool(deps, *args, **kwargs):
        return tool_schemas(deps, Grant(tools=None))

    if agent == "canvas":
        monkeypatch.setattr(nodes.propose, "bound_schemas", every_tool)
    else:
        monkeypatch.setattr(graphs.chat_baseline, "tool_schemas", every_tool)
    RecordingModel.offered = []
    model = RecordingModel(script=[
        {"name": "generate_image", "args": {"prompt": "a pier at dawn", "width": 64, "height": 64}}, "done"])
    runtime = (Runtime if agent == "canvas" else ChatRuntime)(project, model=model)
    try:
        generation = runtime.services["generation"]
        paid, before, files = dict(generation.provider_calls), _canvas(project.store), _artifact_files(project)
        outcome = runtime.run(NARRATIVE)
        grant = runtime.grants.get(outcome.grant_id)
    finally:
        runtime.close()
    assert "generate_image" in grant.skill_only_tools and not grant.allows_tool("generate_image")
    assert RecordingModel.offered and "generate_image" in RecordingModel.offered[0]  # the filter really was off
    first = outcome.steps[0]
    assert first["action"]["tool"] == "generate_image"
    assert first["verdict"]["verdict"] == "reject" and first["verdict"]["reason"] == "tool_not_granted"
    assert "only by a skill" in first["verdict"]["message"]
    assert _canvas(project.store) == before and _artifact_files(project) == files
    assert generation.provider_calls == paid and outcome.provider_calls == 0


def test_an_evaluation_the_model_proposes_with_a_lent_evaluator_is_refused(make_runtime):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    grant = runtime.grants.save(Grant(tools=["read_node"], skill_only_tools=["evaluate_node"]))
    verdict = runtime.bridge.validate(Evaluation(action_id="ev", node_id="01JAAAAAAAAAAAAAAAAAAAAAAA"), grant, Usage())
    assert verdict.verdict == "reject" and verdict.reason == "tool_not_granted"


def test_the_skills_of_the_same_grant_call_the_skill_only_tools(make_runtime, project):
    """The offline planner builds a narrative: its skills generate every image and clip, the model never could."""
    RecordingPlanner.offered = []
    runtime = make_runtime(model=RecordingPlanner())
    generation = runtime.services["generation"]
    paid = dict(generation.provider_calls)
    outcome = runtime.run(NARRATIVE)
    assert outcome.outcome == "replied", outcome.reply
    assert all((s.get("verdict") or {}).get("verdict") == "allow" for s in outcome.steps), outcome.steps
    grant = runtime.grants.get(outcome.grant_id)
    assert {"generate_image", "generate_video"} <= set(grant.skill_only_tools)
    assert RecordingPlanner.offered and all(
        not {"generate_image", "generate_video"} & set(names) for names in RecordingPlanner.offered)
    images = [n for n in project.store.find_nodes(kind="image") if n.provenance.turn_id == outcome.turn_id]
    assert len(images) == 2 and all(n.provenance.tool == "generate_image" and n.outputs for n in images)
    assert generation.provider_calls["image"] >= paid["image"] + 2
    # The image steps ran under the skill's grant, narrowed from the turn's, holding the lent tool as its own.
    lenders = {child.actor: child for child in runtime.grants.children(grant.id)}
    assert lenders["skill:reference_images"].allows_tool("generate_image")
    assert not lenders["skill:storyboard"].lends_tool("generate_image")  # it did not ask for it


def test_a_skill_grant_uses_a_lent_tool_until_the_turn_grant_is_revoked(make_runtime, project):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    turn = runtime.grant_for(NARRATIVE)
    port = runtime.bridge.port(turn)
    skill = port.narrow(turn, actor="skill:reference_images", tools=["generate_image", "run_code"])
    assert skill.tools == ["generate_image"]  # run_code is neither held nor lent: never gained
    args = {"prompt": "a pier at dawn, lent", "width": 64, "height": 64}
    made = port.submit(ToolCall(action_id="lent-1", actor=skill.actor, tool="generate_image", args=args), skill,
                       Usage(), thread_id="lent")
    assert made.verdict == "allow" and made.commit is not None and made.provider_calls == 1, made
    direct = port.submit(ToolCall(action_id="lent-2", tool="generate_image", args=args), turn, Usage(),
                         thread_id="lent")
    assert direct.verdict == "reject" and direct.reason == "tool_not_granted" and direct.commit is None
    runtime.grants.revoke(turn.id)
    assert runtime.grants.get(skill.id).revoked  # revocation cascades to the skill's grant
    before = _canvas(project.store)
    again = port.submit(ToolCall(action_id="lent-3", actor=skill.actor, tool="generate_image",
                                 args={**args, "seed": 7}), skill, Usage(), thread_id="lent")
    assert again.verdict == "reject" and again.reason == "revoked" and _canvas(project.store) == before


@pytest.mark.parametrize("need_lent", [True, False])
def test_a_skill_is_granted_only_when_its_needs_are_held_or_lent(make_runtime, need_lent):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    needs = next(s.needs_tools for s in runtime.manifest.skills if s.name == "reference_images")
    lent = [n for n in needs if n != "generate_image" or need_lent]
    grant = runtime.grants.save(Grant(tools=["skill__reference_images"], skill_only_tools=lent))
    call = ToolCall(action_id="needs", tool="skill__reference_images",
                    args={"shot_ids": ["01JAAAAAAAAAAAAAAAAAAAAAAA"]})
    verdict = runtime.bridge.validate(call, grant, Usage())
    if need_lent:
        assert getattr(verdict, "reason", "") != "tool_not_granted", verdict  # refused later: no such shot
    else:
        assert verdict.verdict == "reject" and verdict.reason == "tool_not_granted"
        assert "generate_image" in verdict.message
