"""Two films in one project, end to end: a shot named by its place or every shot names no film, so the turn asks.

Before, "make the last shot night" with two storyboards on the canvas went to the newest film and exited 0: a
person who meant the other film read a report of work done on the wrong one.  Here two 3-shot films are made by the
offline planner on one project with its own engine, and each request runs through ``Runtime.run``, its answer
(``Runtime.resume``), the selection, a model that acts without asking, and the CLI in a subprocess.  The effect is
read on the canvas: the lighting of each film's current images, and the output hashes of the film not asked about.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from jarvishub.commands.outcomes import exit_code, result_of
from jarvishub.runtime import Runtime
from nodes.models.scripted import ScriptedModel
from tests.cli_run import cli
from tests.tools.story_ops import current, hashes, make_story

pytestmark = pytest.mark.long_file(40)

KEEPER = "a keeper finds a bottle on the rocks"
FERRY = "a ferry crosses a frozen bay at dawn"

LEDGER: list[tuple[str, str, str]] = []
"""(request, the result it should have, the result it had): every turn of the module."""


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """The CLI runs on this project's folder, so its canvas is in the folder's own engine."""
    return own_engine_project


@pytest.fixture(scope="module")
def films(runtime: Runtime) -> dict[str, dict[str, Any]]:
    return {"keeper": make_story(runtime, KEEPER), "ferry": make_story(runtime, FERRY)}


def lighting(runtime: Runtime, film: dict[str, Any]) -> list[str | None]:
    """Each shot's current image's lighting, in story order."""
    return [current(runtime.project.store, image).inputs.get("lighting") for image in film["images"]]


def turn(runtime: Runtime, request: str, expect: str = "done", **kwargs: Any) -> Any:
    outcome = runtime.run(request, **kwargs)
    LEDGER.append((request, expect, result_of(outcome)))
    return outcome


def test_the_last_shot_of_two_films_is_asked_about_and_the_answer_picks_the_film(
        runtime: Runtime, films: dict[str, dict[str, Any]]) -> None:
    keeper, ferry = films["keeper"], films["ferry"]
    store = runtime.project.store
    keeper_before, ferry_before = lighting(runtime, keeper), lighting(runtime, ferry)
    ferry_hashes = hashes(store, ferry)

    asked = turn(runtime, "make the last shot night", expect="paused")
    question = asked.interrupt or {}
    assert asked.outcome == "interrupted" and question.get("reason") == "ambiguous", asked.reply
    candidates = question["candidates"]
    assert [c["kind"] for c in candidates] == ["storyboard", "storyboard"], candidates
    assert lighting(runtime, keeper) == keeper_before and lighting(runtime, ferry) == ferry_before

    # The older film, not the newest: the answer is the film's id, as the question says.
    (older,) = [c for c in candidates if "keeper" in c["title"].lower()]
    answered = runtime.resume(asked.thread_id, older["id"])
    LEDGER.append(("make the last shot night (answered: the keeper film)", "done", result_of(answered)))
    assert answered.outcome == "replied" and answered.measured["matches"], answered.reply
    assert lighting(runtime, keeper) == [*keeper_before[:-1], "night"]
    assert hashes(store, ferry) == ferry_hashes


def test_a_selected_shot_picks_its_film_for_numbered_shots_and_every_shot(
        runtime: Runtime, films: dict[str, dict[str, Any]]) -> None:
    keeper, ferry = films["keeper"], films["ferry"]
    store = runtime.project.store
    keeper_hashes = hashes(store, keeper)
    ferry_before = lighting(runtime, ferry)

    selected = [current(store, ferry["images"][0]).id]  # the ferry film's first image, as the web canvas sends it
    out = turn(runtime, "make shot 2 overcast", selected=selected)
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert lighting(runtime, ferry) == [ferry_before[0], "overcast", ferry_before[2]]
    assert hashes(store, keeper) == keeper_hashes

    out = turn(runtime, "make every shot dusk", selected=selected)
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert lighting(runtime, ferry) == ["dusk", "dusk", "dusk"]
    assert hashes(store, keeper) == keeper_hashes


def test_a_film_named_by_a_word_of_its_title_is_the_one_edited(
        runtime: Runtime, films: dict[str, dict[str, Any]]) -> None:
    """"shot 2 of the keeper film": the words name the older film (they win over a selection of the other)."""
    keeper, ferry = films["keeper"], films["ferry"]
    store = runtime.project.store
    keeper_before, ferry_hashes = lighting(runtime, keeper), hashes(store, ferry)
    selected = [current(store, ferry["images"][0]).id]
    out = turn(runtime, "make shot 2 of the keeper film rainy", selected=selected)
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    weather = [current(store, image).inputs.get("weather") for image in keeper["images"]]
    assert weather[1] == "rain" and lighting(runtime, keeper) == keeper_before
    assert hashes(store, ferry) == ferry_hashes


def test_a_model_that_picks_a_film_without_asking_is_not_done(
        make_runtime: Any, runtime: Runtime, films: dict[str, dict[str, Any]]) -> None:
    """A model that edits one film's first shot without asking made a choice nobody made: the edit is on the canvas
    (the grant holds every film's shots, as either answer needs), and the turn is failed, its reply naming both."""
    keeper = films["keeper"]
    image = current(runtime.project.store, keeper["images"][0]).id
    picker = make_runtime(model=ScriptedModel(script=[
        {"name": "repair", "args": {"targets": [image], "changes": {image: {"lighting": "night"}}}}, "Made it night."]))
    out = picker.run("make the first shot night")
    LEDGER.append(("make the first shot night (a model that picks a film)", "failed", result_of(out)))
    assert lighting(runtime, keeper)[0] == "night", out.steps
    assert out.outcome == "failed" and exit_code(out) == 1, out.reply
    assert "without asking which" in out.reply


def test_the_cut_of_two_films_is_asked_about_unless_a_film_is_named(
        runtime: Runtime, films: dict[str, dict[str, Any]]) -> None:
    """"the cut" and "the last shot" of a cut name no film: before, a version tool took the newer film's cut and
    exited 0.  "shot 2 of the ferry film" takes that shot out of the ferry film's cut only."""
    keeper, ferry = films["keeper"], films["ferry"]
    store = runtime.project.store

    def in_cut(film: dict[str, Any]) -> list[str]:
        return list(current(store, film["cut"]).inputs["clip_node_ids"])

    keeper_cut, ferry_cut, keeper_hashes = in_cut(keeper), in_cut(ferry), hashes(store, keeper)
    for request in ("move the last shot to the start of the cut", "undo the last change to the cut"):
        asked = turn(runtime, request, expect="paused")
        question = asked.interrupt or {}
        assert asked.outcome == "interrupted" and question.get("reason") == "ambiguous", asked.reply
        assert [c["kind"] for c in question["candidates"]] == ["storyboard", "storyboard"], question
    assert in_cut(keeper) == keeper_cut and in_cut(ferry) == ferry_cut

    out = turn(runtime, "remove shot 2 of the ferry film from the cut")
    assert exit_code(out) == 0 and out.measured["matches"], out.reply
    assert in_cut(ferry) == [ferry_cut[0], ferry_cut[2]]
    assert in_cut(keeper) == keeper_cut and hashes(store, keeper) == keeper_hashes


def test_a_film_named_in_a_question_is_the_one_counted_and_listed(
        runtime: Runtime, films: dict[str, dict[str, Any]]) -> None:
    out = turn(runtime, "how many shots are in the ferry film?")
    assert exit_code(out) == 0 and out.reply.startswith("3 found: the film has 3 shots"), out.reply
    out = turn(runtime, "how many shots are there?")
    assert exit_code(out) == 0 and "6 found" in out.reply, out.reply
    out = turn(runtime, "which shots are in the keeper film?")  # every film's shots were listed
    listed = re.findall(r"^- shot \d+ \(image v\d+\) (\S+)$", out.reply, flags=re.M)
    assert exit_code(out) == 0 and listed == films["keeper"]["shots"], out.reply
    out = turn(runtime, "which shots are at night?")  # the keeper film's first and last, made night above
    said = r"2 shots with lighting night: shot 1 of '[^']*keeper[^']*' \(image v\d+\), shot 3 of '[^']*keeper"
    assert exit_code(out) == 0 and re.match(said, out.reply), out.reply


def test_the_cli_pauses_on_every_shot_of_two_films(runtime: Runtime, films: dict[str, dict[str, Any]]) -> None:
    store = runtime.project.store
    before = {name: hashes(store, film) for name, film in films.items()}
    ran = cli("-C", str(runtime.project.root), "run", "make every shot snowy")
    LEDGER.append(("make every shot snowy (CLI, two films)", "paused",
                   "paused" if ran.returncode == 5 else str(ran.returncode)))
    assert ran.returncode == 5, ran.stdout + ran.stderr
    assert "2 films" in ran.stdout and "keeper" in ran.stdout.lower() and "ferry" in ran.stdout.lower(), ran.stdout
    assert {name: hashes(store, film) for name, film in films.items()} == before


def test_no_turn_exited_0_without_its_effect() -> None:
    """The count of wrong successes over every turn above: a turn reported done where it should not be."""
    assert LEDGER, "the turns above ran first"
    wrong = [(r, want, got) for r, want, got in LEDGER if got == "done" and want != "done"]
    assert wrong == [] and [(r, want, got) for r, want, got in LEDGER if want != got] == []
