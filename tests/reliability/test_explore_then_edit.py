"""``jarvishub explore`` ends as the same exploration through ``run`` does, and a later edit builds on what it
selected (#20, #23 "Explore, then edit").

Two projects of the same premise: one explores shot 2 through ``jarvishub run "explore shot 2 ..."`` (the offline
planner calls the explore skill), the other through ``jarvishub explore <shot 2's image>`` with the same words.
Before, the command left two current images of shot 2 with the clip and the cut still made from the explored one,
and a later "make shot 1 night" rebuilt the explored candidate's look (its changes were keyed by the superseded
image) over a clip made from a rejected image.  Everything runs through the CLI, in subprocesses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jarvishub.evaluation.outputs import Canvas, current_outputs, invariants
from jarvishub.project import Project
from store.models import EdgeType, NodeStatus
from tests.canvas_fingerprint import canvas_fingerprint, fingerprint_difference
from tests.reliability.story_cli import copy_project, init, jarvishub, run_json, tell

pytestmark = pytest.mark.long_file(70)  # seconds on a quiet two-core machine: scheduled first (tests/conftest.py)

PREMISE = "a 3-shot short drama about a potter who loses the key to her kiln"
EXPLORE = "explore shot 2 with 3 lighting moods"


def _current(project: Project) -> dict:
    outputs, problems = current_outputs(Canvas.read(project.store))
    assert not problems, problems
    return outputs


@pytest.fixture(scope="module")
def stories(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The same story twice, shot 2 explored through ``run`` in one and through ``explore`` in the other.

    The story is told once through the CLI and its project copied (the same premise makes the same canvas).  Both
    projects stay open in this process, so the commands reuse their engines instead of starting them again.
    """
    base = tmp_path_factory.mktemp("explore-paths")
    folders = {"run": base / "through-run", "explore": base / "through-explore"}
    init(folders["run"])
    with Project.open(folders["run"]):  # the engine stays up for the CLI's turn
        tell(folders["run"], PREMISE)
    copy_project(folders["run"], folders["explore"])
    with Project.open(folders["run"]) as through_run, Project.open(folders["explore"]) as through_explore:
        explored = _current(through_explore)["shot 2 image"]
        code, document, err = run_json(folders["run"], EXPLORE)
        assert code == 0 and document["outcome"] == "replied", err or document
        code, out, err = jarvishub("-C", str(folders["explore"]), "explore", explored.id, "--n", "3", EXPLORE,
                                   cwd=folders["explore"])
        assert code == 0, out + err
        yield {"folders": folders, "run": through_run, "explore": through_explore, "explored": explored.id}


def test_explore_ends_as_the_same_exploration_through_run(stories):
    fingerprints = []
    for name in ("run", "explore"):
        assert invariants(Canvas.read(stories[name].store)) == [], name
        fingerprints.append(canvas_fingerprint(stories[name].store))
    assert fingerprints[0] == fingerprints[1], fingerprint_difference(*fingerprints)


def test_the_selected_candidate_replaces_the_explored_image_and_what_followed_it(stories):
    store = stories["explore"].store
    outputs = _current(stories["explore"])
    selected, clip, cut = outputs["shot 2 image"], outputs["shot 2 clip"], outputs["final cut"]
    explored = store.get_node(stories["explored"])
    assert selected.status == NodeStatus.SELECTED and selected.title == explored.title == "shot 2 image"
    assert explored.status == NodeStatus.REJECTED
    assert explored.metadata["status_reason"].startswith(f"superseded by {selected.id}")
    [older] = [n.node.id for n in store.neighbours(selected.id, [EdgeType.VERSION_OF])]
    assert older == explored.id
    assert clip.inputs["source_node_id"] == selected.id and clip.status == NodeStatus.COMPLETED
    assert cut.inputs["clip_node_ids"][1] == clip.id and cut.status == NodeStatus.COMPLETED
    live = [n for n in store.find_nodes(kind="image") if n.status != NodeStatus.REJECTED]
    assert len(live) == 3, [(n.title, n.status.value) for n in live]


def test_an_edit_after_an_exploration_starts_from_the_selected_version(stories):
    folder, project = stories["folders"]["explore"], stories["explore"]
    shot1 = _current(project)["shot 1 image"]
    code, out, err = jarvishub("-C", str(folder), "explore", shot1.id, "--n", "2", "moods", cwd=folder)
    assert code == 0, out + err
    selected = _current(project)["shot 1 image"]
    assert selected.id != shot1.id and selected.inputs["lighting"] not in ("neutral", "night")

    code, document, err = run_json(folder, "make shot 1 night")

    assert code == 0 and document["outcome"] == "replied", err or document
    outputs = _current(project)
    edited, clip = outputs["shot 1 image"], outputs["shot 1 clip"]
    assert edited.inputs["lighting"] == "night"
    unchanged = {k: v for k, v in selected.inputs.items() if k not in ("lighting", "intent")}
    assert {k: edited.inputs.get(k) for k in unchanged} == unchanged  # the selected version's inputs, plus the edit
    assert [n.node.id for n in project.store.neighbours(edited.id, [EdgeType.VERSION_OF])] == [selected.id]
    assert project.store.get_node(selected.id).status == NodeStatus.REJECTED
    assert invariants(Canvas.read(project.store)) == []
    assert clip.inputs["source_node_id"] == edited.id
    assert outputs["final cut"].inputs["clip_node_ids"][0] == clip.id
