"""What a status change reports, and the files it leaves a person, through the CLI in a subprocess.

"approve shot 3" replied "Marked 01M9… as selected": an id a person cannot read.  And rejecting a shot's only
image (no earlier version to bring back) rejects its clip and the cut made from it, after which ``jarvishub open``
said "no output files yet" while the other shots' clips were still current: a file counted as an input of the
rejected cut was no longer final.  A 3-shot film is made by the offline planner on a project with its own engine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from jarvishub.runtime import Runtime
from tests.cli_run import cli
from tests.tools.story_ops import make_story

pytestmark = pytest.mark.long_file(20)


@pytest.fixture(scope="module")
def project(own_engine_project: Any) -> Any:
    """The CLI runs on this project's folder, so its canvas is in the folder's own engine."""
    return own_engine_project


@pytest.fixture(scope="module")
def story(runtime: Runtime) -> dict[str, Any]:
    return make_story(runtime, "a ferryman counts the lamps on the far shore")


def test_a_status_reply_names_nodes_by_title(runtime: Runtime, story: dict[str, Any]) -> None:
    outcome = runtime.run("approve shot 1 and shot 3")
    assert outcome.outcome == "replied", outcome.reply
    assert outcome.reply == "Marked shot 1 image and shot 3 image as selected.", outcome.reply
    assert {runtime.project.store.get_node(story["images"][i]).status.value for i in (0, 2)} == {"selected"}


def test_rejecting_a_first_image_reports_what_went_with_it_and_leaves_the_other_clips(
        runtime: Runtime, story: dict[str, Any]) -> None:
    store = runtime.project.store
    ran = cli("-C", str(runtime.project.root), "run", "reject shot 2")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    # Its clip and the cut were made from it: both are rejected with it, and the reply says so.
    assert "Marked shot 2 image as rejected. Rejected with it: 2 outputs made from it." in ran.stdout, ran.stdout
    assert {store.get_node(i).status.value for i in (story["images"][1], story["clips"][1], story["cut"])} == \
        {"rejected"}

    opened = cli("-C", str(runtime.project.root), "open", "--json")
    assert opened.returncode == 0, opened.stdout + opened.stderr
    finals = json.loads(opened.stdout)["outputs"]
    # No cut is current: the film's last outputs are the clips of the shots still standing, in shot order.
    assert [path.rsplit("/", 1)[-1] for path in finals] == ["shot-01-clip.mp4", "shot-03-clip.mp4"], finals
