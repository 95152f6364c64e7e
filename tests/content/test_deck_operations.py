"""Deck operations through the bridge on a real project: the same deck's new versions, measured in the .pptx.

A deck is made once (the slides skill, offline illustration, python-pptx); each test changes it the way an agent
does, with one deck tool through ``Bridge.submit``, and reads the result where a person would: the .pptx's slide
titles (python-pptx), the slide previews' hashes (the slides not touched keep theirs), the canvas (one deck lineage,
never a second deck), and undo giving back the very same .pptx bytes.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image
from pptx import Presentation

from jarvishub import outputs
from jarvishub.runtime import Runtime
from nodes.grant import Grant, Scope
from nodes.models.scripted import ScriptedModel
from store.models import CanvasNode, EdgeType, NodeStatus
from tests.content.agent import call, submit
from tests.content.measure import luma_and_saturation
from tools.deck import deck_scope
from tools.deck.canvas import current_decks, find_deck, read_deck
from tools.deck.document import THEMES

TOPIC = "a 5-slide deck on how solar panels turn light into power"


@pytest.fixture(scope="module")
def deck(runtime: Runtime) -> dict[str, Any]:
    return call(runtime, "skill__slides", topic=TOPIC)


def head(runtime: Runtime) -> CanvasNode:
    return find_deck(runtime.project.store, None)


def titles(runtime: Runtime, deck_node: CanvasNode) -> list[str]:
    (pptx,) = deck_node.outputs
    return [s.shapes.title.text for s in Presentation(io.BytesIO(runtime.project.artifacts.read_bytes(pptx))).slides]


def previews(runtime: Runtime, deck_node: CanvasNode) -> list[str]:
    """Each slide's preview hash, in slide order."""
    return [s.node.outputs[0].sha256 for s in read_deck(runtime.project.store, deck_node).slides]


def assert_one_deck(runtime: Runtime, deck: dict[str, Any]) -> None:
    """Every deck node is a version of the one the skill made: no second deck was built."""
    store = runtime.project.store
    decks = store.find_nodes(kind="deck")
    roots = {d.id for d in decks if not store.neighbours(d.id, [EdgeType.VERSION_OF])}
    assert roots == {deck["deck_id"]} and [d.id for d in current_decks(store)] == [head(runtime).id]


def test_retitling_a_slide_changes_that_slide_only(runtime: Runtime, deck: dict[str, Any]) -> None:
    old = head(runtime)
    before_titles, before_previews = titles(runtime, old), previews(runtime, old)
    result = call(runtime, "deck_edit_slide", slide=2, title="Why now")
    new = runtime.project.store.get_node(result["deck_id"])
    assert titles(runtime, new) == [before_titles[0], "Why now", *before_titles[2:]]
    after = previews(runtime, new)
    assert after[1] != before_previews[1] and after[:1] + after[2:] == before_previews[:1] + before_previews[2:]
    assert result["previews_drawn"] == 1
    assert [n.node.id for n in runtime.project.store.neighbours(new.id, [EdgeType.VERSION_OF])] == [old.id]
    assert runtime.project.store.get_node(old.id).status == NodeStatus.REJECTED
    # The slide's words have a new version too: the new slide node is made from them.
    slide = read_deck(runtime.project.store, new).slides[1]
    assert slide.content is not None and slide.content.inputs["title"] == "Why now"
    assert slide.content.id in slide.spec.source_node_ids
    assert_one_deck(runtime, deck)


def test_adding_a_slide_about_something_after_slide_n(runtime: Runtime, deck: dict[str, Any]) -> None:
    old = head(runtime)
    before_previews = previews(runtime, old)
    result = call(runtime, "deck_add_slide", after=2, about="the cost of a rooftop system")
    new = runtime.project.store.get_node(result["deck_id"])
    assert titles(runtime, new)[2] == "The cost of a rooftop system" and len(titles(runtime, new)) == 6
    after = previews(runtime, new)
    assert after[:2] + after[3:] == before_previews and result["previews_drawn"] == 1
    added = read_deck(runtime.project.store, new).slides[2]
    assert any("rooftop system" in b for b in added.spec.bullets)
    outline = runtime.project.store.get_node(deck["outline_id"])
    assert outline.id in {n.node.id for n in runtime.project.store.neighbours(added.content.id,
                                                                              [EdgeType.GENERATED_FROM])}
    assert_one_deck(runtime, deck)


