"""The ``reference_images`` skill: draw every shot guided by its character and scene references, in parallel.

For each shot node it calls ``generate_image`` with the shot's prompt, its
character and scene as references (so the character looks the same in every
image), the shot's lighting (or the one given), then links the image
GENERATED_FROM the shot.  Shots run in parallel branches (LangGraph ``Send``,
see :func:`skills.compose.parallel_map`), branch ``shot<i>`` each, so action ids
stay deterministic however the branches interleave.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from skills.base import SkillContext
from skills.compose import parallel_map
from store.models import CanvasNode, EdgeType
from tools.base import Effect, ToolError
from tools.generate.base import Lighting


class ReferenceImagesInput(BaseModel):
    """What ``reference_images`` takes."""

    shot_ids: list[str] = Field(min_length=1, max_length=48, description="Shot nodes to draw, in story order.")
    lighting: Lighting | None = Field(default=None, description="Overrides every shot's own lighting.")
    seed: int = Field(default=0, ge=0, le=2**63 - 1, description="Change it for another take of every shot.")
    width: int = Field(default=512, ge=64, le=4096)
    height: int = Field(default=288, ge=64, le=4096)


class ReferenceImagesOutput(BaseModel):
    """The images made, one per shot, in shot order."""

    image_ids: list[str]


def _shots(ctx: SkillContext, inp: ReferenceImagesInput) -> list[dict[str, Any]]:
    return [_shot_item(ctx, shot) for shot in ctx.canvas.get_nodes(inp.shot_ids)]


def _shot_item(ctx: SkillContext, shot: CanvasNode) -> dict[str, Any]:
    prompt = str(shot.inputs.get("prompt") or "").strip()
    if not prompt:
        raise ToolError(f"node {shot.id} ({shot.kind} {shot.title!r}) has no inputs.prompt to draw; pass shot nodes")
    refs = {"character": shot.inputs.get("character_id"), "scene": shot.inputs.get("scene_id")}
    if not all(refs.values()):  # a shot made by hand: its REFERENCES edges say who and where
        for n in ctx.canvas.neighbours(shot.id, [EdgeType.REFERENCES]):
            role = n.edge.properties.get("role") or n.node.inputs.get("role")
            if role in refs and not refs[role]:
                refs[role] = n.node.id
    return {"shot_id": shot.id, "title": shot.title or shot.id, "prompt": prompt,
            "lighting": shot.inputs.get("lighting") or Lighting.NEUTRAL.value,
            "character_id": refs["character"], "scene_id": refs["scene"]}


def _draw(ctx: SkillContext, inp: ReferenceImagesInput, index: int, shot: dict[str, Any]) -> str:
    roles = {shot[f"{role}_id"]: role for role in ("character", "scene") if shot[f"{role}_id"]}
    image = ctx.call(
        "generate_image", prompt=shot["prompt"], references=list(roles), reference_roles=roles,
        lighting=(inp.lighting or Lighting(shot["lighting"])).value, seed=inp.seed, width=inp.width,
        height=inp.height, title=f"{shot['title']} image")
    ctx.call("link_nodes", type="GENERATED_FROM", source=image["node_id"], target=shot["shot_id"],
             properties={"as": "shot"})
    return image["node_id"]


REFERENCE_IMAGES = parallel_map(
    name="reference_images",
    description=(
        "Draw an image per shot node from its character and scene references; lighting overrides the shots'."
    ),
    input_model=ReferenceImagesInput,
    output_model=ReferenceImagesOutput,
    needs=["generate_image", "link_nodes"],
    items=_shots,
    work=_draw,
    collect=lambda inp, image_ids: ReferenceImagesOutput(image_ids=image_ids),
    label=lambda index, shot: f"shot{index + 1}",
    effects=frozenset({Effect.MUTATES_CANVAS, Effect.GENERATES_MEDIA, Effect.COST_BEARING}),
)
"""The ``reference_images`` skill."""
