"""Slide decks: a real .pptx python-pptx can open, and one 1280x720 preview per slide."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pydantic import ValidationError

from store.models import CanvasNode, EdgeType, NodeStatus
from store.mutations import CreateNode, GroupNodes, Link
from tools.base import Effect
from tools.native.slide_layout import layout_slide
from tools.native.slide_spec import DeckSpec, DiagramArrow, DiagramBox, DiagramSpec, SlideSpec
from tools.native.slides import PPTX_MIME, SlideImageError, build_deck
from tools.native.tools import BUILD_SLIDES, BuildSlidesArgs, CanvasNodeMissing

ORANGE = (255, 140, 0)
TEAL = (0, 128, 128)


def png_handle(artifacts, colour, size, name):
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return artifacts.put_bytes(buffer.getvalue(), "image/png", name=name)


@pytest.fixture
def deck_spec(artifacts) -> DeckSpec:
    orange = png_handle(artifacts, ORANGE, (400, 300), "orange.png")
    teal = png_handle(artifacts, TEAL, (200, 400), "teal.png")
    return DeckSpec(
        title="Launch Plan: Q3",
        slides=[
            SlideSpec(
                title="Why now",
                bullets=["Canvas-native agents", "Typed, reviewable changes"],
                images=[orange],
                notes="Open with the customer story.",
            ),
            SlideSpec(
                title="How it flows",
                bullets=["Plan", "Validate", "Commit"],
                images=[orange, teal.uri],
                diagram=DiagramSpec(
                    boxes=[
                        DiagramBox(id="plan", label="Planner"),
                        DiagramBox(id="check", label="Validator"),
                        DiagramBox(id="store", label="Canvas store"),
                    ],
                    arrows=[DiagramArrow(source="plan", target="check"), DiagramArrow(source="check", target="store")],
                ),
                notes="Walk through the three steps.",
            ),
            SlideSpec(title="Thank you"),
        ],
    )


def test_pptx_has_the_slides_titles_notes_pictures_and_diagram(deck_spec: DeckSpec, artifacts) -> None:
    built = build_deck(deck_spec, artifacts)
    assert built.pptx.mime == PPTX_MIME and built.pptx.name == "launch-plan-q3.pptx"

    deck = Presentation(io.BytesIO(artifacts.read_bytes(built.pptx)))
    assert deck.core_properties.title == "Launch Plan: Q3"
    assert (deck.slide_width, deck.slide_height) == (12192000, 6858000)
    slides = list(deck.slides)
    assert [s.shapes.title.text for s in slides] == ["Why now", "How it flows", "Thank you"]
    assert [s.notes_slide.notes_text_frame.text if s.has_notes_slide else "" for s in slides] == [
        "Open with the customer story.",
        "Walk through the three steps.",
        "",
    ]

    def of_type(slide, kind):
        return [sh for sh in slide.shapes if sh.shape_type == kind]

    assert len(of_type(slides[0], MSO_SHAPE_TYPE.PICTURE)) == 1
    assert len(of_type(slides[1], MSO_SHAPE_TYPE.PICTURE)) == 2
    body = [p.text for p in slides[1].placeholders[1].text_frame.paragraphs]
    assert body == ["Plan", "Validate", "Commit"]
    boxes = of_type(slides[1], MSO_SHAPE_TYPE.AUTO_SHAPE)
    assert sorted(b.text_frame.text for b in boxes) == ["Canvas store", "Planner", "Validator"]
    arrows = of_type(slides[1], MSO_SHAPE_TYPE.LINE)
    assert len(arrows) == 2
    assert all(a.line._get_or_add_ln().find("{*}tailEnd") is not None for a in arrows)
    # A slide with only a title keeps no empty "click to add text" body.
    assert [sh.shape_type for sh in slides[2].shapes] == [MSO_SHAPE_TYPE.PLACEHOLDER]


def test_one_preview_per_slide_with_the_images_scaled_in(deck_spec: DeckSpec, artifacts) -> None:
    built = build_deck(deck_spec, artifacts)
    assert len(built.previews) == 3
    previews = [Image.open(io.BytesIO(artifacts.read_bytes(h))).convert("RGB") for h in built.previews]
    assert all(p.size == (1280, 720) for p in previews)
    assert all(h.mime == "image/png" for h in built.previews)

    layout = layout_slide(deck_spec.slides[1], [(400, 300), (200, 400)])
    orange_box, teal_box = layout.images
    assert previews[1].getpixel(_point(orange_box.center)) == ORANGE
    assert previews[1].getpixel(_point(teal_box.center)) == TEAL
    assert teal_box.w / teal_box.h == pytest.approx(200 / 400, rel=0.01)  # aspect kept
    assert previews[1] != previews[2]


def test_diagram_arrows_must_join_known_boxes() -> None:
    with pytest.raises(ValidationError, match="names no box 'ghost'"):
        DiagramSpec(boxes=[DiagramBox(id="a", label="A")], arrows=[DiagramArrow(source="a", target="ghost")])
    with pytest.raises(ValidationError, match="unique"):
        DiagramSpec(boxes=[DiagramBox(id="a", label="A"), DiagramBox(id="a", label="B")])


def test_missing_or_non_image_artifacts_are_reported(artifacts) -> None:
    text = artifacts.put_bytes(b"not a picture", "text/plain")
    with pytest.raises(SlideImageError, match=r"slide 1: artifact .* is not an image"):
        build_deck(DeckSpec(title="x", slides=[SlideSpec(title="a", images=[text])]), artifacts)
    with pytest.raises(SlideImageError, match="not in the artifact store"):
        build_deck(
            DeckSpec(title="x", slides=[SlideSpec(title="a", images=["artifact://sha256/" + "0" * 64])]), artifacts
        )


def test_build_slides_tool_records_a_deck_grouping_its_slides(ctx, canvas, deck_spec: DeckSpec) -> None:
    assert BUILD_SLIDES.effects == {Effect.MUTATES_CANVAS}
    brief = canvas.add(CanvasNode(kind="text", title="brief", status=NodeStatus.COMPLETED))
    args = BuildSlidesArgs.model_validate(deck_spec.model_dump())
    args.slides[0].source_node_ids = [brief.id]
    result = BUILD_SLIDES.run(ctx, args)

    creates = [m for m in result.mutations if isinstance(m, CreateNode)]
    deck, *slides = creates
    assert deck.kind == "deck" and deck.outputs[0].mime == PPTX_MIME and deck.status == NodeStatus.COMPLETED
    assert [s.kind for s in slides] == ["slide"] * 3
    assert [s.title for s in slides] == ["Why now", "How it flows", "Thank you"]
    assert all(s.outputs[0].mime == "image/png" for s in slides)
    [group] = [m for m in result.mutations if isinstance(m, GroupNodes)]
    assert group.group_id == deck.id and group.node_ids == [s.id for s in slides]
    [link] = [m for m in result.mutations if isinstance(m, Link)]
    assert (link.type, link.source, link.target) == (EdgeType.GENERATED_FROM, slides[0].id, brief.id)
    assert result.observation["deck_node_id"] == deck.id

    args.slides[1].source_node_ids = ["nope"]
    with pytest.raises(CanvasNodeMissing, match="'nope'"):
        BUILD_SLIDES.run(ctx, args)


def _point(xy: tuple[float, float]) -> tuple[int, int]:
    return (round(xy[0]), round(xy[1]))
