"""The web and slides workflows end to end through the agent loop (offline planner)."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from pptx import Presentation

from store.models import EdgeType, NodeStatus


@pytest.fixture
def runtime(make_runtime):
    return make_runtime()


@pytest.mark.system_tool("chromium", apt="chromium")
def test_web_brief_then_a_follow_up_changes_only_the_code_and_its_preview(runtime, project):
    store = project.store
    first = runtime.run("a website for a photography studio: quiet, editorial, black-and-white portraits")
    assert first.outcome == "replied", first.reply
    code = [n for n in store.find_nodes(kind="code") if n.status != NodeStatus.REJECTED][-1]
    html = (project.workspace / code.inputs["html_path"]).read_text()
    assert html == code.inputs["source"]
    for section in ("hero", "gallery", "about", "contact"):
        assert section in html
    preview = next(n.node for n in store.neighbours(code.id, [EdgeType.GENERATED_FROM], direction="in")
                   if n.node.kind == "image")
    png = Image.open(io.BytesIO(project.artifacts.read_bytes(preview.outputs[0])))
    assert png.size == (1280, 800)
    images_before = {n.id: n.outputs[0].sha256 for n in store.find_nodes(kind="image") if n.id != preview.id}

    second = runtime.run("make the hero full-bleed")
    assert second.outcome == "replied", second.reply
    new_code = [n for n in store.find_nodes(kind="code") if n.status != NodeStatus.REJECTED][-1]
    assert new_code.id != code.id
    assert [n.node.id for n in store.neighbours(new_code.id, [EdgeType.VERSION_OF])] == [code.id]
    new_images = {n.id: n.outputs[0].sha256 for n in store.find_nodes(kind="image")}
    added = set(new_images) - set(images_before) - {preview.id}
    assert len(added) == 1, "only the new preview is rendered"
    assert all(new_images[i] == h for i, h in images_before.items())


def test_slides_topic_becomes_a_real_deck_with_previews(runtime, project):
    outcome = runtime.run("a 4-slide lecture deck on how diffusion models generate images")
    assert outcome.outcome == "replied", outcome.reply
    deck = project.store.find_nodes(kind="deck")[-1]
    pptx = next(h for h in deck.outputs if h.mime.endswith("presentation"))
    presentation = Presentation(io.BytesIO(project.artifacts.read_bytes(pptx)))
    assert len(presentation.slides) == 4
    slides = project.store.find_nodes(kind="slide", group_id=deck.id) or [
        n.node for n in project.store.neighbours(deck.id, [EdgeType.IN_GROUP], direction="in")]
    assert len(slides) == 4
    # The skill made them, not the turn's own step: its Turn node still says what it made ("what did that turn
    # make", in Cypher), and so does its trajectory.
    made = {deck.id, *(s.id for s in slides)}
    turn = next(t for t in project.store.turns(outcome.thread_id) if t["id"] == outcome.turn_id)
    assert made <= set(turn["node_ids"]), turn["node_ids"]
    assert made <= set(runtime.trajectories.last_turn(outcome.thread_id)["touched_ids"])
    for slide in slides:
        preview = Image.open(io.BytesIO(project.artifacts.read_bytes(
            next(h for h in slide.outputs if h.mime == "image/png"))))
        assert preview.size == (1280, 720)
        sources = [n.node.kind for n in project.store.neighbours(slide.id, [EdgeType.GENERATED_FROM])]
        assert "text" in sources
