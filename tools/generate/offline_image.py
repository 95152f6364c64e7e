"""The offline image provider: a deterministic Pillow rendering that shows what a request changed.

It is a test double you can see.  A character's look (shape and colours) is
derived only from its reference (inputs and artifact hash), never from the
prompt or seed, so the same character looks the same in every shot.  The scene
comes from a scene reference or the prompt's words, the seed moves things
around, the palette recolours the scene, ``lighting`` grades every pixel in a
measurable direction, and the prompt is written in a caption strip.  The same
request always gives the same PNG bytes.
"""

from __future__ import annotations

import colorsys
import functools
import hashlib
import io
import json
import random
import time
from typing import Any, Literal

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from pydantic import BaseModel

from tools.generate.base import (
    Framing,
    GeneratedMedia,
    ImageMode,
    ImageProvider,
    ImageRequest,
    Lighting,
    ReferenceInput,
    ReferenceRole,
    Weather,
)
from tools.generate.fit import cover, load_still

Shape = Literal["round", "square", "triangle", "tall"]
Setting = Literal["hills", "forest", "city", "sea", "room"]
SHAPES: tuple[Shape, ...] = ("round", "square", "triangle", "tall")
SETTINGS: tuple[Setting, ...] = ("hills", "forest", "city", "sea", "room")

_SETTING_WORDS: dict[Setting, tuple[str, ...]] = {
    "forest": ("forest", "tree", "trees", "woods", "jungle", "grove"),
    "city": ("city", "street", "town", "building", "buildings", "alley", "rooftop", "market"),
    "sea": ("sea", "ocean", "beach", "lake", "shore", "harbour", "harbor", "river", "boat"),
    "room": ("room", "kitchen", "interior", "house", "bedroom", "office", "studio", "cafe", "bar"),
    "hills": ("hill", "hills", "field", "meadow", "valley", "mountain", "desert"),
}
# Base colours per setting: sky top, sky bottom, ground, feature.
_SETTING_COLOURS: dict[Setting, tuple[str, str, str, str]] = {
    "hills": ("#6fa8dc", "#cfe2f3", "#6aa84f", "#38761d"),
    "forest": ("#76a5af", "#d9ead3", "#4e7d3a", "#274e13"),
    "city": ("#8e9aaf", "#dcdde1", "#5f6368", "#3c4043"),
    "sea": ("#3d85c6", "#c9daf8", "#e6d3a3", "#1c4587"),
    "room": ("#d9c3a5", "#efe4d2", "#8b6b4a", "#5b3a29"),
}
_EYE = "#161616"
_CAPTION_BG = "#101010"
_CAPTION_FG = "#f2f2f2"


class CharacterLook(BaseModel):
    """How the offline renderer draws a character: fixed by its reference alone."""

    name: str
    shape: Shape
    body: str
    head: str


class SceneLook(BaseModel):
    """The offline renderer's scene: a setting and its colours."""

    setting: Setting
    sky_top: str
    sky_bottom: str
    ground: str
    feature: str
    horizon: float


def character_look(ref: ReferenceInput) -> CharacterLook:
    """The look of a character reference: its own colours and shape if it names them, else ones derived from its hash.

    Only the reference decides this (``inputs`` and ``sha256``), so two shots
    with the same character reference draw the same figure in the same colours.
    """
    key = _digest(ref.sha256 or "", _canonical(ref.inputs))
    named = _colours(ref.inputs)
    shape = ref.inputs.get("shape")
    return CharacterLook(
        name=str(ref.inputs.get("name") or ref.node_id),
        shape=shape if shape in SHAPES else SHAPES[key[0] % len(SHAPES)],
        body=named[0] if named else _derived_colour(key[1:4]),
        head=named[1] if len(named) > 1 else _derived_colour(key[4:7], value=0.9),
    )