def test_a_copied_slide_says_and_shows_what_its_original_does_and_undo_takes_only_the_copy_away(
        runtime: Runtime, deck: dict[str, Any]) -> None:
    """"duplicate slide 2": the copy, right after it, has its title, bullets, notes, pictures and the same preview
    pixels; it is a slide of its own (a new node, the original untouched); undo gives back the same .pptx bytes."""
    store = runtime.project.store
    old = head(runtime)
    before_titles, before_previews = titles(runtime, old), previews(runtime, old)
    illustrated = next(n for n, s in enumerate(read_deck(store, old).slides, start=1) if s.pictures)
    original = read_deck(store, old).slides[illustrated - 1]
    result = call(runtime, "deck_duplicate_slide", slide=illustrated)
    new = store.get_node(result["deck_id"])
    assert titles(runtime, new) == [*before_titles[:illustrated], before_titles[illustrated - 1],
                                    *before_titles[illustrated:]]
    copy = read_deck(store, new).slides[illustrated]
    assert copy.node.id != original.node.id and store.get_node(original.node.id).status != NodeStatus.REJECTED
    assert (copy.spec.bullets, copy.spec.notes, copy.spec.images) == (original.spec.bullets, original.spec.notes,
                                                                      original.spec.images)
    assert {p.id for p in copy.pictures} == {p.id for p in original.pictures} != set()
    with Image.open(io.BytesIO(runtime.project.artifacts.read_bytes(copy.node.outputs[0]))) as drawn, \
            Image.open(io.BytesIO(runtime.project.artifacts.read_bytes(original.node.outputs[0]))) as shown:
        assert drawn.tobytes() == shown.tobytes()
    after = previews(runtime, new)
    assert after[:illustrated] + after[illustrated + 1:] == before_previews and result["previews_drawn"] == 1
    assert new.inputs["change"]["op"] == "duplicate_slide"
    undone = call(runtime, "deck_undo")
    assert store.get_node(undone["deck_id"]).outputs[0].sha256 == old.outputs[0].sha256
    assert_one_deck(runtime, deck)


def test_deleting_the_last_slide_makes_a_version_of_the_same_deck(runtime: Runtime, deck: dict[str, Any]) -> None:
    old = head(runtime)
    before_titles, before_previews = titles(runtime, old), previews(runtime, old)
    last = read_deck(runtime.project.store, old).slides[-1].node
    result = call(runtime, "deck_delete_slide", slide=-1)
    new = runtime.project.store.get_node(result["deck_id"])
    assert titles(runtime, new) == before_titles[:-1] and previews(runtime, new) == before_previews[:-1]
    assert result["previews_drawn"] == 0
    assert runtime.project.store.get_node(last.id).status == NodeStatus.REJECTED  # kept, set aside
    assert_one_deck(runtime, deck)


def test_moving_a_slide(runtime: Runtime, deck: dict[str, Any]) -> None:
    old = head(runtime)
    before_titles, before_previews = titles(runtime, old), previews(runtime, old)
    result = call(runtime, "deck_move_slide", slide=1, to=3)
    new = runtime.project.store.get_node(result["deck_id"])
    order = [1, 2, 0, 3, 4]
    assert titles(runtime, new) == [before_titles[i] for i in order]
    assert previews(runtime, new) == [before_previews[i] for i in order] and result["previews_drawn"] == 0
    assert [runtime.project.store.get_node(i).inputs["index"] for i in new.inputs["slide_ids"]] == [1, 2, 3, 4, 5]


def test_new_bullets_are_what_the_slide_says_in_the_pptx(runtime: Runtime, deck: dict[str, Any]) -> None:
    old = head(runtime)
    before_previews = previews(runtime, old)
    bullets = ["Panels last 25 years or more", "Output drops about half a percent a year"]
    result = call(runtime, "deck_edit_slide", slide=4, bullets=bullets)
    new = runtime.project.store.get_node(result["deck_id"])
    (pptx,) = new.outputs
    slide = list(Presentation(io.BytesIO(runtime.project.artifacts.read_bytes(pptx))).slides)[3]
    body = [shape for shape in slide.placeholders if shape.placeholder_format.idx == 1][0]
    assert [p.text for p in body.text_frame.paragraphs] == bullets
    after = previews(runtime, new)
    assert [i for i, (a, b) in enumerate(zip(before_previews, after, strict=True)) if a != b] == [3]
    assert "bullets" in new.inputs["change"]["summary"]


