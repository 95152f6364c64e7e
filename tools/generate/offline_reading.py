"""Reading an offline-rendered picture against its own scene: which grade it shows, where its characters are.

The offline renderer (:mod:`tools.generate.offline_image`) draws a scene and its props, then the characters, then
the weather, and finally grades every pixel (lighting preset, exposure, temperature).  A grade is a per-pixel
colour map, and it compresses: sunset's green gain of 0.62 turns the 13 levels between a light-blue head and the
sky behind it into 8, so after it a band of sky *is* the head's colour and counting that colour measures the sky.
No grade can make a pixel differ from the same scene drawn without the character, though.  So a picture is read
against its *plates* (:func:`~tools.generate.offline_image.render_plates`: the same scene, without characters,
before the grade), each graded as a hypothesis:

* **lighting**: which grades of the plates explain the rows below the characters' feet, where the renderer draws
  nothing but scene and weather.  A picture drawn under another grade (or none) is explained by that one instead,
  so the reading names what the picture shows, whatever the premise: a warm room and a neutral room differ, even
  though both measure warm.
* **characters**: the pixels that differ from both graded plates (with and without the weather: a streak drawn over
  a character is scene, a streak the picture lacks is not a character).  Their height from the top of the highest
  head to the ground line is the framing; the characters' colours counted in their region are their identity.
* **weather**: the pixels of the weather's graded colour that the bare graded plate does not have.

The images are deterministic, so a correct picture matches its plate exactly; :data:`SAME_WITHIN` absorbs a
last-bit difference of float arithmetic between machines.  The reading holds for pictures of this renderer only:
for any other provider a plate says nothing, and the evaluator does not read one.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, Field

from tools.generate.base import Framing, ImageRequest, Lighting
from tools.generate.offline_image import (
    RAIN_COLOUR,
    SHAPES,
    SNOW_COLOUR,
    art_height,
    figure_height_share,
    grade,
    ground_row,
    render_plates,
)

SAME_WITHIN = 1
"""Per-channel levels within which two pixels are the same (a rounding flip of the grade's float arithmetic)."""
EXPLAINED_AT_LEAST = 0.98
"""Share of the scene below the characters a grade must reproduce for the picture to show that grade."""
_FEET_MARGIN = 2
"""Rows below the ground line left out of the scene band (a figure drawn to the ground line may touch them)."""


class PictureReading(BaseModel):
    """What an offline-rendered picture shows, read against its own scene."""

    lighting: str = Field(description="The lighting preset asked for (the request's).")
    explained: float = Field(description="Share of the scene band the asked grade reproduces.")
    lighting_matches: bool = Field(description="Whether the asked grade explains the scene band.")
    shows: list[str] = Field(default_factory=list,
                             description="The presets whose grade (with the asked exposure and temperature) explain "
                                         "the scene band; the asked one alone when it does.")
    figure_pixels: int = Field(default=0, description="Pixels no graded plate explains: the characters as drawn.")
    figure_share: float | None = Field(
        default=None, description="Height of the drawn characters (top of the highest head to the ground line) as a "
                                  "share of the art; None when no grade explains the scene, so nothing can be located.")
    figure_box: tuple[int, int, int, int] | None = Field(default=None, description="(top, left, bottom, right) rows "
                                                                                   "and columns of the characters.")
    colour_shares: dict[str, float] = Field(
        default_factory=dict, description="#rrggbb → pixels of its graded colour inside the characters' box, as a "
                                          "share of the characters' pixels.")
    weather_share: float = Field(default=0.0, description="Share of the art covered by the weather's graded colour "
                                                          "where the scene has none.")
    look: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="brightness (mean luma) and warmth (red minus blue) of the scene band: "
                                          "(the picture's, what the asked grade gives).")

    @property
    def located(self) -> bool:
        """Whether the characters could be looked for (some grade explains the scene around them)."""
        return self.figure_share is not None


def framing_ranges() -> dict[str, tuple[float | None, float | None]]:
    """The drawn characters' height share each framing covers: [low, high), ``None`` for open ends.

    Each boundary is the geometric mean between the tallest figure of the smaller framing and the shortest figure
    of the larger one (over every body shape), so either side has the same relative margin.
    """
    order = [Framing.WIDE, Framing.MEDIUM, Framing.CLOSE_UP]
    heights = {f: [figure_height_share(f, shape) for shape in SHAPES] for f in order}
    bounds = [math.sqrt(max(heights[small]) * min(heights[large])) for small, large in zip(order, order[1:])]
    edges: list[float | None] = [None, *bounds, None]
    return {f.value: (edges[i], edges[i + 1]) for i, f in enumerate(order)}