def scene_look(prompt: str, scene: ReferenceInput | None, palette: list[str]) -> SceneLook:
    """The scene: from the scene reference if there is one, else from the prompt's words; the palette recolours it."""
    if scene is not None:
        text = " ".join(str(scene.inputs.get(k, "")) for k in ("setting", "name", "description"))
        key = _digest(scene.sha256 or "", _canonical(scene.inputs))
        named = _colours(scene.inputs)
    else:
        text, key, named = prompt, _digest(prompt.lower()), []
    setting = _setting_of(text) or SETTINGS[key[0] % len(SETTINGS)]
    colours = list(_SETTING_COLOURS[setting])
    for i, colour in enumerate((palette or named)[:4]):
        colours[i] = colour
    return SceneLook(
        setting=setting,
        sky_top=colours[0],
        sky_bottom=colours[1],
        ground=colours[2],
        feature=colours[3],
        horizon=0.55 + (key[1] % 16) / 100,
    )


class Grade(BaseModel):
    """How one lighting preset moves pixels: per-channel gain and offset, then saturation and contrast.

    Every preset is a few numbers, so what it does to an image is predictable
    and measurable (mean luma, warmth, saturation, contrast) and the evaluator
    can check it.
    """

    gain: tuple[float, float, float] = (1.0, 1.0, 1.0)
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    saturation: float = 1.0
    contrast: float = 1.0


LIGHTING_GRADES: dict[Lighting, Grade] = {
    Lighting.NEUTRAL: Grade(),
    Lighting.WARM: Grade(gain=(1.08, 1.0, 0.75), offset=(20, 4, 0)),
    Lighting.COLD: Grade(gain=(0.75, 0.95, 1.08), offset=(0, 4, 22)),
    Lighting.NIGHT: Grade(gain=(0.22, 0.26, 0.36), offset=(0, 0, 10)),
    Lighting.HIGH_KEY: Grade(gain=(0.45, 0.45, 0.45), offset=(140.25, 140.25, 140.25)),
    Lighting.DAWN: Grade(gain=(0.92, 0.72, 0.7), offset=(36, 10, 4), saturation=0.75),
    Lighting.NOON: Grade(gain=(1.08, 1.08, 1.06), offset=(14, 14, 12), contrast=1.15),
    Lighting.GOLDEN_HOUR: Grade(gain=(1.1, 0.95, 0.55), offset=(30, 14, 0), saturation=1.1),
    Lighting.SUNSET: Grade(gain=(1.0, 0.62, 0.5), offset=(30, 0, 12)),
    Lighting.DUSK: Grade(gain=(0.5, 0.45, 0.7), offset=(14, 6, 28)),
    Lighting.MOONLIT: Grade(gain=(0.28, 0.36, 0.55), offset=(0, 6, 28)),
    Lighting.OVERCAST: Grade(gain=(0.85, 0.87, 0.9), offset=(10, 10, 12), saturation=0.35, contrast=0.8),
    Lighting.FOGGY: Grade(gain=(0.4, 0.4, 0.4), offset=(135, 138, 142), saturation=0.5),
    Lighting.NEON: Grade(gain=(0.9, 0.35, 1.0), offset=(25, 0, 45), saturation=1.6, contrast=1.2),
    Lighting.CANDLE_LIT: Grade(gain=(0.62, 0.42, 0.2), offset=(14, 4, 0)),
    Lighting.LOW_KEY: Grade(gain=(0.6, 0.6, 0.6), contrast=1.5),
}
"""The render parameters of every lighting preset (the request grammar's mood words map onto these)."""

FRAMING_HEIGHT: dict[Framing, float] = {Framing.WIDE: 0.22, Framing.MEDIUM: 0.45, Framing.CLOSE_UP: 0.8}
"""A character's height as a share of the picture, per framing."""
GROUND_SHARE = 0.88
"""Where the characters stand, as a share of the picture's height above the caption: below it is only scene."""
BODY_SHARE: dict[str, float] = {"tall": 0.85}
"""A body's height as a share of the character's height, by shape (:data:`DEFAULT_BODY_SHARE` otherwise)."""
DEFAULT_BODY_SHARE = 0.7
HEAD_RADIUS = 0.15
"""A head's radius as a share of the character's height; its centre sits 0.8 radius above the body."""

CAPTION_SHARE = 1 / 24
"""The share of the picture's height the caption strip takes (at least 12 px)."""
RAIN_COLOUR = "#b4c3d2"
SNOW_COLOUR = "#fcfcfc"


