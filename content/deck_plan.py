"""A deck's plan from words: its slides' titles, bullets, notes and one diagram, the same for the same words.

The ``slides`` skill (:mod:`skills.slides`) puts a whole plan on the canvas; the ``deck_add_slide`` tool
(:mod:`tools.deck.tools`) writes one more slide for a deck that has one already.  The topic is read from the
words (:mod:`content.topics`); the sections come from fixed patterns per kind of topic (:mod:`content.outlines`)
filled with the topic's noun phrases.
"""

from __future__ import annotations

import itertools
from typing import Literal

from pydantic import BaseModel, Field

from content.outlines import DIAGRAM_SECTION, PATTERNS, capitalise, choose_sections, fill
from content.topics import DeckRequest, read_deck_request
from tools.native.slide_spec import DiagramArrow, DiagramBox, DiagramSpec


class SlideContent(BaseModel):
    """One planned slide: what the outline and its content node hold."""

    role: Literal["title", "content", "summary"]
    title: str
    bullets: list[str] = Field(default_factory=list)
    notes: str = ""
    diagram: DiagramSpec | None = None



def plan_slides(text: str, n_slides: int) -> list[SlideContent]:
    """The outline: a title slide, ``n_slides - 2`` sections chosen for the topic's kind, a summary.

    ``text`` is the request or the bare topic; what it says about the deck
    itself ("a 4-slide lecture deck on") is not part of the topic.  One slide
    carries a diagram of the sections' flow.
    """
    request = read_deck_request(text)
    title = SlideContent(role="title", title=capitalise(request.topic),
                         bullets=[f"An overview of {request.subject}",
                                  f"In this talk: {', '.join(_box_names(request, n_slides))}"],
                         notes=f"Introduce {request.topic} and say what the audience will take away.")
    slides = [title]
    chosen = choose_sections(request.kind, max(0, n_slides - 2))
    for section, part in chosen:
        heading = fill(section.title, request) + (f" (part {part})" if part > 1 else "")
        slides.append(SlideContent(role="content", title=heading,
                                   bullets=[fill(b, request) for b in section.bullets],
                                   notes=fill(section.notes, request)))
    recap = [s.title for s in slides[1:]][:4] or [f"{capitalise(request.head)}: the essentials",
                                                    "Questions and next steps"]
    summary = SlideContent(role="summary", title="Summary", bullets=recap,
                           notes=f"Close by repeating the main points about {request.subject} and asking for "
                                 "questions.")
    slides.append(summary)
    diagram_section = PATTERNS[request.kind][DIAGRAM_SECTION[request.kind]]
    on = next((i for i, (s, part) in enumerate(chosen, start=1) if s is diagram_section and part == 1),
              1 if n_slides > 2 else len(slides) - 1)
    slides[on].diagram = _diagram(request)
    return slides


def plan_extra_slide(about: str) -> SlideContent:
    """One content slide about ``about`` ("training costs", "how tokenizers work"), for a deck that has one
    already: titled with the topic, bullets and notes from the best-ranked section of its kind."""
    request = read_deck_request(about)
    # One slide has room for the whole phrase: its bullets name "the cost of a rooftop system", not "the cost".
    request = request.model_copy(update={"head": request.subject if request.kind == "concept" else request.head})
    section, _ = choose_sections(request.kind, 1)[0]
    return SlideContent(role="content", title=capitalise(request.topic),
                        bullets=[fill(b, request) for b in section.bullets], notes=fill(section.notes, request))


def _box_names(request: DeckRequest, n_slides: int) -> list[str]:
    names = [fill(s.box, request) for s, part in choose_sections(request.kind, max(0, n_slides - 2)) if part == 1]
    return names or [capitalise(request.head)]


def _diagram(request: DeckRequest) -> DiagramSpec:
    """The topic's flow: its kind's sections as boxes in talk order, joined by arrows (a comparison converges)."""
    if request.kind == "comparison":
        labels = [capitalise(request.side_a), capitalise(request.side_b), "Criteria", "Decision"]
        boxes = [DiagramBox(id=f"b{i}", label=label) for i, label in enumerate(labels)]
        arrows = [DiagramArrow(source="b0", target="b2"), DiagramArrow(source="b1", target="b2"),
                  DiagramArrow(source="b2", target="b3")]
        return DiagramSpec(boxes=boxes, arrows=arrows)
    if request.kind == "process":
        labels = ["Input", capitalise(request.head), capitalise(request.obj) if request.obj else "Result"]
    else:
        labels = [fill(s.box, request) for s in PATTERNS[request.kind][:5]]
    boxes = [DiagramBox(id=f"b{i}", label=label) for i, label in enumerate(labels)]
    arrows = [DiagramArrow(source=a.id, target=b.id) for a, b in itertools.pairwise(boxes)]
    return DiagramSpec(boxes=boxes, arrows=arrows)


__all__ = ["SlideContent", "plan_extra_slide", "plan_slides"]
