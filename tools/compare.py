"""Two versions of a picture (or a clip's middle frame) side by side, as one content-addressed PNG.

The picture is made from the two stored artifacts and the two labels only, so the same comparison always
gives the same bytes and the same hash; it goes to the artifact store, never onto the canvas.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from store.artifacts import ArtifactStore
from store.models import ArtifactHandle
from tools.generate.base import GenerationError
from tools.generate.measure import probe_video, video_frame

MAX_HEIGHT = 720
"""Taller pictures are scaled down to this height (the comparison is for looking, not measuring)."""
GAP = 12
LABEL_BAND = 28
BACKGROUND = (24, 24, 24)
INK = (240, 240, 240)


def picture_of(artifacts: ArtifactStore, handle: ArtifactHandle) -> Image.Image | None:
    """The still to compare for an artifact: an image itself, a clip's middle frame; None for anything else."""
    if handle.mime.startswith("image/"):
        return Image.open(io.BytesIO(artifacts.read_bytes(handle))).convert("RGB")
    if handle.mime.startswith("video/"):
        path = artifacts.local_path(handle)
        try:
            frames = probe_video(path).frames
            return Image.open(io.BytesIO(video_frame(path, max(0, frames // 2)))).convert("RGB")
        except GenerationError:
            return None
    return None


def side_by_side(artifacts: ArtifactStore, left: tuple[ArtifactHandle, str], right: tuple[ArtifactHandle, str]
                 ) -> ArtifactHandle | None:
    """A PNG of ``left`` and ``right`` next to each other, each under its label; None when either has no picture."""
    pictures = [picture_of(artifacts, handle) for handle, _ in (left, right)]
    if any(p is None for p in pictures):
        return None
    height = min(MAX_HEIGHT, max(p.height for p in pictures))  # type: ignore[union-attr]
    scaled = [p.resize((max(1, round(p.width * height / p.height)), height)) for p in pictures]  # type: ignore[union-attr]
    width = sum(p.width for p in scaled) + GAP * 3
    canvas = Image.new("RGB", (width, height + LABEL_BAND + GAP), BACKGROUND)
    draw = ImageDraw.Draw(canvas)
    x = GAP
    for picture, (_, label) in zip(scaled, (left, right), strict=True):
        draw.text((x, 8), label, fill=INK)
        canvas.paste(picture, (x, LABEL_BAND))
        x += picture.width + GAP
    data = io.BytesIO()
    canvas.save(data, format="PNG", optimize=False)
    return artifacts.put_bytes(data.getvalue(), "image/png", name="comparison.png")
