"""Requests that carry a second thing, end to end: each was done in part and reported done (exit 0).

A question and then a change ("what did you just do, and make shot 3 foggy"), a status change and then an edit
("mark shot 2 as approved and make shot 3 night"), a build and then a change of its parts, "redo the last change"
(another take of the last shot was made), and "it" beside a named shot with a shot selected ("make it night and
the next one too" left the selected shot out).  A 3-shot film is made by the offline planner on a project with
its own engine; each request runs through ``Runtime.run`` or the CLI in a subprocess, and the effect is read on
the canvas: the current images' lighting and status, the story's output hashes, and the plans on the canvas.
"""

from __future__ import annotations

from typing import Any

import pytest

from jarvishub.commands.outcomes import exit_code, result_of
from jarvishub.runtime import Runtime
from tests.cli_run import cli
from tests.tools.story_ops import current, hashes, make_story

pytestmark = pytest.mark.long_file(30)

LEDGER: list[tuple[str, str, str]] = []
"""(request, the result it should have, the result it had): every turn of the module."""


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """The CLI runs on this project's folder, so its canvas is in the folder's own engine."""
    return own_engine_project


@pytest.fixture(scope="module")
def story(runtime: Runtime) -> dict[str, Any]:
    return make_story(runtime, "a lamplighter walks the harbour wall at closing time")


def turn(runtime: Runtime, request: str, expect: str, **kwargs: Any) -> Any:
    outcome = runtime.run(request, **kwargs)
    LEDGER.append((request, expect, result_of(outcome)))
    return outcome


def looks(runtime: Runtime, story: dict[str, Any]) -> list[tuple[str | None, str]]:
    """Each shot's current image: its lighting and status, in story order."""
    found = [current(runtime.project.store, image) for image in story["images"]]
    return [(node.inputs.get("lighting"), node.status.value) for node in found]


@pytest.mark.parametrize("request_text", [
    "what did you just do, and make shot 3 foggy",
    "redo the last change",
    "explore shot 1 with 3 lighting moods and make shot 2 night",
    "note that shot 1 is approved, and make shot 2 night",
])
def test_a_request_with_a_change_after_it_asks_and_changes_nothing(
        runtime: Runtime, story: dict[str, Any], request_text: str) -> None:
    store = runtime.project.store
    before, version = hashes(store, story), store.canvas_version()
    looked = looks(runtime, story)
    out = turn(runtime, request_text, "bad_request")
    assert out.outcome == "clarification" and exit_code(out) != 0, (out.outcome, out.reply)
    assert hashes(store, story) == before and looks(runtime, story) == looked
    assert store.canvas_version() <= version + 1  # the turn's own record at most, nothing else


def test_a_build_with_a_change_of_its_parts_builds_nothing(runtime: Runtime, story: dict[str, Any]) -> None:
    store = runtime.project.store
    plans_before = store.count_nodes().get("plan", 0)
    out = turn(runtime, "a 3-shot film about a baker and make shot 2 night", "bad_request")
    assert out.outcome == "clarification" and exit_code(out) != 0, out.reply
    assert store.count_nodes().get("plan", 0) == plans_before


def test_the_cli_reports_a_status_change_with_an_edit_after_it_as_not_done(
        runtime: Runtime, story: dict[str, Any]) -> None:
    store = runtime.project.store
    before, looked = hashes(store, story), looks(runtime, story)
    ran = cli("-C", str(runtime.project.root), "run", "mark shot 2 as approved and make shot 3 night")
    LEDGER.append(("mark shot 2 as approved and make shot 3 night (CLI)", "bad_request",
                   "done" if ran.returncode == 0 else str(ran.returncode)))
    assert ran.returncode != 0, ran.stdout + ran.stderr
    assert "night" in ran.stdout and "changed nothing" in ran.stdout, ran.stdout
    assert hashes(store, story) == before and looks(runtime, story) == looked


def test_approve_and_reject_said_as_verbs_set_the_status(runtime: Runtime, story: dict[str, Any]) -> None:
    out = turn(runtime, "approve shot 2", "done")
    assert exit_code(out) == 0, out.reply
    assert looks(runtime, story)[1][1] == "selected"
    out = turn(runtime, "reject the last shot", "done")
    assert exit_code(out) == 0, out.reply
    rejected = runtime.project.store.get_nodes([story["images"][2]])[0]
    assert rejected.status.value == "rejected"


def test_it_beside_the_next_shot_keeps_the_selected_shot(runtime: Runtime, story: dict[str, Any]) -> None:
    first = current(runtime.project.store, story["images"][0])
    out = turn(runtime, "make it night and the next one too", "done", selected=[first.id])
    assert exit_code(out) == 0, out.reply
    lit = [lighting for lighting, _ in looks(runtime, story)]
    assert lit[0] == "night" and lit[1] == "night", lit


def test_no_turn_exited_0_without_its_effect() -> None:
    """The count of wrong successes over every turn above: a turn reported done where it should not be."""
    assert LEDGER, "the turns above ran first"
    wrong = [(r, want, got) for r, want, got in LEDGER if got == "done" and want != "done"]
    assert wrong == []