def grade(rgb: np.ndarray, lighting: Lighting, exposure: float = 0.0, temperature: float = 0.0) -> np.ndarray:
    """Grade an RGB uint8 image with a lighting preset, then ``exposure`` (stops) and ``temperature`` (warmer +)."""
    preset = LIGHTING_GRADES[Lighting(lighting)]
    if preset == Grade() and not exposure and not temperature:
        return rgb
    x = rgb.astype(np.float32)
    out = x * np.array(preset.gain, np.float32) + np.array(preset.offset, np.float32)
    if preset.saturation != 1.0:
        luma = (out @ np.array([0.299, 0.587, 0.114], np.float32))[..., None]
        out = luma + (out - luma) * preset.saturation
    if preset.contrast != 1.0:
        out = 128.0 + (out - 128.0) * preset.contrast
    if exposure:
        out = out * float(2.0 ** exposure)
    if temperature:
        out = out + np.array([24.0, 0.0, -24.0], np.float32) * temperature
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def art_height(height: int) -> int:
    """The rows of a picture of ``height`` rows above its caption strip."""
    return height - max(12, int(height * CAPTION_SHARE))


def ground_row(art_h: int) -> int:
    """The row the characters stand on, in a picture whose art is ``art_h`` rows high."""
    return int(art_h * GROUND_SHARE)


def figure_height_share(framing: Framing, shape: Shape) -> float:
    """A drawn character's height from the top of its head to its feet, as a share of the art's height.

    Larger than the framing's :data:`FRAMING_HEIGHT` (the head sits on top of the body), and never more than
    :data:`GROUND_SHARE`: the frame cuts a close-up's head off at the top.
    """
    height = FRAMING_HEIGHT[Framing(framing)]
    return min(GROUND_SHARE, height * (BODY_SHARE.get(shape, DEFAULT_BODY_SHARE) + 1.8 * HEAD_RADIUS))


class Plates(BaseModel):
    """A picture's scene as the renderer drew it under its characters, before the grade (RGB arrays of the art)."""

    model_config = {"arbitrary_types_allowed": True}

    bare: np.ndarray
    """The scene and its props, without weather."""
    weathered: np.ndarray
    """The same with the request's weather drawn over it (the same array content when the weather is clear)."""


def render_plates(request: ImageRequest) -> Plates:
    """The scene of ``request`` without its characters and without its grade: what every character stands on.

    Drawn with the same random streams as :func:`render_image`, so wherever no character was drawn the graded
    plate is pixel for pixel the picture: the evaluator finds the characters, and reads the grade, against it.
    """
    w, art_h = request.width, art_height(request.height)
    canvas = _scene_canvas(request, w, art_h, random.Random(_seed_of(request.seed, request.prompt)))
    bare = np.array(canvas)
    _draw_weather(ImageDraw.Draw(canvas), request.weather, w, art_h, request.seed)
    return Plates(bare=bare, weathered=np.array(canvas))


def _scene_canvas(request: ImageRequest, w: int, art_h: int, rng: random.Random) -> Image.Image:
    """The scene (or the image being edited) with its props: everything drawn before the characters."""
    if request.mode is ImageMode.EDIT:
        canvas = cover(load_still(request.source, "the image to edit"), w, art_h)
    else:
        style = [c for ref in request.references_with_role(ReferenceRole.STYLE) for c in _colours(ref.inputs)]
        scenes = request.references_with_role(ReferenceRole.SCENE)
        look = scene_look(request.prompt, scenes[0] if scenes else None, list(request.palette) or style)
        canvas = _draw_scene(look, w, art_h, rng)
    _draw_props(ImageDraw.Draw(canvas), request.references_with_role(ReferenceRole.PROP), w, ground_row(art_h), rng)
    return canvas


