"""Parallel explorations on a real project: subagents, their groups and lineage, the failed branch, the critique."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graphs.explore import (
    EXPLORE_SKILL,
    MAX_BRANCHES,
    ExploreFailed,
    ExploreRejected,
    ExploreResult,
    choose_criterion,
    plan_variations,
)
from jarvishub.explore import explore
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.propose import build_messages
from store.memory import NAMED_PALETTES, ProjectMemory
from store.models import Direction, EdgeType, NodeStatus, new_id
from tools.generate.measure import image_stats

PROMPT = "a lighthouse above the harbour at dusk"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    opened = Project.init(tmp_path_factory.mktemp("explore") / "p", media_provider="offline", openai_api_key=None)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def runtime(project: Project) -> Iterator[Runtime]:
    running = Runtime(project)
    if running.registry.get("evaluate_node") is None:  # the critic's tool, wherever the catalog stands
        from skills.critique import EVALUATE_NODE

        running.close()
        running = Runtime(project, extra_tools=[EVALUATE_NODE])
    yield running
    running.close()


def make_image(runtime: Runtime, **args: Any) -> str:
    """An image node made through the bridge, as an agent would."""
    grant = runtime.grant_for("make an image")
    action = ToolCall(action_id=new_id(), tool="generate_image", args={"prompt": PROMPT, **args})
    made = runtime.bridge.submit(action, grant, Usage(), thread_id=new_id())
    assert made.verdict == "allow" and "error" not in made.observation, made
    return made.observation["node_id"]


@pytest.fixture(scope="module")
def parent(runtime: Runtime) -> str:
    return make_image(runtime, seed=11, width=320, height=224)


@pytest.fixture(scope="module")
def moods(runtime: Runtime, parent: str) -> ExploreResult:
    return explore(runtime, parent, 4, "try four lighting moods", fail_branches={2})


def rows(project: Project, cypher: str, **params: Any) -> list[dict[str, Any]]:
    return project.store.query(cypher, params).rows


def test_each_surviving_branch_is_a_new_version_in_its_own_group(project: Project, parent: str,
                                                                 moods: ExploreResult):
    assert moods.axis == "lighting" and len(moods.branches) == 4
    assert len(moods.candidate_ids) == 3
    versions = rows(project, "MATCH (c:CanvasNode)-[:VERSION_OF]->(p:CanvasNode {id: $parent}) "
                             "RETURN c.id AS id ORDER BY id", parent=parent)
    assert sorted(r["id"] for r in versions) == sorted(moods.candidate_ids)
    grouped = rows(project, "MATCH (c:CanvasNode)-[:IN_GROUP]->(g:CanvasNode) WHERE c.id IN $ids "
                            "RETURN c.id AS candidate, g.id AS grp, g.kind AS kind, g.title AS title",
                   ids=moods.candidate_ids)
    assert len(grouped) == 3 and len({r["grp"] for r in grouped}) == 3
    assert {r["kind"] for r in grouped} == {"group"}
    assert {g.status for g in project.store.get_nodes([r["grp"] for r in grouped])} == {NodeStatus.COMPLETED}
    by_candidate = {b.candidate_id: b for b in moods.branches if b.candidate_id}
    for row in grouped:
        branch = by_candidate[row["candidate"]]
        assert row["grp"] == branch.group_id and row["title"] == f"branch {branch.index}: {branch.label}"
    parent_inputs = project.store.get_node(parent).inputs
    for node in project.store.get_nodes(moods.candidate_ids):
        branch = by_candidate[node.id]
        assert node.provenance.actor == f"subagent:{branch.index}"
        assert node.inputs["lighting"] == branch.label
        assert {k: node.inputs[k] for k in ("prompt", "seed", "width", "height")} == {
            k: parent_inputs[k] for k in ("prompt", "seed", "width", "height")}


def test_exactly_one_candidate_is_selected_and_the_rejected_stay_queryable(project: Project, parent: str,
                                                                          moods: ExploreResult):
    statuses = rows(project, "MATCH (c:CanvasNode)-[:VERSION_OF]->(p:CanvasNode {id: $parent}) "
                             "RETURN c.id AS id, c.status AS status", parent=parent)
    assert sorted(r["status"] for r in statuses) == ["rejected", "rejected", "selected"]
    assert next(r["id"] for r in statuses if r["status"] == "selected") == moods.selected_id
    rejected = rows(project, "MATCH (c:CanvasNode {status: 'rejected'})-[:VERSION_OF]->(p:CanvasNode {id: $parent}) "
                             "WHERE c.deleted = false RETURN count(c) AS n", parent=parent)
    assert rejected == [{"n": 2}]
    for node in project.store.get_nodes(moods.candidate_ids):
        assert node.metadata["status_reason"].startswith("explore:")
    assert moods.critic == "evaluate_node"  # granted by the turn, so the critic is the evaluator
    done = [b for b in moods.branches if b.candidate_id]
    best = max(done, key=lambda b: (b.score, b.measures["contrast"], -b.index))  # ties: the highest contrast
    assert best.candidate_id == moods.selected_id
    for branch in done:
        assert branch.evaluation and branch.score == round(branch.evaluation["score"], 3)
        evaluations = project.store.neighbours(branch.candidate_id, [EdgeType.REFERENCES], Direction.IN)
        assert [n.node.id for n in evaluations if n.node.kind == "evaluation"] == [branch.evaluation["evaluation_id"]]


def test_without_the_evaluator_the_pixels_decide(project: Project, runtime: Runtime):
    turn = runtime.grant_for("explore")
    tools = [t for t in runtime.manifest.tool_names() if t != "evaluate_node"]
    lent = [t for t in turn.skill_only_tools if t != "evaluate_node"]  # neither offered nor lent to the skill
    grant = runtime.grants.save(turn.model_copy(update={"id": new_id(), "tools": tools, "skill_only_tools": lent}))
    fresh = make_image(runtime, seed=12, width=320, height=224)  # `parent` was replaced by its exploration's pick
    result = explore(runtime, fresh, 3, "try three moods and keep the warmest", grant=grant)
    assert result.critic == "measure" and result.criterion == "highest warmth"
    assert [b.label for b in result.branches] == ["warm", "cold", "night"]
    assert next(b for b in result.branches if b.status == "selected").label == "warm"
    assert all(b.evaluation is None for b in result.branches)


def test_the_selection_replaces_the_explored_image(project: Project, parent: str, moods: ExploreResult):
    explored, selected = project.store.get_node(parent), project.store.get_node(moods.selected_id or "")
    assert moods.replaced_id == parent and moods.rebuilt == []  # nothing was made from this image yet
    assert explored.status == NodeStatus.REJECTED
    assert explored.metadata["status_reason"] == f"superseded by {selected.id} (selected in an exploration)"
    assert selected.status == NodeStatus.SELECTED and selected.title == explored.title
    live = rows(project, "MATCH (c:CanvasNode)-[:VERSION_OF*0..]->(p:CanvasNode {id: $parent}) "
                         "WHERE c.status <> 'rejected' RETURN c.id AS id", parent=parent)
    assert live == [{"id": selected.id}]  # one current version of the output


def test_the_failed_branch_is_recorded_and_leaves_the_others_intact(project: Project, moods: ExploreResult):
    assert [(f.index, f.label) for f in moods.failed] == [(2, "night")]
    failed = project.store.get_node(moods.failed[0].group_id)
    assert (failed.kind, failed.status, failed.title) == ("group", NodeStatus.FAILED, "branch 2: night")
    assert "InjectedFailure" in failed.metadata["error"]["message"]
    assert failed.metadata["error"]["step"] == "generate"
    assert moods.failed[0].group_id in moods.group_ids and len(moods.group_ids) == 4
    assert [b.status for b in moods.branches].count("failed") == 1


def test_different_lighting_is_measurably_different(project: Project, moods: ExploreResult):
    stats = {}
    for node in project.store.get_nodes(moods.candidate_ids):
        stats[node.inputs["lighting"]] = image_stats(project.artifacts.read_bytes(node.outputs[0]))
    assert set(stats) == {"warm", "cold", "high-key"}
    assert stats["warm"].warmth > stats["cold"].warmth + 50
    assert stats["high-key"].mean_brightness > stats["cold"].mean_brightness + 20
    for branch in moods.branches:
        if branch.candidate_id:
            assert branch.measures["mood_match"] > 0  # each moved toward its own mood


def test_explore_is_a_skill_in_the_manifest(runtime: Runtime):
    tool = runtime.manifest.tool("skill__explore")
    assert tool is not None and "explore" in {s.name for s in runtime.skills}
    assert "fail_branches" not in str(tool.parameters)  # the test hook is not offered to models
    assert EXPLORE_SKILL.graph.config["max_concurrency"] == MAX_BRANCHES


def test_unknown_node_and_non_image_are_refused(runtime: Runtime):
    with pytest.raises(ExploreRejected):
        explore(runtime, new_id(), 2, "try two moods")
    grant = runtime.grant_for("note")
    note = runtime.bridge.submit(ToolCall(action_id=new_id(), tool="create_node",
                                          args={"kind": "text", "title": "a note", "status": "completed"}),
                                 grant, Usage(), thread_id=new_id())
    with pytest.raises(ExploreFailed, match="explore works on image nodes"):
        explore(runtime, note.observation["created"], 2, "try two moods")


def test_memory_rejections_shape_the_variations_and_reach_the_model(project: Project):
    memory = ProjectMemory.open(project.state_dir)
    runtime = None
    try:
        memory.add("rejected: night lighting")
        memory.add("prefer warm lighting")
        runtime = Runtime(project, services={"memory": memory, "turn_extra": {"memory_lines": memory.memory_lines}})
        fresh = make_image(runtime, seed=13, width=320, height=224)  # `parent` was replaced by its exploration's pick
        result = explore(runtime, fresh, 3, "relight it three ways, keep the coolest")
        assert [b.label for b in result.branches] == ["warm", "cold", "high-key"]
        assert result.criterion.endswith("lowest warmth") and result.selected_id
        state = {"request": "make a poster", "steps": [], "focus_ids": []}
        system = build_messages(runtime.turn_context, state, runtime.grant_for("make a poster"))[0].content
        assert "prefer warm lighting" in system and "rejected: night lighting" in system
    finally:
        if runtime is not None:
            runtime.close()
        memory.close()


@pytest.mark.parametrize(("instruction", "n", "axis", "labels"), [
    ("try four lighting moods", 4, "lighting", ["warm", "cold", "night", "high-key"]),
    ("night or golden light?", 3, "lighting", ["night", "golden-hour", "night, seed 8"]),
    # the presets an edit names, one candidate each (it made four night candidates of this)
    ("explore shot 6 at dawn, dusk and night", 3, "lighting", ["dawn", "dusk", "night"]),
    ("relight it", 6, "lighting", ["warm", "cold", "night", "high-key", "warm, seed 8", "cold, seed 8"]),
    ("recolour with the ocean and noir palettes", 2, "palette", ["ocean palette", "noir palette"]),
    ("three palettes", 3, "palette", [f"{p} palette" for p in list(NAMED_PALETTES)[:3]]),
    ("four takes", 4, "seed", ["seed 8", "seed 9", "seed 10", "seed 11"]),
])
def test_instructions_parse_into_variations(instruction: str, n: int, axis: str, labels: list[str]):
    got_axis, variations = plan_variations(instruction, n, {"prompt": "x", "seed": 7, "lighting": "neutral"})
    assert got_axis == axis and [v["label"] for v in variations] == labels
    assert [v["index"] for v in variations] == list(range(n))
    assert plan_variations(instruction, n, {"prompt": "x", "seed": 7}) == (got_axis, variations)


def test_variations_skip_the_current_look_and_what_memory_rejected():
    _, warm_parent = plan_variations("moods", 4, {"prompt": "x", "lighting": "warm"})
    assert [v["label"] for v in warm_parent] == ["cold", "night", "high-key", "neutral"]
    _, avoided = plan_variations("moods", 3, {"prompt": "x"}, {"lighting": ["night"]})
    assert [v["changes"] for v in avoided] == [{"lighting": "warm"}, {"lighting": "cold"}, {"lighting": "high-key"}]
    _, named = plan_variations("night moods", 1, {"prompt": "x"}, {"lighting": ["night"]})
    assert named[0]["changes"] == {"lighting": "night"}  # what the instruction names wins over memory


@pytest.mark.parametrize(("instruction", "expected"), [
    ("try four lighting moods", ("contrast", "max")),
    ("four moods, keep the warmest", ("warmth", "max")),
    ("which is coolest", ("warmth", "min")),
    ("pick the darkest", ("brightness", "min")),
    ("the brightest one", ("brightness", "max")),
    ("moods, the truest wins", ("mood_match", "max")),
])
def test_the_critic_reads_its_target_from_the_instruction(instruction: str, expected: tuple[str, str]):
    assert choose_criterion(instruction, "lighting") == expected
    assert choose_criterion("palettes, the truest", "palette") == ("contrast", "max")
