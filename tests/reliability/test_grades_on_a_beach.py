"""A sunset or a dawn on a beach is done as asked (#20: "make shot 5 sunset" on a beach premise exited 1).

The storyboard gives this premise's character a light-blue head (#aed6f1) against a blue sky.  Sunset's and
dawn's grades squeeze that sky and that head into the same colour, so the evaluator's framing check, which
counted head-coloured pixels, counted a band of sky too, rejected a correct image and the turn changed nothing.
The evaluator now reads the picture against its own scene (``tools/generate/offline_reading.py``); the pixels
of every preset, framing and weather are covered in ``tests/skills/test_evaluator_matrix.py``, this is the
user's path: the CLI, a story, the request.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jarvishub.evaluation.outputs import Canvas, current_outputs, invariants
from jarvishub.project import Project
from skills.storyboard import plan_story
from tests.reliability.story_cli import run_json, story

pytestmark = pytest.mark.long_file(30)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

PREMISE = "a 2-shot short drama about a lifeguard on a beach who finds a message in a bottle"


@pytest.fixture(scope="module")
def beach(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Project]]:
    plan = plan_story(PREMISE)
    assert plan.scene.setting == "sea" and plan.character.colors[1] == "#aed6f1"  # the colours that collided
    folder = tmp_path_factory.mktemp("beach") / "lifeguard"
    with story(folder, PREMISE) as project:
        yield folder, project


@pytest.mark.parametrize("mood", ["sunset", "dawn"])
def test_a_grade_that_gives_the_sky_the_heads_colour_is_done_as_asked(beach: tuple[Path, Project], mood: str):
    folder, project = beach
    before = current_outputs(Canvas.read(project.store))[0]["shot 2 image"]

    code, document, err = run_json(folder, f"make shot 2 {mood}")

    assert code == 0 and document["outcome"] == "replied", err or document["reply"]
    after, problems = current_outputs(Canvas.read(project.store))
    assert not problems and invariants(Canvas.read(project.store)) == []
    image = after["shot 2 image"]
    assert image.id != before.id and image.inputs["lighting"] == mood
    assert after["shot 2 clip"].inputs["source_node_id"] == image.id
