"""The request grammar on its own: targets, changes, comparatives, constraints and what it refuses to guess."""

from __future__ import annotations

import pytest

from nodes.models.edits import image_overrides
from nodes.models.grammar import (
    LIGHTING_WORDS,
    Clarification,
    EditRequest,
    StaleRepair,
    parse_edit,
    parse_targets,
)
from tools.generate.base import Lighting


@pytest.mark.parametrize("text, numbers, last, every, noun", [
    ("shot 3", [3], False, False, "shot"),
    ("shot three", [3], False, False, "shot"),
    ("the third shot", [3], False, False, "shot"),
    ("shots 2 and 4", [2, 4], False, False, "shot"),
    ("shot 2 and shot 4", [2, 4], False, False, "shot"),
    ("shots 2-4", [2, 3, 4], False, False, "shot"),
    ("shots 4 to 6", [4, 5, 6], False, False, "shot"),
    ("shots 3, 5 and 7", [3, 5, 7], False, False, "shot"),
    ("the last shot", [], True, False, "shot"),
    ("the final shot", [], True, False, "shot"),
    ("every shot", [], False, True, "shot"),
    ("all shots", [], False, True, "shot"),
    ("image 3", [3], False, False, "image"),
    ("shot #12", [12], False, False, "shot"),
])
def test_targets(text, numbers, last, every, noun):
    from nodes.models.grammar import normalise

    targets = parse_targets(normalise(text))
    assert targets is not None
    assert (targets.numbers, targets.last, targets.every, targets.noun) == (numbers, last, every, noun)


@pytest.mark.parametrize("text", ["a 6-shot short drama about a lighthouse", "make the hero full-bleed",
                                  "how many images are there", "note: buy milk"])
def test_requests_that_name_no_shot_are_not_edits(text):
    assert parse_edit(text) is None


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
    edit = parse_edit(request_text)
    assert isinstance(edit, EditRequest)
    assert (edit.changes, edit.relative, edit.keep) == (changes, relative, keep)


def test_redo_without_a_value_is_a_different_lighting_or_another_take_never_a_guess():
    lighting = parse_edit("keep the character but redo the lighting on shot 7")
    take = parse_edit("redo shot 4")
    assert isinstance(lighting, EditRequest) and lighting.redo == "lighting"
    assert isinstance(take, EditRequest) and take.redo == "take"
    assert image_overrides(lighting, {"lighting": "night"})["lighting"] != "night"
    assert image_overrides(take, {"seed": 4})["seed"] == 5


def test_comparatives_move_the_current_values():
    darker = parse_edit("shot 2 darker")
    assert isinstance(darker, EditRequest)
    first = image_overrides(darker, {})
    second = image_overrides(darker, {"exposure": first["exposure"]})
    assert second["exposure"] < first["exposure"] < 0
    assert first["intent"] == {"relative": {"luma": "lower"}}
    warmer = parse_edit("shot 2 warmer")
    assert isinstance(warmer, EditRequest) and image_overrides(warmer, {"temperature": 1.0})["temperature"] == 2.0


@pytest.mark.parametrize("request_text, reason", [
    ("make shot 3 more mysterious", "unparsed"),
    ("shot 3 wider but same composition", "conflict"),
])
def test_what_the_grammar_cannot_do_is_a_clarification_saying_what_it_understood(request_text, reason):
    answer = parse_edit(request_text)
    assert isinstance(answer, Clarification) and answer.reason == reason
    assert "target: shot 3" in answer.understood
    payload = answer.payload()
    assert payload["type"] == "clarification" and "lighting" in payload["can_do"]


def test_regenerate_what_is_stale():
    assert isinstance(parse_edit("regenerate what is stale"), StaleRepair)
    assert isinstance(parse_edit("please rebuild everything that is stale"), StaleRepair)
