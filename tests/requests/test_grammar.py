"""The shot-edit grammar through the interpreter: changes, comparatives, constraints, and what it refuses to guess."""

from __future__ import annotations

import pytest

from nodes.models.edits import image_overrides
from nodes.models.grammar import LIGHTING_WORDS, EditRequest
from nodes.understanding import CanvasFacts, ShotFact, interpret
from tools.generate.base import Lighting

FACTS = CanvasFacts(shots=[ShotFact(id=f"S{n}", title=f"shot {n}", number=n, plan="P", image=f"I{n}", version=1)
                           for n in range(1, 10)])


def _edit(request: str) -> EditRequest:
    intent = interpret(request, FACTS)
    assert intent.clarification is None and intent.operation == "edit", intent.clarification
    [clause] = intent.clauses
    return EditRequest.model_validate(clause.modifications)


def test_the_lighting_vocabulary_has_at_least_15_presets_and_each_is_rendered():
    presets = {value for _, value in LIGHTING_WORDS}
    assert len(presets) >= 15
    assert presets <= {item.value for item in Lighting}


@pytest.mark.parametrize("request_text, changes, relative, keep", [
    ("make shot 3 night, keep the rest", {"lighting": "night"}, {}, ["rest"]),
    ("shot five should be at sunset", {"lighting": "sunset"}, {}, []),
    ("redo the second shot with warmer light but the same character", {}, {"warmth": "higher"}, ["character"]),
    ("change the lighting of shot 4 to dawn", {"lighting": "dawn"}, {}, []),
    ("redo shot 2 with a wider angle", {"framing": "wide"}, {}, []),
    ("change the character's coat to red in shot 4", {"outfit": "#d62828"}, {}, []),
    ("make shot 4 darker, it feels too bright", {}, {"luma": "lower"}, []),
    ("shot 3 is too dark", {}, {"luma": "higher"}, []),
    ("make shot 6 less blue", {}, {"blue": "lower"}, []),
    ("shot 6 is too warm", {}, {"warmth": "lower"}, []),
    ("make shot 1 snowy at dusk", {"weather": "snow", "lighting": "dusk"}, {}, []),
    ("no more rain in shot 5", {"weather": "clear"}, {}, []),
    ("same composition, but make shot 3 golden hour", {"lighting": "golden-hour"}, {}, ["composition"]),
    ("the last shot should be candle-lit", {"lighting": "candle-lit"}, {}, []),
    ("make shot 9 a close-up", {"framing": "close-up"}, {}, []),
])
def test_edits(request_text, changes, relative, keep):
    edit = _edit(request_text)
    assert (edit.changes, edit.relative, sorted(edit.keep)) == (changes, relative, sorted(keep))


def test_redo_without_a_value_is_a_different_lighting_or_another_take_never_a_guess():
    lighting = _edit("keep the character but redo the lighting on shot 7")
    take = _edit("redo shot 4")
    assert lighting.redo == "lighting" and take.redo == "take"
    assert image_overrides(lighting, {"lighting": "night"})["lighting"] != "night"
    assert image_overrides(take, {"seed": 4})["seed"] == 5


def test_comparatives_move_the_current_values():
    darker = _edit("shot 2 darker")
    first = image_overrides(darker, {})
    second = image_overrides(darker, {"exposure": first["exposure"]})
    assert second["exposure"] < first["exposure"] < 0
    assert first["intent"] == {"relative": {"luma": "lower"}}
    warmer = _edit("shot 2 warmer")
    assert image_overrides(warmer, {"temperature": 1.0})["temperature"] == 2.0


@pytest.mark.parametrize("request_text, steps", [
    ("make shot 2 much darker", {"luma": 2.0}), ("make shot 2 a lot darker", {"luma": 2.0}),
    ("make shot 2 very dark", {"luma": 2.0}), ("make shot 2 a bit darker", {"luma": 0.5}),
    ("darken shot 3 a little", {"luma": 0.5}), ("make shot 4 a little more warm", {"warmth": 0.5}),
    ("make shot 3 slightly warmer and much darker", {"warmth": 0.5, "luma": 2.0}),
    ("make shot 2 darker", {"luma": 1.0}), ("make shot 2 even darker", {"luma": 1.0}),
    # a step said again is two ("and then darker again" went one)
    ("make shot 3 darker, and then darker again", {"luma": 2.0}), ("shot 3 darker. shot 3 darker again", {"luma": 2.0}),
    ("make shot 3 darker, then darker", {"luma": 2.0}),
])
def test_a_degree_word_sets_how_far_a_comparative_goes(request_text, steps):
    """"much darker" went exactly as far as "darker": the degree was read as a filler and dropped."""
    edit = _edit(request_text)
    assert {attribute: edit.degree(attribute) for attribute in edit.relative} == steps
    moved = image_overrides(edit, {"exposure": 0.0, "temperature": 0.0})
    plain = image_overrides(EditRequest(relative=edit.relative), {"exposure": 0.0, "temperature": 0.0})
    for attribute, measure in (("luma", "exposure"), ("warmth", "temperature")):
        if attribute in steps:
            assert moved[measure] == pytest.approx(plain[measure] * steps[attribute])
    assert all(word in edit.describe() for word in ("much",) if 2.0 in steps.values())


@pytest.mark.parametrize("request_text, reason, unread", [
    ("make shot 3 more mysterious", "unparsed", ["mysterious"]),
    ("shot 3 wider but same composition", "conflict", []),
])
def test_what_the_grammar_cannot_do_is_a_clarification_saying_what_it_understood(request_text, reason, unread):
    intent = interpret(request_text, FACTS)
    assert intent.clarification is not None and intent.clarification.reason == reason
    assert any("shot 3" in u for u in intent.clarification.understood)
    assert intent.clarification.not_understood == unread
    assert intent.clarification.payload("lighting ...")["type"] == "clarification"


def test_regenerate_what_is_stale():
    assert interpret("regenerate what is stale", FACTS).operation == "stale_repair"
    assert interpret("please rebuild everything that is stale", FACTS).operation == "stale_repair"
