"""The ``storyboard`` skill: a premise becomes a plan, a character, a scene and a chain of shots on the canvas.

Planning is deterministic and needs no model (:func:`content.story_plan.plan_story`: the
title, the character, the scene, one beat per shot).  The skill graph puts the
plan on the canvas through the bridge, one graph node per step:

``plan`` → ``references`` → ``shots`` → ``group``

Canvas result: a ``plan`` node; two ``reference`` nodes (``inputs.role``
``character`` and ``scene``) GENERATED_FROM the plan; shot nodes titled
``shot 1`` … ``shot N``, each GENERATED_FROM the plan, REFERENCES the character
and the scene, and CONTINUES the shot before it; and a group of the shots.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field

from content.sizes import SHOTS_MAX, SHOTS_MIN
from content.story_plan import CAMERA_CYCLE, PALETTES, StoryPlan, inserted_shot_inputs, plan_story
from skills.base import Skill, SkillContext, SkillState, skill_context
from tools.generate.base import Lighting


class StoryboardInput(BaseModel):
    """What ``storyboard`` takes."""

    premise: str = Field(min_length=1, max_length=2000, description="The story in a sentence or two.")
    n_shots: int = Field(default=6, ge=SHOTS_MIN, le=SHOTS_MAX, description="How many shots.")
    lighting: Lighting = Field(default=Lighting.NEUTRAL, description="The lighting every shot starts with.")
    style: str | None = Field(default=None, max_length=200, description="A visual style for every shot prompt.")


class StoryboardOutput(BaseModel):
    """The canvas nodes ``storyboard`` made."""

    plan_id: str
    shot_ids: list[str] = Field(description="The shots, in story order.")
    character_id: str
    scene_id: str
    group_id: str = Field(description="The group holding the shots.")


# -- the skill graph: each graph node is one step through the bridge ---------------------------------

_COLUMN = 280.0  # canvas layout: shots in a row, plan and references above them


def _plan(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    inp = StoryboardInput.model_validate(state["input"])
    plan = plan_story(inp.premise, inp.n_shots, inp.lighting, inp.style)
    created = ctx.call("create_node", kind="plan", title=f"Storyboard: {plan.title}", status="completed", x=0.0, y=0.0,
                       inputs={"premise": plan.premise, "title": plan.title, "lighting": plan.lighting.value,
                               "style": plan.style, "beats": [b.model_dump(mode="json") for b in plan.beats]})
    return {"scratch": {"plan": plan.model_dump(mode="json"), "plan_id": created["created"]}}


def _references(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    scratch = state["scratch"]
    plan = StoryPlan.model_validate(scratch["plan"])
    character_id = _create_linked(ctx, scratch["plan_id"], kind="reference", title=plan.character.name,
                                  status="completed", x=0.0, y=200.0,
                                  inputs={"role": "character", **plan.character.model_dump(mode="json")})
    scene_id = _create_linked(ctx, scratch["plan_id"], kind="reference", title=plan.scene.name, status="completed",
                              x=_COLUMN, y=200.0, inputs={"role": "scene", **plan.scene.model_dump(mode="json")})
    return {"scratch": {**scratch, "character_id": character_id, "scene_id": scene_id}}


def _shots(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    scratch = state["scratch"]
    plan = StoryPlan.model_validate(scratch["plan"])
    character_id, scene_id = scratch["character_id"], scratch["scene_id"]
    shot_ids: list[str] = []
    for beat in plan.beats:
        shot_id = _create_linked(
            ctx, scratch["plan_id"], kind="shot", title=f"shot {beat.index}", x=_COLUMN * (beat.index - 1), y=400.0,
            inputs={"index": beat.index, "prompt": beat.prompt, "camera": beat.camera.value,
                    "lighting": plan.lighting.value, "character_id": character_id, "scene_id": scene_id,
                    "beat": beat.beat})
        if shot_ids:
            ctx.call("link_nodes", type="CONTINUES", source=shot_id, target=shot_ids[-1])
        for ref_id, role in ((character_id, "character"), (scene_id, "scene")):
            ctx.call("link_nodes", type="REFERENCES", source=shot_id, target=ref_id, properties={"role": role})
        shot_ids.append(shot_id)
    return {"scratch": {**scratch, "shot_ids": shot_ids}}


def _group(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    scratch = state["scratch"]
    title = StoryPlan.model_validate(scratch["plan"]).title
    grouped = ctx.call("group_nodes", node_ids=scratch["shot_ids"], title=f"{title}: shots")
    output = StoryboardOutput(plan_id=scratch["plan_id"], shot_ids=scratch["shot_ids"],
                              character_id=scratch["character_id"], scene_id=scratch["scene_id"],
                              group_id=grouped["group_id"])
    return {"output": output.model_dump(mode="json")}


def _create_linked(ctx: SkillContext, plan_id: str, **node: Any) -> str:
    """Create a node and record that it was generated from the plan."""
    node_id = ctx.call("create_node", **node)["created"]
    ctx.call("link_nodes", type="GENERATED_FROM", source=node_id, target=plan_id)
    return node_id


def _build() -> Skill:
    graph = StateGraph(SkillState)
    steps = [("plan", _plan), ("references", _references), ("shots", _shots), ("group", _group)]
    previous = START
    for name, step in steps:
        graph.add_node(name, step)
        graph.add_edge(previous, name)
        previous = name
    graph.add_edge(previous, END)
    return Skill(
        name="storyboard",
        description=(
            "Storyboard a premise: a plan, character and scene references, n_shots shot nodes ('shot 1'..), "
            "grouped. Then draw them with reference_images."
        ),
        input_model=StoryboardInput,
        output_model=StoryboardOutput,
        needs=["create_node", "link_nodes", "group_nodes"],
        graph=graph.compile(),
    )


STORYBOARD: Skill = _build()
"""The ``storyboard`` skill."""

__all__ = ["CAMERA_CYCLE", "PALETTES", "STORYBOARD", "StoryPlan", "StoryboardInput", "StoryboardOutput",
           "inserted_shot_inputs", "plan_story"]
