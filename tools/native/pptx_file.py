"""The .pptx half of :func:`tools.native.slides.build_deck`: python-pptx shapes for a laid-out slide.

Its own module so that python-pptx and lxml (a tenth of a command's import time) load only when a deck is
built, not with every command that builds the tool catalog.
"""

from __future__ import annotations

import io
from pathlib import Path

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.enum.text import PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt

from tools.native.slide_layout import (
    BOX_PT,
    BULLET_PT,
    EMU_PER_PIXEL,
    SLIDE_HEIGHT,
    SLIDE_WIDTH,
    TITLE_PT,
    Rect,
    SlideLayout,
)
from tools.native.slide_spec import SlideSpec, SlideTheme

_TITLE_AND_CONTENT = 1  # index of the "Title and Content" layout in python-pptx's default template


class PptxWriter:
    """One deck being written: slides added in order, then its bytes."""

    def __init__(self, title: str) -> None:
        self.deck = Presentation()
        self.deck.slide_width = Emu(SLIDE_WIDTH * EMU_PER_PIXEL)
        self.deck.slide_height = Emu(SLIDE_HEIGHT * EMU_PER_PIXEL)
        self.deck.core_properties.title = title

    def add_slide(self, spec: SlideSpec, layout: SlideLayout, images: list[Path], theme: SlideTheme) -> None:
        """The next slide: its title, bullets, images, diagram and notes, placed as ``layout`` says."""
        _add_slide(self.deck, spec, layout, images, theme)

    def to_bytes(self) -> bytes:
        """The .pptx file as python-pptx writes it."""
        out = io.BytesIO()
        self.deck.save(out)
        return out.getvalue()


def _emu(value: float) -> Emu:
    return Emu(round(value * EMU_PER_PIXEL))


def _place(shape, rect: Rect) -> None:
    shape.left, shape.top, shape.width, shape.height = _emu(rect.x), _emu(rect.y), _emu(rect.w), _emu(rect.h)


def _add_slide(deck, spec: SlideSpec, layout: SlideLayout, images: list[Path], theme: SlideTheme) -> None:
    slide = deck.slides.add_slide(deck.slide_layouts[_TITLE_AND_CONTENT])
    slide.background.fill.solid()
    slide.background.fill.fore_color.rgb = RGBColor(*theme.rgb("background"))
    title = slide.shapes.title
    _place(title, layout.title)
    title.text_frame.text = spec.title
    title.text_frame.paragraphs[0].alignment = PP_ALIGN.LEFT
    _style_runs(title.text_frame, TITLE_PT, theme, bold=True)
    body = slide.placeholders[1]
    if layout.bullets is None:
        body.element.getparent().remove(body.element)  # an empty placeholder would show "Click to add text"
    else:
        _place(body, layout.bullets)
        frame = body.text_frame
        frame.text = spec.bullets[0]
        for bullet in spec.bullets[1:]:
            frame.add_paragraph().text = bullet
        _style_runs(frame, BULLET_PT, theme)
    for path, rect in zip(images, layout.images, strict=True):
        slide.shapes.add_picture(str(path), _emu(rect.x), _emu(rect.y), _emu(rect.w), _emu(rect.h))
    if spec.diagram is not None:
        _add_diagram(slide, spec, layout, theme)
    if spec.notes:
        slide.notes_slide.notes_text_frame.text = spec.notes


def _style_runs(frame, points: int, theme: SlideTheme, bold: bool = False) -> None:
    for paragraph in frame.paragraphs:
        for run in paragraph.runs:
            run.font.size = Pt(points)
            run.font.bold = bold
            run.font.color.rgb = RGBColor(*theme.rgb("text"))


def _add_diagram(slide, spec: SlideSpec, layout: SlideLayout, theme: SlideTheme) -> None:
    assert spec.diagram is not None
    # Arrows first so the boxes sit on top of their ends, as in the preview.
    for arrow in layout.arrows:
        (x1, y1), (x2, y2) = arrow.start, arrow.end
        line = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, _emu(x1), _emu(y1), _emu(x2), _emu(y2))
        line.line.color.rgb = RGBColor(*theme.rgb("accent"))
        line.line.width = Pt(2.25)
        ln = line.line._get_or_add_ln()
        head = ln.makeelement(qn("a:tailEnd"), {"type": "triangle", "w": "med", "len": "med"})
        ln.append(head)
    for box in spec.diagram.boxes:
        rect = layout.boxes[box.id]
        shape = slide.shapes.add_shape(
            MSO_SHAPE.ROUNDED_RECTANGLE, _emu(rect.x), _emu(rect.y), _emu(rect.w), _emu(rect.h)
        )
        shape.name = f"box:{box.id}"
        shape.fill.solid()
        shape.fill.fore_color.rgb = RGBColor(*theme.rgb("box_fill"))
        shape.line.color.rgb = RGBColor(*theme.rgb("accent"))
        shape.line.width = Pt(1.5)
        frame = shape.text_frame
        frame.word_wrap = True
        frame.text = box.label
        frame.paragraphs[0].alignment = PP_ALIGN.CENTER
        _style_runs(frame, BOX_PT, theme)
