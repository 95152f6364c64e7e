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
from pydantic import BaseModel, Field

from store.artifacts import ArtifactStore
from store.errors import ArtifactNotFound
from store.models import ArtifactHandle
from tools.base import ToolError
from tools.native.slide_layout import layout_slide
from tools.native.slide_preview import DEFAULT_THEME, render_preview
from tools.native.slide_spec import DeckSpec, SlideSpec, SlideTheme

PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
"""MIME type of a .pptx file."""


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
    # python-pptx (and lxml) load here, when a deck is built, not with every command that lists the tools.
    from tools.native.pptx_file import PptxWriter

    deck = PptxWriter(spec.title)
    previews: list[ArtifactHandle] = []
    for number, (slide_spec, keep) in enumerate(zip(spec.slides, kept, strict=True), start=1):
        images = [_image_file(artifacts, ref, number) for ref in slide_spec.images]
        layout = layout_slide(slide_spec, [size for _, size in images])
        deck.add_slide(slide_spec, layout, [path for path, _ in images], theme)
        if keep is not None:
            previews.append(keep)
            continue
        png = render_preview(slide_spec, layout, [path for path, _ in images], theme)
        previews.append(artifacts.put_bytes(png, "image/png", name=f"slide-{number:02d}.png"))
    handle = artifacts.put_bytes(_fixed_times(deck.to_bytes()), PPTX_MIME,
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
