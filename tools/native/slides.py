"""Build a real PowerPoint deck (.pptx, with python-pptx) and a PNG preview per slide from a :class:`DeckSpec`.

Each slide gets a title placeholder, a bulleted body, its images placed from
the artifact store, speaker notes, and its diagram as shapes: rounded boxes
with labels and straight connectors with arrow heads.  The previews are our
own 1280x720 Pillow drawings of the same spec and layout
(:mod:`tools.native.slide_preview`), not renders of the .pptx, because no
office suite (LibreOffice) is available to rasterise it.  The deck and the
previews are stored as artifacts.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from PIL import Image, UnidentifiedImageError
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.enum.text import PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt
from pydantic import BaseModel, Field

from store.artifacts import ArtifactStore
from store.errors import ArtifactNotFound
from store.models import ArtifactHandle
from tools.base import ToolError
from tools.native.slide_layout import (
    BOX_PT,
    BULLET_PT,
    EMU_PER_PIXEL,
    SLIDE_HEIGHT,
    SLIDE_WIDTH,
    TITLE_PT,
    Rect,
    SlideLayout,
    layout_slide,
)
from tools.native.slide_preview import DEFAULT_THEME, render_preview
from tools.native.slide_spec import DeckSpec, SlideSpec, SlideTheme

PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
"""MIME type of a .pptx file."""

_TITLE_AND_CONTENT = 1  # index of the "Title and Content" layout in python-pptx's default template


class SlideImageError(ToolError):
    """An image named by a slide is missing from the artifact store or is not a picture."""


class BuiltDeck(BaseModel):
    """The stored deck and one stored preview PNG per slide, in slide order."""

    pptx: ArtifactHandle
    previews: list[ArtifactHandle]
    rendered: list[bool] = Field(default_factory=list, description="Per slide: whether its preview was drawn now "
                                 "(False: an earlier preview of the same slide was kept).")


def build_deck(spec: DeckSpec, artifacts: ArtifactStore,
               keep_previews: list[ArtifactHandle | None] | None = None) -> BuiltDeck:
    """Write the .pptx and the previews for ``spec`` and store them all as artifacts.

    ``keep_previews`` holds, per slide, the preview of an unchanged slide (same spec, same theme) to keep
    instead of drawing it again; the .pptx is one file and is always written whole.  The same spec gives the
    same .pptx bytes (the zip's timestamps are fixed), so a deck brought back to an earlier version is the
    earlier file.
    """
    theme = spec.theme or DEFAULT_THEME
    kept = list(keep_previews or [None] * len(spec.slides))
    if len(kept) != len(spec.slides):
        raise ValueError(f"keep_previews has {len(kept)} entries for {len(spec.slides)} slides")
    deck = Presentation()
    deck.slide_width = Emu(SLIDE_WIDTH * EMU_PER_PIXEL)
    deck.slide_height = Emu(SLIDE_HEIGHT * EMU_PER_PIXEL)
    deck.core_properties.title = spec.title
    previews: list[ArtifactHandle] = []
    for number, (slide_spec, keep) in enumerate(zip(spec.slides, kept, strict=True), start=1):
        images = [_image_file(artifacts, ref, number) for ref in slide_spec.images]
        layout = layout_slide(slide_spec, [size for _, size in images])
        _add_slide(deck, slide_spec, layout, [path for path, _ in images], theme)
        if keep is not None:
            previews.append(keep)
            continue
        png = render_preview(slide_spec, layout, [path for path, _ in images], theme)
        previews.append(artifacts.put_bytes(png, "image/png", name=f"slide-{number:02d}.png"))
    out = io.BytesIO()
    deck.save(out)
    handle = artifacts.put_bytes(_fixed_times(out.getvalue()), PPTX_MIME,
                                 name=spec.file_name or _file_name(spec.title))
    return BuiltDeck(pptx=handle, previews=previews, rendered=[k is None for k in kept])


def _fixed_times(pptx: bytes) -> bytes:
    """The same zip with every entry dated 1980-01-01, so equal decks are equal bytes (and one artifact)."""
    source = zipfile.ZipFile(io.BytesIO(pptx))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            fixed.compress_type, fixed.external_attr = info.compress_type, info.external_attr
            target.writestr(fixed, source.read(info.filename))
    return out.getvalue()


def _file_name(title: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower() or "deck"
    return f"{stem[:60]}.pptx"


def _image_file(artifacts: ArtifactStore, ref: ArtifactHandle | str, number: int) -> tuple[Path, tuple[int, int]]:
    shown = ref.uri if isinstance(ref, ArtifactHandle) else ref
    try:
        path = artifacts.local_path(ref)
        with Image.open(path) as picture:
            return path, picture.size
    except ArtifactNotFound as exc:
        raise SlideImageError(f"slide {number}: image {shown} is not in the artifact store") from exc
    except UnidentifiedImageError as exc:
        raise SlideImageError(f"slide {number}: artifact {shown} is not an image Pillow can read") from exc


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
