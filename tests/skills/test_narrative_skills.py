"""storyboard, reference_images and video_clips, invoked as an agent would: through the bridge, on a real store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel

from nodes.bridge import Usage
from nodes.grant import Grant
from skills.base import SkillContext, skill
from skills.storyboard import CAMERA_CYCLE, PALETTES, StoryboardInput, plan_story
from store.errors import TicketRequired
from store.models import CanvasNode, Direction, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode
from store.tickets import TicketAuthority
from tools.generate.measure import colour_fraction, probe_video

if TYPE_CHECKING:
    from conftest import Agent

PREMISE = "Mira finds a lost kite at the harbour and flies it home"
N_SHOTS = 4
STORYBOARD_ACTION = new_id()
IMAGES_ACTION = new_id()
IMAGES_ARGS = {"seed": 3, "width": 384, "height": 224}


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory, start_agent) -> Iterator[Agent]:
    with start_agent(tmp_path_factory.mktemp("narrative") / "p") as running:
        yield running


@pytest.fixture(scope="module")
def board(agent: Agent) -> dict[str, Any]:
    result = agent.submit("skill__storyboard", {"premise": PREMISE, "n_shots": N_SHOTS, "style": "ink wash"},
                          action_id=STORYBOARD_ACTION)
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation


@pytest.fixture(scope="module")
def images(agent: Agent, board: dict[str, Any]) -> list[CanvasNode]:
    result = agent.submit("skill__reference_images", {"shot_ids": board["shot_ids"], **IMAGES_ARGS},
                          action_id=IMAGES_ACTION)
    assert result.verdict == "allow" and "error" not in result.observation, result
    assert result.provider_calls == N_SHOTS  # every branch's generation is counted on the skill's call
    return agent.store.get_nodes(result.observation["image_ids"])


@pytest.fixture(scope="module")
def clips(agent: Agent, images: list[CanvasNode]) -> list[CanvasNode]:
    out = agent.call("skill__video_clips", image_ids=[i.id for i in images], duration_s=1.0, fps=12)
    return agent.store.get_nodes(out["clip_ids"])


def test_plan_is_deterministic_and_follows_the_premise():
    plan = plan_story(PREMISE, 6, "night", "ink wash")
    assert plan == plan_story(PREMISE, 6, "night", "ink wash")
    assert plan.character.name == "Mira" and tuple(plan.character.colors) in PALETTES
    assert plan.scene.setting == "sea"
    assert [b.camera for b in plan.beats] == [CAMERA_CYCLE[i % 4] for i in range(6)]
    assert all("Mira" in b.prompt and b.beat in b.prompt and "ink wash" in b.prompt for b in plan.beats)
    assert plan_story("a robot learns to paint", 1).character.name  # a name even when the premise has none
    with pytest.raises(ValueError):
        StoryboardInput(premise=PREMISE, n_shots=25)


def test_storyboard_creates_the_nodes_and_edges_it_promises(agent: Agent, board: dict[str, Any]):
    store = agent.store
    plan = store.get_node(board["plan_id"])
    character, scene = store.get_node(board["character_id"]), store.get_node(board["scene_id"])
    shots = store.get_nodes(board["shot_ids"])

    assert plan.kind == "plan" and plan.inputs["premise"] == PREMISE and len(plan.inputs["beats"]) == N_SHOTS
    assert (character.kind, character.inputs["role"], character.inputs["name"]) == ("reference", "character", "Mira")
    assert character.inputs["colors"] == plan_story(PREMISE).character.colors
    assert (scene.kind, scene.inputs["role"]) == ("reference", "scene")
    assert [s.title for s in shots] == [f"shot {i}" for i in range(1, N_SHOTS + 1)]
    for i, shot in enumerate(shots):
        assert shot.kind == "shot" and shot.group_id == board["group_id"]
        assert shot.inputs["index"] == i + 1 and shot.inputs["camera"] == CAMERA_CYCLE[i % 4].value
        assert (shot.inputs["character_id"], shot.inputs["scene_id"]) == (character.id, scene.id)
        assert "Mira" in shot.inputs["prompt"] and shot.inputs["lighting"] == "neutral"
        assert agent.targets(shot.id, EdgeType.GENERATED_FROM) == [plan.id]
        assert set(agent.targets(shot.id, EdgeType.REFERENCES)) == {character.id, scene.id}
        assert agent.targets(shot.id, EdgeType.CONTINUES) == ([shots[i - 1].id] if i else [])
        assert shot.provenance.actor == "skill:storyboard"
    assert store.get_node(board["group_id"]).kind == "group"


def test_a_resumed_storyboard_replays_its_steps_instead_of_repeating_them(agent: Agent, board: dict[str, Any]):
    before = agent.store.count_nodes()
    again = agent.submit("skill__storyboard", {"premise": PREMISE, "n_shots": N_SHOTS, "style": "ink wash"},
                         action_id=STORYBOARD_ACTION)
    assert again.observation == board
    assert agent.store.count_nodes() == before


def test_reference_images_draw_every_shot_with_the_same_character(agent: Agent, board: dict[str, Any],
                                                                  images: list[CanvasNode]):
    colours = agent.store.get_node(board["character_id"]).inputs["colors"]
    assert len(images) == N_SHOTS
    for i, (image, shot_id) in enumerate(zip(images, board["shot_ids"], strict=True)):
        assert (image.kind, image.status, image.title) == ("image", NodeStatus.COMPLETED, f"shot {i + 1} image")
        references = {n.node.id: n.edge.properties["role"]
                      for n in agent.store.neighbours(image.id, [EdgeType.REFERENCES])}
        assert references == {board["character_id"]: "character", board["scene_id"]: "scene"}
        assert agent.targets(image.id, EdgeType.GENERATED_FROM) == [shot_id]
        png = agent.runtime.project.artifacts.read_bytes(image.outputs[0])
        for colour in colours:  # the character is measurably the same figure in every shot
            assert colour_fraction(png, colour, tolerance=0) > 0.002, (image.title, colour)


def test_parallel_branches_have_deterministic_action_ids_so_a_resume_replays_them(
        agent: Agent, board: dict[str, Any], images: list[CanvasNode]):
    before = agent.store.count_nodes()
    again = agent.submit("skill__reference_images", {"shot_ids": board["shot_ids"], **IMAGES_ARGS},
                         action_id=IMAGES_ACTION)
    assert again.observation["image_ids"] == [i.id for i in images]
    assert again.provider_calls == 0 and agent.store.count_nodes() == before


def test_video_clips_animate_each_image_with_its_shots_camera(agent: Agent, board: dict[str, Any],
                                                              images: list[CanvasNode], clips: list[CanvasNode]):
    shots = agent.store.get_nodes(board["shot_ids"])
    for clip, image, shot in zip(clips, images, shots, strict=True):
        assert (clip.kind, clip.title, clip.outputs[0].mime) == ("video", f"{shot.title} clip", "video/mp4")
        assert clip.inputs["camera"] == shot.inputs["camera"]
        assert agent.targets(clip.id, EdgeType.GENERATED_FROM) == [image.id]
        info = probe_video(agent.runtime.project.artifacts.local_path(clip.outputs[0]))
        assert info.frames == 12 and abs(info.duration_s - 1.0) < 0.1
    descendants = {e.node.id for e in agent.store.lineage(board["plan_id"], direction=Direction.IN)}
    assert {c.id for c in clips} <= descendants


def test_reference_images_says_what_is_wrong_with_a_node_that_is_not_a_shot(agent: Agent, board: dict[str, Any]):
    result = agent.submit("skill__reference_images", {"shot_ids": [board["plan_id"]]})
    assert result.verdict == "allow" and "has no inputs.prompt" in result.observation["error"]


def test_a_skill_is_rejected_when_the_grant_lacks_a_tool_it_needs(agent: Agent):
    before = agent.store.count_nodes()
    narrow = Grant(tools=["skill__storyboard", "create_node"])
    result = agent.submit("skill__storyboard", {"premise": "a quiet morning"}, grant=narrow)
    assert result.verdict == "reject"
    assert "link_nodes" in result.message and "group_nodes" in result.message
    assert agent.store.count_nodes() == before


def test_a_skill_step_cannot_write_around_the_bridge(agent: Agent):
    store = agent.runtime.project.store
    batch = [CreateNode(kind="text", title="sneaked in")]

    class Nothing(BaseModel):
        pass

    @skill(name="rogue", description="Writes the store directly.", input_model=Nothing, output_model=Nothing,
           needs=[])
    def rogue(ctx: SkillContext, inp: Nothing) -> Nothing:
        store.apply(batch, ticket=None)  # type: ignore[arg-type]
        return Nothing()

    grant = agent.runtime.grant_for("rogue")
    ctx = SkillContext(bridge=agent.runtime.bridge, grant=grant, usage=Usage(), thread_id=agent.thread_id,
                       turn_id=None, action_prefix="rogue", actor="skill:rogue")
    before = store.count_nodes()
    with pytest.raises(TicketRequired):
        rogue.run(ctx, {})
    with pytest.raises(TicketRequired):  # nor with a ticket the bridge did not issue
        store.apply(batch, ticket=TicketAuthority().issue("forged", batch))
    assert store.count_nodes() == before
