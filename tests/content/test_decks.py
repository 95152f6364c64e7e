"""Slide decks from a request's meaning, measured in the .pptx (python-pptx) and the slide previews.

The topic is the topic ("the history of the bicycle"), the count is the count,
and the sections come from the kind of topic, filled with its noun phrases:
never the deck's own words.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from pptx import Presentation

from content.topics import read_deck_request
from jarvishub.commands.projects import DEMO_REQUESTS
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from skills.slides import plan_slides
from store.models import EdgeType, new_id
from tests.content.measure import luma_and_saturation

DECK_WORDS = re.compile(r"\b(deck|decks|slides?|lectures?)\b", re.IGNORECASE)

BICYCLE = "a 4-slide deck about the history of the bicycle"
HOW_TO = "make a 5-slide deck on how to brew pour-over coffee"
COMPARISON = "slides comparing electric cars and petrol cars, six slides"
DIFFUSION = DEMO_REQUESTS["slides"][0].format(slides=5)


@pytest.mark.parametrize(("request_text", "count", "topic", "kind", "subject"), [
    (BICYCLE, 4, "the history of the bicycle", "history", "the bicycle"),
    (HOW_TO, 5, "how to brew pour-over coffee", "how-to", "pour-over coffee"),
    (COMPARISON, 6, "comparing electric cars and petrol cars", "comparison", "electric cars and petrol cars"),
    (DIFFUSION, 5, "how diffusion models generate images", "process", "diffusion models"),
    ("a six slide lecture deck on how diffusion models generate images", 6,
     "how diffusion models generate images", "process", "diffusion models"),
    ("make 3 slides about the evolution of jazz", 3, "the evolution of jazz", "history", "jazz"),
    ("a presentation: tea vs coffee", None, "tea vs coffee", "comparison", "tea and coffee"),
    ("a short talk on quantum computing for beginners", None, "quantum computing", "concept", "quantum computing"),
    ("a guide to sourdough baking in 7 slides", 7, "a guide to sourdough baking", "how-to", "sourdough baking"),
    ("a deck on the differences between TCP and UDP", None, "the differences between TCP and UDP", "comparison",
     "TCP and UDP"),
    ("Zero-waste coffee shops in small towns", None, "Zero-waste coffee shops in small towns", "concept",
     "zero-waste coffee shops in small towns"),
    ("how vaccines work", None, "how vaccines work", "process", "vaccines"),
])
def test_the_request_is_read_into_count_topic_and_kind(request_text: str, count: int | None, topic: str, kind: str,
                                                       subject: str) -> None:
    read = read_deck_request(request_text)
    assert (read.n_slides, read.topic, read.kind, read.subject) == (count, topic, kind, subject)


@pytest.mark.parametrize("request_text", [
    BICYCLE, HOW_TO, COMPARISON, DIFFUSION, "a 12-slide lecture on the story of the printing press",
    "slides: how to set up a home network", "a deck about inflation", "a lecture deck on photosynthesis",
])
@pytest.mark.parametrize("n_slides", [2, 4, 7, 12, 20])
def test_no_title_names_the_deck_itself(request_text: str, n_slides: int) -> None:
    titles = [s.title for s in plan_slides(request_text, n_slides)]
    assert len(titles) == n_slides and len(set(titles)) == n_slides
    assert not [t for t in titles if DECK_WORDS.search(t)], titles


def make_deck(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    grant = runtime.grant_for("make a deck about urban beekeeping")
    call = ToolCall(action_id=new_id(), tool="skill__slides", args=args)
    result = runtime.bridge.submit(call, grant, Usage(), thread_id="content-slides")
    assert result.verdict == "allow" and "error" not in result.observation, result
    return result.observation


def read_pptx(runtime: Runtime, deck: dict[str, Any]) -> list[tuple[str, str]]:
    """(title, body text) of every slide of the stored .pptx."""
    (handle,) = runtime.project.store.get_node(deck["deck_id"]).outputs
    presentation = Presentation(io.BytesIO(runtime.project.artifacts.read_bytes(handle)))
    slides = []
    for slide in presentation.slides:
        body = " ".join(sh.text_frame.text for sh in slide.shapes if sh.has_text_frame and sh != slide.shapes.title)
        slides.append((slide.shapes.title.text, body))
    return slides


@pytest.fixture(scope="module")
def decks(runtime: Runtime) -> dict[str, dict[str, Any]]:
    """The whole request as the topic (no n_slides: the count is read from the words)."""
    return {name: make_deck(runtime, {"topic": text})
            for name, text in (("bicycle", BICYCLE), ("how-to", HOW_TO), ("comparison", COMPARISON))}


def test_the_bicycle_deck_is_about_the_bicycle(runtime: Runtime, decks) -> None:
    slides = read_pptx(runtime, decks["bicycle"])
    assert len(slides) == 4
    assert slides[0][0] == "The history of the bicycle"
    assert all("bicycle" in f"{title} {body}".lower() for title, body in slides), slides
    assert sum("bicycle" in title.lower() for title, _ in slides) >= 3
    assert not [t for t, _ in slides if DECK_WORDS.search(t)]
    outline = runtime.project.store.get_node(decks["bicycle"]["outline_id"])
    assert (outline.inputs["topic"], outline.inputs["kind"], outline.inputs["n_slides"]) == (
        "the history of the bicycle", "history", 4)


@pytest.mark.parametrize(("name", "words", "count"), [
    ("how-to", ("pour-over", "coffee", "brew"), 5),
    ("comparison", ("electric", "petrol", "cars"), 6),
])
def test_every_section_carries_the_topics_words(runtime: Runtime, decks, name: str, words: tuple[str, ...],
                                                count: int) -> None:
    slides = read_pptx(runtime, decks[name])
    assert len(slides) == count
    text = " ".join(f"{t} {b}" for t, b in slides).lower()
    assert all(w in text for w in words)
    content_titles = [t.lower() for t, _ in slides[1:-1]]
    assert all(any(w in t for w in words) for t in content_titles), content_titles
    assert not [t for t, _ in slides if DECK_WORDS.search(t)]


def test_the_previews_show_a_light_slide_and_the_illustration_in_colour(runtime: Runtime, decks) -> None:
    store, artifacts = runtime.project.store, runtime.project.artifacts
    deck = decks["bicycle"]
    pictured = {n.node.id for n in store.neighbours(deck["illustration_id"], [EdgeType.GENERATED_FROM])}
    measured = []
    for slide_id, content_id in zip(deck["slide_ids"], deck["content_ids"], strict=True):
        (preview,) = store.get_node(slide_id).outputs
        measured.append((content_id in pictured, *luma_and_saturation(artifacts.read_bytes(preview))))
    assert all(luma > 200 for _, luma, _ in measured)  # dark text on a white slide
    with_picture = [s for has, _, s in measured if has]
    without = [s for has, _, s in measured if not has]
    assert len(with_picture) == 1 and with_picture[0] > max(without) + 0.02


def test_the_demo_request_through_the_planner_gives_slides_about_diffusion_models(runtime: Runtime) -> None:
    outcome = runtime.run(DIFFUSION)
    assert outcome.outcome == "replied", outcome.reply
    deck = runtime.project.store.find_nodes(kind="deck")[-1]
    slides = read_pptx(runtime, {"deck_id": deck.id})
    assert len(slides) == 5
    assert slides[0][0] == "How diffusion models generate images"
    assert all("diffusion models" in t.lower() for t, _ in slides[1:-1])
    assert not [t for t, _ in slides if DECK_WORDS.search(t)]


@pytest.mark.parametrize(("topic", "message"), [
    ("a 30-slide deck about the history of the bicycle", "asks for 30 slides; a deck has 2 to 20"),
    ("make a 5-slide lecture deck", "not what it is about"),
])
def test_a_request_the_skill_cannot_honour_is_refused_before_anything_is_made(runtime: Runtime, topic: str,
                                                                              message: str) -> None:
    before = runtime.project.store.canvas_version()
    grant = runtime.grant_for("make a deck about urban beekeeping")
    call = ToolCall(action_id=new_id(), tool="skill__slides", args={"topic": topic})
    result = runtime.bridge.submit(call, grant, Usage(), thread_id="content-slides")
    assert message in result.observation["error"]
    assert runtime.project.store.canvas_version() == before
