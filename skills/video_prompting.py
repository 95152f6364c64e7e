"""The ``video_clips`` skill: turn each shot's image into a clip with the shot's camera move, in parallel.

For each image it finds the shot the image was GENERATED_FROM (for the camera
move and the title) and calls ``generate_video`` with the image as source; the
tool links the clip GENERATED_FROM the image.  The shot is then marked completed.  Images run in parallel branches
(``clip<i>``) like :mod:`skills.reference_generation`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from skills.base import SkillContext
from skills.compose import parallel_map
from store.models import EdgeType
from tools.base import Effect
from tools.generate.base import CameraMove


class VideoClipsInput(BaseModel):
    """What ``video_clips`` takes."""

    image_ids: list[str] = Field(min_length=1, max_length=48, description="Image nodes, in story order.")
    duration_s: float = Field(default=2.0, gt=0, le=60, description="Length of each clip in seconds.")
    fps: int = Field(default=12, ge=1, le=60)


class VideoClipsOutput(BaseModel):
    """The clips made, one per image, in image order."""

    clip_ids: list[str]


def _images(ctx: SkillContext, inp: VideoClipsInput) -> list[dict[str, Any]]:
    items = []
    for image in ctx.canvas.get_nodes(inp.image_ids):
        shot = next((n.node for n in ctx.canvas.neighbours(image.id, [EdgeType.GENERATED_FROM])
                     if n.node.kind == "shot"), None)
        camera = (shot.inputs.get("camera") if shot else None) or CameraMove.STATIC.value
        title = f"{shot.title} clip" if shot else f"{image.title or image.id} clip"
        items.append({"image_id": image.id, "camera": camera, "title": title, "shot_id": shot.id if shot else None})
    return items


def _animate(ctx: SkillContext, inp: VideoClipsInput, index: int, image: dict[str, Any]) -> str:
    clip = ctx.call("generate_video", source_node_id=image["image_id"], camera=image["camera"],
                    duration_s=inp.duration_s, fps=inp.fps, title=image["title"])
    if image.get("shot_id"):
        # A shot with its image and its clip made is done; `pending` is left for work still queued.
        ctx.call("set_status", node_id=image["shot_id"], status="completed", reason="image and clip made")
    return clip["node_id"]


VIDEO_CLIPS = parallel_map(
    name="video_clips",
    description=(
        "Animate each image node into a clip with its shot's camera move."
    ),
    input_model=VideoClipsInput,
    output_model=VideoClipsOutput,
    needs=["generate_video", "set_status"],
    items=_images,
    work=_animate,
    collect=lambda inp, clip_ids: VideoClipsOutput(clip_ids=clip_ids),
    label=lambda index, image: f"clip{index + 1}",
    effects=frozenset({Effect.MUTATES_CANVAS, Effect.GENERATES_MEDIA, Effect.COST_BEARING, Effect.LONG_RUNNING}),
)
"""The ``video_clips`` skill."""
