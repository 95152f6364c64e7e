"""Writing a request's structured style and references into the text prompt a remote model reads.

Remote models take one prompt string; the offline renderer reads the fields
directly.  Both must see the same request, so everything that shapes the
picture (lighting, palette, camera, who the characters are) is spelled out
here.
"""

from __future__ import annotations

from typing import Any

from tools.generate.base import CameraMove, ImageRequest, Lighting, ReferenceInput, VideoRequest

_LIGHTING = {
    Lighting.WARM: "warm, golden lighting (low colour temperature)",
    Lighting.COLD: "cold, bluish lighting (high colour temperature)",
    Lighting.NIGHT: "night-time lighting, dark with deep blue shadows",
    Lighting.HIGH_KEY: "bright high-key lighting, soft shadows, low contrast",
}
_CAMERA = {
    CameraMove.PAN: "a slow, steady horizontal pan across the scene",
    CameraMove.ZOOM: "a slow push-in zoom toward the centre",
    CameraMove.FADE: "a static shot that fades in from black and fades out to black",
    CameraMove.STATIC: "a locked-off static camera",
}
_MAX_VALUE_CHARS = 200


def compose_prompt(request: ImageRequest | VideoRequest, uploaded: list[ReferenceInput] | None = None) -> str:
    """The request as one prompt: the words, then the references, lighting, palette and camera.

    ``uploaded`` lists the references sent as images, in upload order, so the
    prompt can say which picture is which.
    """
    lines = [request.prompt.strip()] if request.prompt.strip() else []
    if uploaded:
        order = "; ".join(f"image {i + 1}: {_label(ref)}" for i, ref in enumerate(uploaded))
        lines.append(f"Attached images, in order: {order}.")
    for ref in request.references:
        details = _details(ref.inputs)
        lines.append(f"{_label(ref)}{': ' + details if details else ''}. Keep it consistent with its reference.")
    if request.lighting is not Lighting.NEUTRAL:
        lines.append(f"Lighting: {_LIGHTING.get(request.lighting, request.lighting.value + ' lighting')}.")
    if request.palette:
        lines.append(f"Colour palette: {', '.join(request.palette)}.")
    if isinstance(request, ImageRequest):
        lines.extend(_look_lines(request))
    if isinstance(request, VideoRequest):
        lines.append(f"Camera: {_CAMERA[request.camera]}.")
    return "\n".join(lines)


def _look_lines(request: ImageRequest) -> list[str]:
    """Framing, weather, outfit and exposure/temperature nudges, for models that read only text."""
    lines = []
    if request.framing.value != "medium":
        lines.append(f"Framing: a {request.framing.value} shot of the characters.")
    if request.weather.value != "clear":
        lines.append(f"Weather: {request.weather.value}.")
    if request.outfit:
        lines.append(f"The characters wear an outfit of colour {request.outfit}.")
    if request.exposure:
        lines.append(f"Exposure: {abs(request.exposure):g} stops {'brighter' if request.exposure > 0 else 'darker'}.")
    if request.temperature:
        lines.append(f"Colour temperature: {'warmer' if request.temperature > 0 else 'cooler'} "
                     f"by {abs(request.temperature):g}.")
    return lines


def _label(ref: ReferenceInput) -> str:
    name = ref.inputs.get("name") or ref.inputs.get("title")
    return f"{ref.role.value} {name!r}" if name else f"{ref.role.value} (node {ref.node_id})"


def _details(inputs: dict[str, Any]) -> str:
    parts = []
    for key in sorted(inputs):
        value = inputs[key]
        if key in ("name", "title") or value in (None, "", [], {}):
            continue
        text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(f"{key} {text[:_MAX_VALUE_CHARS]}")
    return "; ".join(parts)
