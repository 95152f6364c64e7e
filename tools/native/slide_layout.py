"""Where each part of a slide goes, in pixels of a 1280x720 slide.

One layout feeds both the .pptx writer and the PNG preview, so they agree.  A
16:9 PowerPoint slide is 12192000 x 6858000 EMU, which is exactly 1280 x 720
pixels at 96 dpi (9525 EMU a pixel), so the writer only multiplies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tools.native.slide_spec import DiagramSpec, SlideSpec

SLIDE_WIDTH = 1280
"""Slide width in layout pixels (and preview pixels)."""
SLIDE_HEIGHT = 720
"""Slide height in layout pixels (and preview pixels)."""
EMU_PER_PIXEL = 9525
"""English Metric Units in one layout pixel (96 dpi)."""

TITLE_PT = 32
"""Title font size in points (x 4/3 for preview pixels)."""
BULLET_PT = 20
"""Bullet font size in points."""
BOX_PT = 14
"""Diagram box label font size in points."""

_MARGIN = 64
_GAP = 24
_BODY_TOP = 160
_BODY_BOTTOM = 680


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in layout pixels."""

    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[float, float]:
        """The middle of the rectangle."""
        return (self.x + self.w / 2, self.y + self.h / 2)

    def fit(self, width: int, height: int) -> Rect:
        """The largest rectangle of the given aspect ratio centred inside this one."""
        scale = min(self.w / width, self.h / height)
        w, h = width * scale, height * scale
        return Rect(self.x + (self.w - w) / 2, self.y + (self.h - h) / 2, w, h)


@dataclass(frozen=True)
class Arrow:
    """A straight arrow from ``start`` to ``end`` (the head is at ``end``)."""

    start: tuple[float, float]
    end: tuple[float, float]


@dataclass(frozen=True)
class SlideLayout:
    """Every placed part of one slide."""

    title: Rect
    bullets: Rect | None
    images: list[Rect] = field(default_factory=list)
    boxes: dict[str, Rect] = field(default_factory=dict)
    arrows: list[Arrow] = field(default_factory=list)


def pt_to_px(points: float) -> float:
    """Points to layout pixels (96 dpi)."""
    return points * 96 / 72


def layout_slide(slide: SlideSpec, image_sizes: list[tuple[int, int]]) -> SlideLayout:
    """Place a slide's parts: title on top, bullets left of the visuals (images, diagram), each fitted."""
    title = Rect(_MARGIN, 40, SLIDE_WIDTH - 2 * _MARGIN, 100)
    body = Rect(_MARGIN, _BODY_TOP, SLIDE_WIDTH - 2 * _MARGIN, _BODY_BOTTOM - _BODY_TOP)
    has_visuals = bool(image_sizes) or slide.diagram is not None
    bullets: Rect | None = None
    visuals = body
    if slide.bullets and has_visuals:
        left_w = (body.w - _GAP) * 0.45
        bullets = Rect(body.x, body.y, left_w, body.h)
        visuals = Rect(body.x + left_w + _GAP, body.y, body.w - left_w - _GAP, body.h)
    elif slide.bullets:
        bullets = body
    diagram_area, image_area = visuals, visuals
    if image_sizes and slide.diagram is not None:
        top_h = (visuals.h - _GAP) * 0.55
        diagram_area = Rect(visuals.x, visuals.y, visuals.w, top_h)
        image_area = Rect(visuals.x, visuals.y + top_h + _GAP, visuals.w, visuals.h - top_h - _GAP)
    images = _images_in_row(image_area, image_sizes) if image_sizes else []
    boxes, arrows = _diagram(diagram_area, slide.diagram) if slide.diagram else ({}, [])
    return SlideLayout(title=title, bullets=bullets, images=images, boxes=boxes, arrows=arrows)


def _images_in_row(area: Rect, sizes: list[tuple[int, int]]) -> list[Rect]:
    cell_w = (area.w - _GAP * (len(sizes) - 1)) / len(sizes)
    return [
        Rect(area.x + i * (cell_w + _GAP), area.y, cell_w, area.h).fit(max(w, 1), max(h, 1))
        for i, (w, h) in enumerate(sizes)
    ]


def _diagram(area: Rect, diagram: DiagramSpec) -> tuple[dict[str, Rect], list[Arrow]]:
    count = len(diagram.boxes)
    cols = min(count, max(1, round(area.w / 190)))
    rows = math.ceil(count / cols)
    cell_w, cell_h = area.w / cols, area.h / rows
    box_w, box_h = min(cell_w * 0.72, 240), min(cell_h * 0.6, 100)
    boxes: dict[str, Rect] = {}
    for i, box in enumerate(diagram.boxes):
        row, col = divmod(i, cols)
        cx, cy = area.x + (col + 0.5) * cell_w, area.y + (row + 0.5) * cell_h
        boxes[box.id] = Rect(cx - box_w / 2, cy - box_h / 2, box_w, box_h)
    arrows = [_arrow_between(boxes[a.source], boxes[a.target]) for a in diagram.arrows if a.source != a.target]
    return boxes, arrows


def _arrow_between(source: Rect, target: Rect) -> Arrow:
    (sx, sy), (tx, ty) = source.center, target.center
    return Arrow(start=_edge_point(source, tx - sx, ty - sy), end=_edge_point(target, sx - tx, sy - ty))


def _edge_point(rect: Rect, dx: float, dy: float, gap: float = 4.0) -> tuple[float, float]:
    # Where a ray from the rectangle's centre towards (dx, dy) leaves it, a little outside.
    cx, cy = rect.center
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    reach = min(
        (rect.w / 2) / abs(ux) if ux else math.inf,
        (rect.h / 2) / abs(uy) if uy else math.inf,
    )
    return (cx + ux * (reach + gap), cy + uy * (reach + gap))