def test_regenerating_one_illustration_redraws_only_its_slide(runtime: Runtime, deck: dict[str, Any]) -> None:
    store = runtime.project.store
    old = head(runtime)
    slides = read_deck(store, old).slides
    number = next(n for n, s in enumerate(slides, start=1) if s.pictures)
    picture = slides[number - 1].pictures[0]
    before_previews = previews(runtime, old)
    result = submit(runtime, "deck_regenerate_illustration", slide=number)
    assert result.verdict == "allow" and "error" not in result.observation, result
    assert result.provider_calls == 1
    new = store.get_node(result.observation["deck_id"])
    fresh = store.get_node(result.observation["illustration_id"])
    assert fresh.outputs[0].sha256 != picture.outputs[0].sha256
    assert [n.node.id for n in store.neighbours(fresh.id, [EdgeType.VERSION_OF])] == [picture.id]
    after = previews(runtime, new)
    changed = [i for i, (a, b) in enumerate(zip(before_previews, after, strict=True)) if a != b]
    assert changed == [number - 1]
    no_picture = submit(runtime, "deck_regenerate_illustration",
                        slide=next(n for n, s in enumerate(slides, start=1) if not s.pictures))
    assert no_picture.observation["error_type"] == "NoIllustration"


def test_undo_gives_back_the_same_pptx_and_keeps_later_changes(runtime: Runtime, deck: dict[str, Any]) -> None:
    """Runs after the tests above: the retitle of slide 2 came first, then an added, a deleted and a moved slide,
    new bullets and a new illustration."""
    store = runtime.project.store
    before = head(runtime)
    undo_last = call(runtime, "deck_undo")  # the new illustration
    assert "illustration" in undo_last["change"]["summary"]
    picture_back = store.get_node(undo_last["deck_id"])
    restored = [p for s in read_deck(store, picture_back).slides for p in s.pictures]
    assert restored and restored[0].inputs["restored_from"]  # the old picture's bytes, as a new version
    undo_retitle = call(runtime, "deck_undo", change="the retitle")
    now = titles(runtime, store.get_node(undo_retitle["deck_id"]))
    assert "Why now" not in now and "The cost of a rooftop system" in now  # the later added slide stays
    # Taking everything back, newest first, gives the skill's .pptx byte for byte.
    while True:
        result = submit(runtime, "deck_undo")
        if "error" in result.observation:
            assert result.observation["error_type"] == "NothingToUndo"
            break
    assert head(runtime).outputs[0].sha256 == store.get_node(deck["deck_id"]).outputs[0].sha256
    assert previews(runtime, head(runtime)) == previews(runtime, store.get_node(deck["deck_id"]))
    assert head(runtime).id != before.id
    assert_one_deck(runtime, deck)


def test_a_new_theme_redraws_every_slide_and_keeps_words_and_pictures(runtime: Runtime,
                                                                      deck: dict[str, Any]) -> None:
    store = runtime.project.store
    old = head(runtime)
    result = call(runtime, "deck_set_theme", theme="dark")
    new = store.get_node(result["deck_id"])
    assert titles(runtime, new) == titles(runtime, old) and result["previews_drawn"] == len(titles(runtime, old))
    first = read_deck(store, new).slides[0].node
    assert luma_and_saturation(runtime.project.artifacts.read_bytes(first.outputs[0]))[0] < 80  # dark slides
    shown = Presentation(io.BytesIO(runtime.project.artifacts.read_bytes(new.outputs[0]))).slides[0]
    assert str(shown.background.fill.fore_color.rgb) == "1E2129"  # the .pptx is dark too
    pictures = [p.id for s in read_deck(store, old).slides for p in s.pictures]
    assert [p.id for s in read_deck(store, new).slides for p in s.pictures] == pictures
    back = call(runtime, "deck_revert", before_change="the dark theme")
    assert store.get_node(back["deck_id"]).outputs[0].sha256 == old.outputs[0].sha256


