"""The slides skill, invoked as an agent would (through the bridge), on a real store and real python-pptx."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE

from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from skills.slides import plan_slides
from store.models import EdgeType, new_id

TOPIC = "Zero-waste coffee shops in small towns"


def make_deck(runtime: Runtime, topic: str, n_slides: int) -> dict[str, Any]:
    grant = runtime.grant_for(f"make a deck about {topic}")
    call = ToolCall(action_id=new_id(), tool="skill__slides", args={"topic": topic, "n_slides": n_slides})
    result = runtime.bridge.submit(call, grant, Usage(), thread_id="slides-thread")
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation


@pytest.fixture(scope="module")
def deck(runtime: Runtime) -> dict[str, Any]:
    return make_deck(runtime, TOPIC, 6)


def test_the_pptx_opens_with_one_titled_slide_per_planned_slide(runtime: Runtime, deck: dict[str, Any]) -> None:
    planned = plan_slides(TOPIC, 6)
    deck_node = runtime.project.store.get_node(deck["deck_id"])
    (pptx,) = deck_node.outputs
    assert pptx.sha256 == deck["pptx_sha256"]
    presentation = Presentation(io.BytesIO(runtime.project.artifacts.read_bytes(pptx)))
    slides = list(presentation.slides)
    assert len(slides) == 6
    assert [s.shapes.title.text for s in slides] == [p.title for p in planned]
    assert slides[0].shapes.title.text == TOPIC and slides[-1].shapes.title.text == "Summary"
    assert all(s.has_notes_slide and s.notes_slide.notes_text_frame.text for s in slides)
    shapes = [{sh.shape_type for sh in s.shapes} for s in slides]
    assert any(MSO_SHAPE_TYPE.AUTO_SHAPE in kinds for kinds in shapes)  # the diagram's boxes
    assert sum(MSO_SHAPE_TYPE.PICTURE in kinds for kinds in shapes) == 1  # the illustration


def test_every_slide_has_a_preview_and_comes_from_its_content(runtime: Runtime, deck: dict[str, Any]) -> None:
    store = runtime.project.store
    outline = store.get_node(deck["outline_id"])
    assert outline.kind == "plan" and len(outline.inputs["slides"]) == 6
    assert len(deck["slide_ids"]) == len(deck["content_ids"]) == 6
    for number, (slide_id, content_id) in enumerate(zip(deck["slide_ids"], deck["content_ids"], strict=True), 1):
        content = store.get_node(content_id)
        assert content.kind == "text" and content.title == f"slide {number} content"
        assert {n.node.id for n in store.neighbours(content_id, [EdgeType.GENERATED_FROM])} == {outline.id}
        slide = store.get_node(slide_id)
        assert slide.kind == "slide" and slide.title == content.inputs["title"]
        assert content_id in {n.node.id for n in store.neighbours(slide_id, [EdgeType.GENERATED_FROM])}
        (preview,) = slide.outputs
        assert Image.open(io.BytesIO(runtime.project.artifacts.read_bytes(preview))).size == (1280, 720)
    diagrams = [store.get_node(i).inputs["diagram"] for i in deck["content_ids"]]
    assert sum(d is not None for d in diagrams) == 1
    diagram = next(d for d in diagrams if d)
    assert len(diagram["boxes"]) >= 3 and len(diagram["arrows"]) == len(diagram["boxes"]) - 1


def test_the_illustration_comes_from_its_slide_content(runtime: Runtime, deck: dict[str, Any]) -> None:
    store = runtime.project.store
    image = store.get_node(deck["illustration_id"])
    assert image.kind == "image"
    (content_id,) = {n.node.id for n in store.neighbours(image.id, [EdgeType.GENERATED_FROM])}
    index = deck["content_ids"].index(content_id)
    slide_sources = {n.node.id for n in store.neighbours(deck["slide_ids"][index], [EdgeType.GENERATED_FROM])}
    assert slide_sources == {content_id, image.id}


def test_a_two_slide_deck_puts_the_diagram_on_the_summary(runtime: Runtime) -> None:
    small = make_deck(runtime, "AI", 2)
    presentation = Presentation(io.BytesIO(runtime.project.artifacts.read_bytes(
        runtime.project.store.get_node(small["deck_id"]).outputs[0])))
    assert [s.shapes.title.text for s in presentation.slides] == ["AI", "Summary"]
    assert runtime.project.store.get_node(small["content_ids"][1]).inputs["diagram"] is not None


def test_slide_count_outside_2_to_20_is_refused_before_anything_runs(runtime: Runtime) -> None:
    before = runtime.project.store.canvas_version()
    grant = runtime.grant_for("make a deck about urban beekeeping")
    call = ToolCall(action_id=new_id(), tool="skill__slides", args={"topic": "x", "n_slides": 21})
    result = runtime.bridge.submit(call, grant, Usage(), thread_id="slides-thread")
    assert result.verdict == "reject" and "n_slides" in result.message
    assert runtime.project.store.canvas_version() == before
