"""The ``slides`` skill: topic to outline to per-slide content to a real .pptx with a PNG preview per slide.

A LangGraph subgraph of three graph nodes, each acting only through the bridge:

1. ``outline``: a deterministic outline of the topic (a title slide, ``n - 2``
   content slides, a summary slide), recorded as a ``plan`` node;
2. ``content``: one ``text`` node per slide ("slide N content": title, bullets,
   notes, and a box-and-arrow diagram on one slide), GENERATED_FROM the
   outline, and one illustration image (GENERATED_FROM its slide's content);
3. ``deck``: ``build_slides`` with every slide's ``source_node_ids`` set to its
   content node (and illustration), so each ``slide`` node is GENERATED_FROM
   the content it shows.

The topic is read from the words the skill gets (:mod:`content.topics`), so a
whole request ("a 4-slide deck about the history of the bicycle") works as well
as a bare topic; the sections come from fixed patterns per kind of topic
(:mod:`content.outlines`) filled with the topic's noun phrases.  The same words
always give the same deck.
"""

from __future__ import annotations

import hashlib
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from pydantic import BaseModel, Field

from content.deck_plan import SlideContent, plan_extra_slide, plan_slides
from content.outlines import capitalise
from content.sizes import SLIDES_MAX, SLIDES_MIN
from content.topics import read_deck_request
from skills.base import Skill, SkillState, SkillStepRejected, skill_context
from tools.native.slide_spec import SlideSpec


class SlidesInput(BaseModel):
    """What the deck is about and how long it is."""

    topic: str = Field(min_length=1, max_length=300, description="The topic, or the request's words "
                       "('a 4-slide deck about the bicycle').")
    n_slides: int | None = Field(default=None, ge=SLIDES_MIN, le=SLIDES_MAX, description="Slides in all, title and summary "
                                 "included; a count in the topic wins; else 5.")


class SlideCountRefused(SkillStepRejected):
    """The request's words ask for a number of slides outside 2 to 20."""


class SlidesOutput(BaseModel):
    """The canvas nodes of the deck, and the .pptx's hash."""

    outline_id: str
    content_ids: list[str] = Field(description="One text node per slide, in slide order.")
    illustration_id: str = Field(description="The generated image placed on one slide.")
    deck_id: str
    slide_ids: list[str] = Field(description="One slide node per slide, in slide order.")
    pptx_sha256: str


# ---------------------------------------------------------------- the deck's size (its plan: content.deck_plan)


def deck_size(inp: SlidesInput) -> int:
    """Slides in all: a count written in the topic's words wins (it is what the person said), then ``n_slides``."""
    written = read_deck_request(inp.topic).n_slides
    if written is not None and written != inp.n_slides:
        if not SLIDES_MIN <= written <= SLIDES_MAX:
            raise SlideCountRefused(f"the request asks for {written} slides; a deck has {SLIDES_MIN} to {SLIDES_MAX}")
        return written
    return inp.n_slides or 5


# ---------------------------------------------------------------- graph nodes


def _outline(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    inp = SlidesInput.model_validate(state["input"])
    n_slides = deck_size(inp)
    request = read_deck_request(inp.topic)
    slides = plan_slides(inp.topic, n_slides)
    outline_id = ctx.call("create_node", kind="plan", title=f"outline: {request.topic}", status="completed",
                          inputs={"topic": request.topic, "request": inp.topic, "kind": request.kind,
                                  "n_slides": n_slides,
                                  "slides": [{"index": i, "role": s.role, "title": s.title,
                                              "has_diagram": s.diagram is not None}
                                             for i, s in enumerate(slides, start=1)]})["created"]
    return {"scratch": {"outline_id": outline_id, "slides": [s.model_dump(mode="json") for s in slides]}}


def _content(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    inp = SlidesInput.model_validate(state["input"])
    scratch = dict(state["scratch"])
    content_ids = []
    for number, slide in enumerate(scratch["slides"], start=1):
        content_id = ctx.call("create_node", kind="text", title=f"slide {number} content", status="completed",
                              inputs={"slide": number, **slide})["created"]
        ctx.call("link_nodes", type="GENERATED_FROM", source=content_id, target=scratch["outline_id"])
        content_ids.append(content_id)
    # One picture: on the first content slide without a diagram (the title slide for a two-slide deck).
    target = next((i for i, s in enumerate(scratch["slides"]) if s["role"] == "content" and not s["diagram"]), 0)
    topic = read_deck_request(inp.topic).topic
    picture = ctx.call("generate_image", prompt=f"{topic}: an illustration of {scratch['slides'][target]['title']}",
                       title=f"slide {target + 1} illustration", width=640, height=400,
                       seed=int.from_bytes(hashlib.sha256(inp.topic.encode()).digest()[:4], "big"))
    ctx.call("link_nodes", type="GENERATED_FROM", source=picture["node_id"], target=content_ids[target])
    scratch.update(content_ids=content_ids, illustration={"slide": target, "node_id": picture["node_id"],
                                                          "uri": f"artifact://sha256/{picture['sha256']}"})
    return {"scratch": scratch}


def _deck(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    inp = SlidesInput.model_validate(state["input"])
    scratch = state["scratch"]
    picture = scratch["illustration"]
    specs = []
    for index, (slide, content_id) in enumerate(zip(scratch["slides"], scratch["content_ids"], strict=True)):
        content = SlideContent.model_validate(slide)
        with_picture = index == picture["slide"]
        specs.append(SlideSpec(title=content.title, bullets=content.bullets, notes=content.notes,
                               diagram=content.diagram, images=[picture["uri"]] if with_picture else [],
                               source_node_ids=[content_id, *([picture["node_id"]] if with_picture else [])]))
    deck = ctx.call("build_slides", title=capitalise(read_deck_request(inp.topic).topic),
                    slides=[s.model_dump(mode="json") for s in specs])
    output = SlidesOutput(outline_id=scratch["outline_id"], content_ids=scratch["content_ids"],
                          illustration_id=picture["node_id"], deck_id=deck["deck_node_id"],
                          slide_ids=[s["node_id"] for s in deck["slides"]],
                          pptx_sha256=deck["pptx"].rsplit("/", 1)[-1])
    return {"output": output.model_dump()}


def _graph() -> Any:
    graph = StateGraph(SkillState)
    graph.add_sequence([("outline", _outline), ("content", _content), ("deck", _deck)])
    graph.add_edge(START, "outline")
    return graph.compile()


SLIDES = Skill(
    name="slides",
    description="Make a slide deck on a topic: an outline, a content node per slide (bullets, notes, diagram, "
    "illustration), a .pptx and a PNG per slide.",
    input_model=SlidesInput,
    output_model=SlidesOutput,
    needs=["create_node", "link_nodes", "generate_image", "build_slides"],
    graph=_graph(),
)
"""Skill: topic to a .pptx deck with previews."""

__all__ = ["SLIDES", "SlideContent", "SlideCountRefused", "SlidesInput", "SlidesOutput", "deck_size",
           "plan_extra_slide", "plan_slides"]
