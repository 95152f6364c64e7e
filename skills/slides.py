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

The outline is derived from the topic's words and a hash of the topic, so the
same topic always gives the same deck.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from pydantic import BaseModel, Field

from skills.base import Skill, SkillState, skill_context
from tools.native.slide_spec import DiagramArrow, DiagramBox, DiagramSpec, SlideSpec


class SlidesInput(BaseModel):
    """What the deck is about and how long it is."""

    topic: str = Field(min_length=1, max_length=300)
    n_slides: int = Field(default=5, ge=2, le=20, description="Slides in all, title and summary slides included.")


class SlidesOutput(BaseModel):
    """The canvas nodes of the deck, and the .pptx's hash."""

    outline_id: str
    content_ids: list[str] = Field(description="One text node per slide, in slide order.")
    illustration_id: str = Field(description="The generated image placed on one slide.")
    deck_id: str
    slide_ids: list[str] = Field(description="One slide node per slide, in slide order.")
    pptx_sha256: str


class SlideContent(BaseModel):
    """One planned slide: what the outline and its content node hold."""

    role: Literal["title", "content", "summary"]
    title: str
    bullets: list[str] = Field(default_factory=list)
    notes: str = ""
    diagram: DiagramSpec | None = None


# ---------------------------------------------------------------- the outline (pure)

_STOPWORDS = frozenset({
    "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "at", "by", "with", "from", "about", "into",
    "how", "why", "what", "when", "our", "your", "its", "is", "are", "be", "we", "it", "this", "that", "vs",
    # adjectives read badly as "Getting started with small"
    "small", "large", "big", "new", "good", "best", "better", "modern", "simple", "great", "future", "local",
})

# Content slide templates: a title and four bullets; {k} is a keyword, {o} another, {t} the topic.
_TEMPLATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("How {t} works", ("It starts with {k}", "{o} shapes every step", "Each stage feeds the next",
                       "The result is measurable")),
    ("Why {k} matters", ("{k} decides what is possible", "Small gains in {k} compound",
                         "Ignoring {o} is costly", "Teams that get it right move faster")),
    ("The parts of {t}", ("{k}: the foundation", "{o}: what holds it together", "How the parts interact",
                          "Where most problems start")),
    ("Getting started with {k}", ("Pick one clear goal", "Map the {o} you already have",
                                  "Run a small pilot first", "Review results every week")),
    ("Common pitfalls in {k}", ("Doing too much at once", "Measuring the wrong thing",
                                "Forgetting the people behind {o}", "No owner for the outcome")),
    ("Measuring {k}", ("Choose two or three numbers", "Track {o} over time", "Compare against a baseline",
                       "Share the results openly")),
    ("Tools for {k}", ("Start with what the team knows", "Automate the repetitive {o} work",
                       "Keep a shared record", "Retire tools nobody uses")),
    ("What comes next for {k}", ("Trends that change {o}", "Questions still open", "Where to invest next",
                                 "How to stay ready")),
)


def keywords(topic: str) -> list[str]:
    """The topic's meaningful words, in order, without repeats (the topic itself if it has none)."""
    found = [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", topic) if w.lower() not in _STOPWORDS]
    # Lower-case a word unless it is an acronym or a name written that way (AI, LangGraph).
    shown = {w.lower(): w if any(c.isupper() for c in w[1:]) else w.lower() for w in reversed(found)}
    return [shown[k] for k in dict.fromkeys(w.lower() for w in found)] or [topic.strip()]


def plan_slides(topic: str, n_slides: int) -> list[SlideContent]:
    """The outline: a title slide, ``n_slides - 2`` content slides, a summary; one slide carries a diagram."""
    key = hashlib.sha256(topic.encode("utf-8")).digest()
    words = keywords(topic)
    nice_topic = topic.strip().rstrip(".")
    # Templates say "How {t} works": a long topic is shortened to its first two keywords there.
    short_topic = nice_topic if len(nice_topic.split()) <= 4 else " ".join(words[:2])
    slides = [SlideContent(role="title", title=_capitalise(nice_topic),
                           bullets=[f"An overview of {nice_topic}", f"Key ideas: {', '.join(words[:3])}"],
                           notes=f"Introduce {nice_topic} and say what the audience will take away.")]
    used: set[str] = set()
    for index in range(n_slides - 2):
        slides.append(_content_slide(index, short_topic, words, key, used))
    recap = [s.title for s in slides[1:]][:4] or [f"{_capitalise(w)} matters" for w in words[:3]]
    summary = SlideContent(role="summary", title="Summary", bullets=recap,
                           notes=f"Close by repeating the main points about {nice_topic} and asking for questions.")
    slides.append(summary)
    diagram_slide = slides[1] if n_slides > 2 else summary
    diagram_slide.diagram = _diagram(words)
    return slides


def _content_slide(index: int, topic: str, words: list[str], key: bytes, used: set[str]) -> SlideContent:
    template_index = index % len(_TEMPLATES)
    title_template, bullet_templates = _TEMPLATES[template_index]
    keyword = words[(index + index // len(_TEMPLATES)) % len(words)]
    other = words[(index + 1) % len(words)]
    title = _capitalise(title_template.format(t=topic, k=keyword, o=other))
    if title in used:  # more slides than templates x keywords: number the repeat
        title = f"{title} ({index + 1})"
    used.add(title)
    count = 3 + key[index % len(key)] % 2
    bullets = [_capitalise(b.format(t=topic, k=keyword, o=other)) for b in bullet_templates[:count]]
    notes = f"Slide {index + 2}: explain {keyword} in the context of {topic}; one example per bullet."
    return SlideContent(role="content", title=title, bullets=bullets, notes=notes)


def _diagram(words: list[str]) -> DiagramSpec:
    labels = ["Idea", *(_capitalise(w) for w in words[:3]), "Outcome"]
    boxes = [DiagramBox(id=f"b{i}", label=label) for i, label in enumerate(labels)]
    arrows = [DiagramArrow(source=a.id, target=b.id) for a, b in itertools.pairwise(boxes)]
    return DiagramSpec(boxes=boxes, arrows=arrows)


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------- graph nodes


def _outline(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    inp = SlidesInput.model_validate(state["input"])
    slides = plan_slides(inp.topic, inp.n_slides)
    outline_id = ctx.call("create_node", kind="plan", title=f"outline: {inp.topic}", status="completed",
                          inputs={"topic": inp.topic, "n_slides": inp.n_slides,
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
    picture = ctx.call("generate_image", prompt=f"{inp.topic}: an illustration of {scratch['slides'][target]['title']}",
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
    deck = ctx.call("build_slides", title=_capitalise(inp.topic.strip()),
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
    description="Make a slide deck on a topic: an outline, one content node per slide (bullets, notes, a "
    "box-and-arrow diagram on one slide, an illustration on another), a real .pptx and a PNG preview per slide, "
    "each slide linked to its content.",
    input_model=SlidesInput,
    output_model=SlidesOutput,
    needs=["create_node", "link_nodes", "generate_image", "build_slides"],
    graph=_graph(),
)
"""Skill: topic to a .pptx deck with previews."""

__all__ = ["SLIDES", "SlideContent", "SlidesInput", "SlidesOutput", "keywords", "plan_slides"]
