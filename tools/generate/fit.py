"""Reading a reference's picture and fitting it into a frame, shared by every provider that reuses a still."""

from __future__ import annotations

from PIL import Image

from tools.generate.base import GenerationError, ReferenceInput


def load_still(ref: ReferenceInput | None, what: str) -> Image.Image:
    """The RGB picture of a reference's local file; ``what`` names it in the error ("the source still")."""
    if ref is None or ref.path is None:
        raise GenerationError(f"{what} has no local image file to read")
    try:
        with Image.open(ref.path) as im:
            return im.convert("RGB")
    except OSError as e:
        raise GenerationError(f"cannot read {what} (node {ref.node_id}): {e}") from e


def cover(image: Image.Image, width: int, height: int) -> Image.Image:
    """Scale ``image`` to cover ``width x height`` and crop the centre: no bars, no distortion."""
    scale = max(width / image.width, height / image.height)
    size = (max(width, round(image.width * scale)), max(height, round(image.height * scale)))
    resized = image.resize(size, Image.BILINEAR)
    left, top = (resized.width - width) // 2, (resized.height - height) // 2
    return resized.crop((left, top, left + width, top + height))