@pytest.mark.parametrize(("tool", "args", "error_type", "message"), [
    ("deck_delete_slide", {"slide": 9}, "NoSuchSlide", "no slide 9; it has 5 slides"),
    ("deck_duplicate_slide", {"slide": 2, "after": 7}, "NoSuchSlide", "no slide 7 to put the copy after"),
    ("deck_move_slide", {"slide": 2, "to": 0}, "NoSuchSlide", "no place 0"),
    ("deck_set_theme", {"theme": "sparkly"}, "UnknownTheme", "not a theme"),
    ("deck_edit_slide", {"slide": 1}, "DeckEditRefused", "at least one of title, bullets, notes"),
    ("deck_revert", {"to": "v42"}, "NoSuchVersion", "has no version 'v42'"),
    ("deck_undo", {"change": "the neon change"}, "NoSuchVersion", "no change of this deck matches"),
])
def test_bad_requests_are_typed_errors_and_change_nothing(runtime: Runtime, deck: dict[str, Any], tool: str,
                                                          args: dict[str, Any], error_type: str, message: str) -> None:
    before = runtime.project.store.canvas_version()
    result = submit(runtime, tool, **args)
    assert result.observation["error_type"] == error_type and message in result.observation["error"], result
    assert runtime.project.store.canvas_version() == before


def test_a_scripted_model_calls_every_deck_tool_in_one_turn_under_the_smallest_grant(
        make_runtime, runtime: Runtime, deck: dict[str, Any]) -> None:
    """Each tool's schema is bound to the model, each call is validated, run and committed as a step of the turn."""
    store = runtime.project.store
    illustrated = next(n for n, s in enumerate(read_deck(store, head(runtime)).slides, start=1) if s.pictures)
    steps = [("deck_read", {"mentioning": "solar"}), ("deck_edit_slide", {"slide": 2, "title": "Why now"}),
             ("deck_add_slide", {"after": 1, "about": "net metering"}), ("deck_duplicate_slide", {"slide": 2}),
             ("deck_delete_slide", {"slide": 3}), ("deck_move_slide", {"slide": 2, "to": -1}),
             ("deck_delete_slide", {"slide": -1}), ("deck_set_theme", {"theme": "ocean"}),
             ("deck_regenerate_illustration", {"slide": illustrated}),  # back in its place after add-move-delete
             ("deck_undo", {}), ("deck_revert", {"before_change": "the ocean theme"})]
    grant = Grant(tools=[tool for tool, _ in steps], scope=Scope(all_nodes=False, node_ids=deck_scope(store, None)))
    model = ScriptedModel(script=[*({"name": tool, "args": args} for tool, args in steps), "Done."])
    outcome = make_runtime(model=model).run("rework the deck", grant=grant)
    assert outcome.outcome == "replied", outcome
    calls = [step["action"] for step in outcome.steps if step["action"]["kind"] == "tool_call"]
    assert [c["tool"] for c in calls] == [tool for tool, _ in steps]
    errors = [(s["action"].get("tool"), s["observation"]["error"]) for s in outcome.steps if "error" in s["observation"]]
    assert not errors, errors
    assert outcome.steps[0]["observation"]["mentioning"]  # every slide of a solar deck says "solar"
    now = titles(runtime, head(runtime))
    assert now[1] == "Why now" and "Net metering" not in now  # added, moved last, then deleted
    assert (read_deck(store, head(runtime)).spec.theme or THEMES["light"]).name == "light"  # reverted before ocean
    assert head(runtime).provenance.turn_id == outcome.turn_id
    assert_one_deck(runtime, deck)
    # Scoped to the deck node alone, an edit is refused at commit: it writes the slides too.
    narrow = Grant(tools=["deck_edit_slide"], scope=Scope(all_nodes=False, node_ids=[head(runtime).id]))
    before = store.canvas_version()
    refused = submit(runtime, "deck_edit_slide", grant=narrow, slide=2, title="Why not")
    assert refused.verdict == "reject" and "outside this grant's scope" in refused.message
    assert store.canvas_version() == before


def test_outputs_hold_the_current_deck_and_its_slides(runtime: Runtime, deck: dict[str, Any]) -> None:
    project = runtime.project
    placed = outputs.sync(project.root, project.store, project.artifacts)
    current = [f for f in placed if f.current]
    pptx = [f for f in current if f.path.endswith(".pptx")]
    assert [f.node_id for f in pptx] == [head(runtime).id] and pptx[0].path.startswith("slides/")
    slides = [f for f in current if f.kind == "slide"]
    assert sorted(f.node_id for f in slides) == sorted(head(runtime).inputs["slide_ids"])
    for file in slides:
        assert Image.open(project.root / "outputs" / file.path).size == (1280, 720)
