"""What a slide deck is made of, as the model writes it: titles, bullets, images, notes and diagrams.

These pydantic models are the boundary of ``build_slides``: the deck builder
(:mod:`tools.native.slides`) and the preview renderer
(:mod:`tools.native.slide_preview`) both read them, through the same layout
(:mod:`tools.native.slide_layout`), so the preview shows what the .pptx holds.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from store.models import ArtifactHandle


class DiagramBox(BaseModel):
    """A labelled box of a diagram; arrows name boxes by ``id``."""

    id: str = Field(min_length=1)
    label: str


class DiagramArrow(BaseModel):
    """An arrow from one box to another."""

    source: str = Field(description="id of the box the arrow starts at")
    target: str = Field(description="id of the box the arrow points to")


class DiagramSpec(BaseModel):
    """Boxes laid out in a grid, in the order given, joined by arrows."""

    boxes: list[DiagramBox] = Field(min_length=1, max_length=24)
    arrows: list[DiagramArrow] = Field(default_factory=list)

    @model_validator(mode="after")
    def _arrows_join_known_boxes(self) -> DiagramSpec:
        ids = [b.id for b in self.boxes]
        if len(set(ids)) != len(ids):
            raise ValueError(f"diagram box ids must be unique, got {ids}")
        for arrow in self.arrows:
            for end in (arrow.source, arrow.target):
                if end not in ids:
                    raise ValueError(f"arrow {arrow.source}->{arrow.target} names no box {end!r}; boxes are {ids}")
        return self


class SlideSpec(BaseModel):
    """One slide: a title, bullets, images placed from artifacts, speaker notes and an optional diagram."""

    title: str
    bullets: list[str] = Field(default_factory=list)
    images: list[ArtifactHandle | str] = Field(
        default_factory=list, max_length=6, description="Image artifacts (handles or artifact:// URIs) to place."
    )
    notes: str = Field(default="", description="Speaker notes.")
    diagram: DiagramSpec | None = None
    source_node_ids: list[str] = Field(
        default_factory=list, description="Canvas nodes this slide was made from (linked GENERATED_FROM)."
    )


HexColour = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]


class SlideTheme(BaseModel):
    """The colours every slide of a deck is drawn in (the .pptx and the previews alike)."""

    name: str = "light"
    background: HexColour = "#ffffff"
    text: HexColour = Field(default="#212529", description="Titles and bullets.")
    accent: HexColour = Field(default="#2f5496", description="Title rule, bullet dots, box outlines, arrows.")
    box_fill: HexColour = Field(default="#dde8f7", description="Diagram boxes.")

    def rgb(self, field: str) -> tuple[int, int, int]:
        """A colour of the theme as an (r, g, b) tuple."""
        value = getattr(self, field)
        return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


class DeckSpec(BaseModel):
    """A whole deck: its title, its slides in order, and its theme."""

    title: str
    slides: list[SlideSpec] = Field(min_length=1, max_length=100)
    file_name: str | None = Field(
        default=None, description="Name of the .pptx artifact; derived from the title if unset."
    )
    theme: SlideTheme | None = Field(default=None, description="The deck's colours; None: the light default.")