def same_pixels(a: np.ndarray, b: np.ndarray, tolerance: int = SAME_WITHIN) -> np.ndarray:
    """A boolean mask of the pixels of two RGB arrays that are within ``tolerance`` on every channel."""
    return np.all(np.abs(a.astype(np.int16) - b.astype(np.int16)) <= tolerance, axis=-1)


def hex_rgb(colour: str) -> np.ndarray:
    """``#rrggbb`` as a 1×1 RGB uint8 array (a pixel the grade can be applied to)."""
    return np.array([[[int(colour[i:i + 2], 16) for i in (1, 3, 5)]]], dtype=np.uint8)


def read_picture(rgb: np.ndarray, request: ImageRequest, colours: list[str] = ()) -> PictureReading:
    """Read ``rgb`` (the whole picture, caption included) as the offline renderer's drawing of ``request``.

    ``colours`` are the characters' colours (``#rrggbb``, as drawn before the grade) to count in their region.
    """
    art_h = art_height(request.height)
    art = rgb[:art_h]
    plates = render_plates(request)
    band = slice(min(art_h - 1, ground_row(art_h) + _FEET_MARGIN), art_h)
    asked = request.lighting.value

    def explained(lighting: str) -> float:
        graded = [_grade(p[band], lighting, request) for p in (plates.weathered, plates.bare)]
        return float((same_pixels(art[band], graded[0]) | same_pixels(art[band], graded[1])).mean())

    share = explained(asked)
    matches = share >= EXPLAINED_AT_LEAST
    expected = _grade(plates.weathered[band], asked, request)
    shows = [asked] if matches else [p.value for p in Lighting if p.value != asked
                                     and explained(p.value) >= EXPLAINED_AT_LEAST]
    reading = PictureReading(lighting=asked, explained=round(share, 4), lighting_matches=matches, shows=shows,
                             look={"brightness": (_luma(art[band]), _luma(expected)),
                                   "warmth": (_warmth(art[band]), _warmth(expected))})
    seen = shows[0] if shows else asked  # the grade the picture shows, to read the rest under
    weathered, bare = (_grade(p, seen, request) for p in (plates.weathered, plates.bare))
    if request.weather.value != "clear":
        drawn = _grade(hex_rgb(RAIN_COLOUR if request.weather.value == "rain" else SNOW_COLOUR), seen, request)
        added = same_pixels(art, drawn) & ~same_pixels(bare, drawn)
        reading.weather_share = round(float(added.mean()), 5)
    if not shows:
        return reading
    figure = ~same_pixels(art, weathered) & ~same_pixels(art, bare)
    figure[ground_row(art_h) + _FEET_MARGIN:] = False
    rows, columns = np.nonzero(figure)
    reading.figure_pixels = int(rows.size)
    if not rows.size:
        reading.figure_share = 0.0
        return reading
    top, left, right = int(rows.min()), int(columns.min()), int(columns.max())
    bottom = ground_row(art_h)
    reading.figure_share = round((bottom - top + 1) / art_h, 4)
    reading.figure_box = (top, left, bottom, right)
    region = art[top:bottom + 1, left:right + 1]
    for colour in dict.fromkeys(c.lower() for c in colours):
        drawn = _grade(hex_rgb(colour), seen, request)
        reading.colour_shares[colour] = round(float(same_pixels(region, drawn).sum()) / rows.size, 4)
    return reading


def _luma(pixels: np.ndarray) -> float:
    return round(float((pixels.astype(np.float64) @ np.array([0.299, 0.587, 0.114])).mean()), 1)


def _warmth(pixels: np.ndarray) -> float:
    return round(float(pixels[..., 0].astype(np.float64).mean() - pixels[..., 2].astype(np.float64).mean()), 1)


def _grade(pixels: np.ndarray, lighting: str, request: ImageRequest) -> np.ndarray:
    return grade(pixels, Lighting(lighting), request.exposure, request.temperature)
