"""A 1280x720 PNG preview of one slide, drawn with Pillow from the slide spec.

This is our own drawing of the spec through the shared layout, not a render of
the .pptx: no office suite (LibreOffice) is available to rasterise PowerPoint
files here.  It shows the title, the bullets (wrapped and clipped to their
box), the images scaled into place and the diagram's boxes and arrows, so a
person and the model can judge a slide at a glance; fonts and wrapping may
differ a little from what PowerPoint shows.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from tools.native.slide_layout import (
    BOX_PT,
    BULLET_PT,
    SLIDE_HEIGHT,
    SLIDE_WIDTH,
    TITLE_PT,
    Arrow,
    Rect,
    SlideLayout,
    pt_to_px,
)
from tools.native.slide_spec import SlideSpec, SlideTheme

DEFAULT_THEME = SlideTheme()
"""The light theme a deck without one is drawn in."""

_REGULAR_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)
_BOLD_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
)

_Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def render_preview(slide: SlideSpec, layout: SlideLayout, images: list[Path], theme: SlideTheme | None = None) -> bytes:
    """The PNG bytes of a slide preview; ``images`` are local files in the order of ``layout.images``."""
    colours = _Colours(theme or DEFAULT_THEME)
    canvas = Image.new("RGB", (SLIDE_WIDTH, SLIDE_HEIGHT), colours.background)
    draw = ImageDraw.Draw(canvas)
    _draw_title(draw, slide.title, layout.title, colours)
    if layout.bullets is not None:
        _draw_bullets(draw, slide.bullets, layout.bullets, colours)
    for path, rect in zip(images, layout.images, strict=True):
        _paste_image(canvas, path, rect)
    if slide.diagram is not None:
        for arrow in layout.arrows:
            _draw_arrow(draw, arrow, colours)
        labels = {b.id: b.label for b in slide.diagram.boxes}
        for box_id, rect in layout.boxes.items():
            _draw_box(draw, labels[box_id], rect, colours)
    out = io.BytesIO()
    canvas.save(out, format="PNG")
    return out.getvalue()


class _Colours:
    """A theme's colours as RGB tuples, read once per preview."""

    def __init__(self, theme: SlideTheme) -> None:
        self.background, self.text = theme.rgb("background"), theme.rgb("text")
        self.accent, self.box_fill = theme.rgb("accent"), theme.rgb("box_fill")


@lru_cache(maxsize=16)
def _font(points: int, bold: bool = False) -> _Font:
    size = round(pt_to_px(points))
    for candidate in _BOLD_FONTS if bold else _REGULAR_FONTS:
        if Path(candidate).exists():
            return ImageFont.truetype(candidate, size)
    return ImageFont.load_default(size)


def _wrap(text: str, font: _Font, width: float) -> list[str]:
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}".strip()
            if line and font.getlength(trial) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return lines


def _line_height(font: _Font) -> float:
    top, bottom = font.getbbox("Hg")[1::2]
    return (bottom - top) * 1.35


def _draw_title(draw: ImageDraw.ImageDraw, title: str, rect: Rect, colours: _Colours) -> None:
    font = _font(TITLE_PT, bold=True)
    lines = _wrap(title, font, rect.w)[:2]
    step = _line_height(font)
    y = rect.y + (rect.h - step * len(lines)) / 2
    for line in lines:
        draw.text((rect.x, y), line, font=font, fill=colours.text)
        y += step
    draw.line([(rect.x, rect.y + rect.h + 6), (rect.x + rect.w, rect.y + rect.h + 6)], fill=colours.accent, width=3)


def _draw_bullets(draw: ImageDraw.ImageDraw, bullets: list[str], rect: Rect, colours: _Colours) -> None:
    font = _font(BULLET_PT)
    step = _line_height(font)
    indent = step * 0.9
    y = rect.y
    for bullet in bullets:
        lines = _wrap(bullet, font, rect.w - indent)
        if y + step > rect.y + rect.h:
            break
        dot = step * 0.14
        cy = y + step * 0.42
        draw.ellipse([rect.x + dot, cy - dot, rect.x + 3 * dot, cy + dot], fill=colours.accent)
        for line in lines:
            if y + step > rect.y + rect.h:
                break
            draw.text((rect.x + indent, y), line, font=font, fill=colours.text)
            y += step
        y += step * 0.3


def _paste_image(canvas: Image.Image, path: Path, rect: Rect) -> None:
    with Image.open(path) as source:
        picture = source.convert("RGBA")
    size = (max(1, round(rect.w)), max(1, round(rect.h)))
    picture = picture.resize(size, Image.Resampling.LANCZOS)
    canvas.paste(picture, (round(rect.x), round(rect.y)), picture)


def _draw_box(draw: ImageDraw.ImageDraw, label: str, rect: Rect, colours: _Colours) -> None:
    draw.rounded_rectangle(
        [rect.x, rect.y, rect.x + rect.w, rect.y + rect.h], radius=12, fill=colours.box_fill, outline=colours.accent,
        width=2)
    font = _font(BOX_PT)
    lines = _wrap(label, font, rect.w - 16)
    step = _line_height(font)
    y = rect.y + (rect.h - step * len(lines)) / 2
    for line in lines:
        x = rect.x + (rect.w - font.getlength(line)) / 2
        draw.text((x, y), line, font=font, fill=colours.text)
        y += step


def _draw_arrow(draw: ImageDraw.ImageDraw, arrow: Arrow, colours: _Colours, head: float = 14.0) -> None:
    (x1, y1), (x2, y2) = arrow.start, arrow.end
    angle = math.atan2(y2 - y1, x2 - x1)
    base = (x2 - head * math.cos(angle), y2 - head * math.sin(angle))
    draw.line([(x1, y1), base], fill=colours.accent, width=3)
    spread = head * 0.55
    left = (base[0] + spread * math.sin(angle), base[1] - spread * math.cos(angle))
    right = (base[0] - spread * math.sin(angle), base[1] + spread * math.cos(angle))
    draw.polygon([(x2, y2), left, right], fill=colours.accent)
