"""A short slice of the long scenarios' new turn kinds, as ``jarvishub eval`` runs them: a person's own edit on
the web canvas between agent turns, and a second sitting on its own thread after the engine was stopped.

The canvas agent must pass every check; the chat baseline, whose memory is its thread, must miss exactly
what happened outside it (the person's edit, the first sitting's film), and pass the rest.
"""

from __future__ import annotations

import tomllib

import pytest

from jarvishub.evaluation.runner import run_scenario
from jarvishub.evaluation.scenario import Scenario

pytestmark = pytest.mark.long_file(60)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

SLICE = Scenario.model_validate(tomllib.loads('''
name = "slice"
workflow = "narrative"
description = "a person's web edit, then a second sitting"

[[turns]]
kind = "create"
request = "a 3-shot short drama about a beekeeper"
[[turns.checks]]
type = "count"
kind = "image"
equals = 3

[[turns]]
kind = "person"
request = "the person sets shot 2's lighting to night on the web canvas"
[turns.person]
action = "edit"
ref = "shot 2"
inputs = { lighting = "night" }
[[turns.checks]]
type = "outcome"
equals = "replied"

[[turns]]
kind = "edit"
request = "regenerate what is stale"
targets = ["shot 2"]
[[turns.checks]]
type = "changed_only"
[[turns.checks]]
type = "measure"
ref = "shot 2"
attribute = "luma"
compare = "lower"

[[turns]]
kind = "edit"
request = "make shot 3 darker"
targets = ["shot 3"]
session = 2
restart = true
[[turns.checks]]
type = "changed_only"
[[turns.checks]]
type = "verify"
'''))


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("long")


@pytest.fixture(scope="module")
def canvas(out):
    return run_scenario(SLICE, "canvas", "offline", out)


def test_the_canvas_agent_builds_on_the_persons_edit_and_the_earlier_sitting(canvas):
    failed = [(t.index, c.name, c.detail) for t in canvas.turns for c in t.checks if not c.passed]
    assert canvas.error is None and failed == [] and canvas.passed
    person, regenerated, second = canvas.turns[1:]
    assert person.turn_ids == [] and person.metrics.model_calls == 0  # no agent turn: the person's own edit
    assert regenerated.metrics.changed == ["final cut", "shot 2 clip", "shot 2 image"]
    assert second.thread_id not in (canvas.turns[0].thread_id, regenerated.thread_id)
    assert second.metrics.changed == ["final cut", "shot 3 clip", "shot 3 image"]


def test_the_chat_baseline_misses_what_is_not_in_its_thread(out, canvas):
    chat = run_scenario(SLICE, "chat", "offline", out)
    assert chat.error is None and all(t.error is None for t in chat.turns)
    by_turn = [[c.passed for c in t.checks] for t in chat.turns]
    assert by_turn[:2] == [[True], [True]]
    assert by_turn[2] == [False, False]  # what the person made stale is not in its transcript
    assert chat.turns[3].outcome == "clarification" and by_turn[3] == [False, True]  # "no shot 3 in my transcript"
    assert chat.totals.checks_passed < canvas.totals.checks_passed
