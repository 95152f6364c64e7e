"""A new story's report is measured: a model that stops partway through the narrative workflow and says "done"
exits 1 and names what it did not make (the chaos run's false claim after a storyboard and some pictures)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from jarvishub.commands.outcomes import exit_code
from nodes.models.scripted import ScriptedModel, tool_call
from tests.requests.canvas_checks import _last_observation

PREMISE = "a 3-shot short drama about a glass harbour and a night tram"


def test_a_story_claimed_done_after_one_picture_of_three_exits_1_and_names_the_rest(make_runtime) -> None:
    def one_picture(messages: list[Any]) -> AIMessage:
        board = _last_observation(messages)
        return tool_call("skill__reference_images", {"shot_ids": board["shot_ids"][:1], "width": 96, "height": 64},
                         "c1")

    model = ScriptedModel(script=[{"name": "skill__storyboard", "args": {"premise": PREMISE, "n_shots": 3}},
                                  one_picture, "Built the 3-shot drama: storyboard, pictures, clips and the cut."])
    outcome = make_runtime(model=model).run(PREMISE)
    assert exit_code(outcome) == 1, (outcome.outcome, outcome.reply)
    missing = outcome.measured["missing"]
    assert {"shot 2 image", "shot 3 image", "shot 1 clip", "the cut"} <= set(missing), missing
    assert "shot 2 image" in outcome.reply


def test_a_story_told_too_short_is_not_the_one_asked_for(make_runtime) -> None:
    def pictures(messages: list[Any]) -> AIMessage:
        board = _last_observation(messages)
        return tool_call("skill__reference_images", {"shot_ids": board["shot_ids"], "width": 96, "height": 64}, "c1")

    def clips(messages: list[Any]) -> AIMessage:
        images = _last_observation(messages)["image_ids"]
        return tool_call("skill__video_clips", {"image_ids": images, "duration_s": 0.5, "fps": 6}, "c2")

    def cut(messages: list[Any]) -> AIMessage:
        made = _last_observation(messages)["clip_ids"]
        return tool_call("assemble_cut", {"clip_node_ids": made, "title": "final cut"}, "c3")

    model = ScriptedModel(script=[{"name": "skill__storyboard", "args": {"premise": PREMISE, "n_shots": 2}},
                                  pictures, clips, cut, "Built it."])
    outcome = make_runtime(model=model).run(PREMISE)
    assert exit_code(outcome) == 1, (outcome.outcome, outcome.reply)
    assert outcome.measured["missing"] == ["3 shots (made 2)"], outcome.measured


def test_the_whole_story_made_as_asked_is_done(make_runtime) -> None:
    outcome = make_runtime().run("a 2-shot short drama about a kite maker on a windy pier")
    assert exit_code(outcome) == 0, (outcome.outcome, outcome.reply)
    assert outcome.measured["checked"] and outcome.measured["missing"] == [], outcome.measured


DECK = "a 5-slide deck about how tides work"


def test_a_deck_made_shorter_than_asked_exits_1_and_says_how_many(make_runtime) -> None:
    model = ScriptedModel(script=[{"name": "skill__slides", "args": {"topic": "how tides work", "n_slides": 3}},
                                  "Built the 5-slide deck about tides."])
    outcome = make_runtime(model=model).run(DECK)
    assert exit_code(outcome) == 1, (outcome.outcome, outcome.reply)
    assert outcome.measured["missing"] == ["5 slides (made 3)"], outcome.measured
    assert "5 slides (made 3)" in outcome.reply


def test_a_deck_or_page_claimed_with_nothing_made_exits_1(make_runtime) -> None:
    for request, missing in ((DECK, "a new deck (none was made)"),
                             ("a website for a ferry company", "a new web page (none was made)")):
        outcome = make_runtime(model=ScriptedModel(script=["Done: it is built."])).run(request)
        assert exit_code(outcome) == 1, (request, outcome.outcome, outcome.reply)
        assert missing in outcome.measured["missing"], outcome.measured


def test_a_deck_built_as_asked_is_done_and_leaves_the_story_alone(make_runtime) -> None:
    outcome = make_runtime().run("a 4-slide deck about lighthouse keepers")
    assert exit_code(outcome) == 0, (outcome.outcome, outcome.reply)
    assert outcome.measured["checked"], outcome.measured
    assert outcome.measured["missing"] == [] and outcome.measured["unexpected"] == [], outcome.measured