def render_image(request: ImageRequest) -> Image.Image:
    """Draw the request as an RGB Pillow image, caption strip included."""
    w, h = request.width, request.height
    art_h = art_height(h)
    rng = random.Random(_seed_of(request.seed, request.prompt))
    canvas = _scene_canvas(request, w, art_h, rng)
    draw = ImageDraw.Draw(canvas)
    _draw_characters(draw, request.references_with_role(ReferenceRole.CHARACTER), w, art_h, ground_row(art_h), rng,
                     height_share=FRAMING_HEIGHT[request.framing], outfit=request.outfit)
    _draw_weather(draw, request.weather, w, art_h, request.seed)
    graded = Image.fromarray(grade(np.asarray(canvas), request.lighting, request.exposure, request.temperature))
    image = Image.new("RGB", (w, h), _CAPTION_BG)
    image.paste(graded, (0, 0))
    _draw_caption(ImageDraw.Draw(image), request.prompt, w, art_h, h - art_h)
    return image


def png_bytes(image: Image.Image) -> bytes:
    """Encode an image as PNG with fixed settings and no metadata, so equal pixels give equal bytes."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=6)
    return buf.getvalue()


class OfflineImageProvider(ImageProvider):
    """Deterministic PNGs drawn with Pillow; no network.  ``latency_s`` simulates a slow provider."""

    name = "offline"
    model = "offline-image-v1"

    def __init__(self, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s

    def generate(self, request: ImageRequest) -> GeneratedMedia:
        """Render the request (text, reference-guided or edit) into PNG bytes."""
        if self.latency_s:
            time.sleep(self.latency_s)
        data = png_bytes(render_image(request))
        return GeneratedMedia(
            data=data,
            mime="image/png",
            provider=self.name,
            model=self.model,
            width=request.width,
            height=request.height,
            details={"mode": request.mode.value},
        )


def _draw_scene(look: SceneLook, w: int, h: int, rng: random.Random) -> Image.Image:
    horizon = int(h * look.horizon)
    top, bottom = np.array(_rgb(look.sky_top), np.float32), np.array(_rgb(look.sky_bottom), np.float32)
    t = np.linspace(0.0, 1.0, horizon, dtype=np.float32)[:, None]
    sky = np.rint(top * (1 - t) + bottom * t).astype(np.uint8)
    pixels = np.empty((h, w, 3), np.uint8)
    pixels[:horizon] = sky[:, None, :]
    pixels[horizon:] = _rgb(look.ground)
    canvas = Image.fromarray(pixels)
    draw = ImageDraw.Draw(canvas)
    sun_x = rng.uniform(0.1, 0.9) * w
    sun_r = max(4, h // 14)
    draw.ellipse([sun_x - sun_r, h * 0.12 - sun_r, sun_x + sun_r, h * 0.12 + sun_r], fill="#fff2cc")
    for _ in range(rng.randint(3, 6)):
        x = rng.uniform(0, w)
        size = rng.uniform(0.08, 0.2) * h
        if look.setting == "city":
            draw.rectangle([x - size / 3, horizon - size * 1.6, x + size / 3, horizon], fill=look.feature)
        elif look.setting == "forest":
            draw.polygon(
                [(x, horizon - size * 1.4), (x - size / 2, horizon), (x + size / 2, horizon)], fill=look.feature
            )
        elif look.setting == "sea":
            y = rng.uniform(horizon, h)
            draw.line([(x - size, y), (x + size, y)], fill=look.feature, width=max(1, h // 120))
        elif look.setting == "room":
            draw.rectangle([x - size / 2, h * 0.2, x + size / 2, h * 0.2 + size], fill=look.feature)
        else:
            draw.ellipse([x - size * 1.5, horizon - size / 2, x + size * 1.5, horizon + size / 2], fill=look.feature)
    return canvas


def _draw_characters(
    draw: ImageDraw.ImageDraw, refs: list[ReferenceInput], w: int, art_h: int, ground_y: int, rng: random.Random,
    *, height_share: float = 0.45, outfit: str | None = None,
) -> None:
    if not refs:
        return
    slot = w / len(refs)
    height = art_h * height_share
    for i, ref in enumerate(refs):
        look = character_look(ref)
        if outfit:
            look = look.model_copy(update={"body": outfit})
        cx = slot * (i + 0.5) + rng.uniform(-0.15, 0.15) * slot
        _draw_figure(draw, look, cx, ground_y, height)


def _draw_figure(draw: ImageDraw.ImageDraw, look: CharacterLook, cx: float, ground: float, height: float) -> None:
    half = height * (0.16 if look.shape == "tall" else 0.26)
    body_top = ground - height * BODY_SHARE.get(look.shape, DEFAULT_BODY_SHARE)
    box = [cx - half, body_top, cx + half, ground]
    if look.shape == "round":
        draw.ellipse(box, fill=look.body)
    elif look.shape == "triangle":
        draw.polygon([(cx, body_top), (cx - half, ground), (cx + half, ground)], fill=look.body)
    else:
        draw.rectangle(box, fill=look.body)
    r = height * HEAD_RADIUS
    head_y = body_top - r * 0.8
    draw.ellipse([cx - r, head_y - r, cx + r, head_y + r], fill=look.head)
    eye = max(1.0, r * 0.15)
    for dx in (-r * 0.4, r * 0.4):
        draw.ellipse([cx + dx - eye, head_y - eye, cx + dx + eye, head_y + eye], fill=_EYE)


def _draw_weather(draw: ImageDraw.ImageDraw, weather: Weather, w: int, h: int, seed: int) -> None:
    """Rain as slanted streaks, snow as flakes; their own random stream, so the scene underneath stays put."""
    if weather is Weather.CLEAR:
        return
    rng = random.Random(_seed_of(seed, weather.value))
    if weather is Weather.RAIN:
        length = h * 0.06
        for _ in range(w * h // 300):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            draw.line([(x, y), (x - length * 0.3, y + length)], fill=RAIN_COLOUR, width=max(1, w // 256))
    else:
        r = max(1.5, w / 160)
        for _ in range(w * h // 250):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            draw.ellipse([x - r, y - r, x + r, y + r], fill=SNOW_COLOUR)


def _draw_props(
    draw: ImageDraw.ImageDraw, refs: list[ReferenceInput], w: int, ground_y: int, rng: random.Random
) -> None:
    for ref in refs:
        key = _digest(ref.sha256 or "", _canonical(ref.inputs))
        named = _colours(ref.inputs)
        colour = named[0] if named else _derived_colour(key[:3])
        size = ground_y * 0.06
        x = rng.uniform(0.05, 0.95) * w
        draw.polygon(
            [(x, ground_y - 2 * size), (x + size, ground_y - size), (x, ground_y), (x - size, ground_y - size)],
            fill=colour,
        )


def _draw_caption(draw: ImageDraw.ImageDraw, text: str, w: int, top: int, height: int) -> None:
    font = _caption_font(max(8, int(height * 0.7)))
    line = " ".join(text.split())
    if draw.textlength(line, font=font) > w - 8:
        # The longest prefix that fits with an ellipsis: a prefix's width never shrinks as it grows, so a binary
        # search finds the one a character-by-character trim would (in a dozen measurements, not hundreds).
        fits, over = 0, len(line)
        while over - fits > 1:
            middle = (fits + over) // 2
            if draw.textlength(line[:middle] + "…", font=font) <= w - 8:
                fits = middle
            else:
                over = middle
        line = line[:fits] + "…"
    draw.text((4, top + height * 0.1), line, fill=_CAPTION_FG, font=font)


@functools.lru_cache(maxsize=16)
def _caption_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _setting_of(text: str) -> Setting | None:
    words = set("".join(c if c.isalnum() else " " for c in text.lower()).split())
    for setting, vocabulary in _SETTING_WORDS.items():
        if words & set(vocabulary):
            return setting
    return None


def _colours(inputs: dict[str, Any]) -> list[str]:
    raw = inputs.get("colors", inputs.get("colours", []))
    if isinstance(raw, str):
        raw = [raw]
    valid = []
    for c in raw if isinstance(raw, list) else []:
        if isinstance(c, str) and len(c) == 7 and c.startswith("#"):
            try:
                int(c[1:], 16)
            except ValueError:
                continue
            valid.append(c.lower())
    return valid


def _derived_colour(key: bytes, value: float = 0.75) -> str:
    hue = key[0] / 255
    sat = 0.5 + (key[1] % 64) / 160
    val = value - (key[2] % 32) / 200
    r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def _seed_of(seed: int, prompt: str) -> int:
    return int.from_bytes(_digest(str(seed), prompt)[:8], "big")
