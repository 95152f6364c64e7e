"""A held-out skill (``heldout/haiku_card.py``, written from docs/skills.md alone) in a fresh project: it loads, runs
through ``jarvishub skill run``, is called by the offline planner from a request that names it, and is offered to a
model as a tool with its name, description and input schema.  A scaffold from ``jarvishub skill new`` runs too."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from langchain_core.messages import BaseMessage

from jarvishub.project import Project
from nodes.models.scripted import ScriptedModel, tool_call
from tests.cli_run import cli

HELDOUT = Path(__file__).resolve().parent / "heldout" / "haiku_card.py"

pytestmark = pytest.mark.long_file(25)


@pytest.fixture(scope="module")
def opened(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """A project made with `jarvishub init`, the held-out skill dropped in its skills/ folder, a scaffold beside it;
    held open here so the module's commands share its engine (and the tests read its canvas directly)."""
    root = tmp_path_factory.mktemp("heldout") / "studio"
    root.mkdir()
    assert cli("init", cwd=root).returncode == 0
    (root / "skills").mkdir()
    shutil.copy(HELDOUT, root / "skills" / "haiku_card.py")
    made = cli("skill", "new", "thank_you_note", cwd=root)
    assert made.returncode == 0, made.stderr
    with Project.open(root) as held:
        yield held


@pytest.fixture(scope="module")
def project(opened: Project) -> Path:
    return opened.root


def titles(opened: Project) -> dict[str, str]:
    """Every node on the canvas: id → title."""
    return {n.id: n.title for n in opened.store.find_nodes()}


def test_it_loads_with_the_scaffold_next_to_it(project: Path) -> None:
    done = cli("skills", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    listed = {s["skill"]: s for s in json.loads(done.stdout)["skills"]}
    assert listed["haiku_card"]["source"] == "skills/haiku_card.py"
    assert listed["haiku_card"]["triggers"] == ["write a haiku card"]
    assert listed["haiku_card"]["input_schema"]["properties"]["season"]["enum"] == ["spring", "summer", "autumn",
                                                                                   "winter"]
    assert listed["thank_you_note"]["source"] == "skills/thank_you_note.py"
    assert json.loads(done.stdout)["problems"] == []


def test_it_runs_through_skill_run_and_shows_what_it_made(project: Path) -> None:
    done = cli("skill", "run", "haiku_card", "--arg", "topic=ferry", "--arg", "season=autumn", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    made = {node["id"]: node for node in report["made"]}
    assert {made[report["output"]["haiku_id"]]["kind"], made[report["output"]["picture_id"]]["kind"]} == {"text",
                                                                                                          "image"}
    assert Path(made[report["output"]["picture_id"]]["file"]).is_file()  # outputs/ shows the picture
    scaffold = cli("skill", "run", "thank_you_note", "--arg", "text=thanks for the tea", cwd=project)
    assert scaffold.returncode == 0, scaffold.stderr
    assert "ran thank_you_note: node_id = " in scaffold.stdout


def test_the_scaffolds_own_test_passes_as_written(project: Path) -> None:
    """The test `skill new` wrote, its request half run here (its other half, a run in a fresh project, is the
    tutorial's, which runs as docs/skills.md writes it)."""
    spec = importlib.util.spec_from_file_location("scaffold_test", project / "tests" / "test_skill_thank_you_note.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_a_request_asks_for_it_with_its_arguments()
    assert callable(module.test_it_runs_through_the_bridge_in_a_fresh_project)


def test_the_offline_planner_calls_it_from_a_request_that_names_it(project: Path, opened: Project) -> None:
    before = titles(opened)
    done = cli("run", "make a haiku card about the harbour at night in winter", "--json", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    turn = json.loads(done.stdout)
    first = turn["steps"][0]["action"]
    assert first["tool"] == "skill__haiku_card"
    assert first["args"] == {"topic": "the harbour at night", "season": "winter"}
    new = {title for i, title in titles(opened).items() if i not in before}
    assert new >= {"haiku: the harbour at night", "the harbour at night in winter"}


def test_a_request_with_more_than_it_can_place_is_a_question(project: Path, opened: Project) -> None:
    before = titles(opened)
    done = cli("run", "make a haiku card about rain in spring and delete shot 2", "--json", cwd=project)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "but not: delete shot 2" in done.stdout
    assert titles(opened) == before


class OfferedTools(ScriptedModel):
    """A scripted model that keeps the tool schemas it is bound with and calls the skill with what they say."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def bind_tools(self, tools: list[Any], **kwargs: Any) -> OfferedTools:  # type: ignore[override]
        type(self).seen = [t for t in tools if isinstance(t, dict)]
        return super().bind_tools(tools, **kwargs)


def call_the_offered_skill(messages: list[BaseMessage]) -> Any:
    """What a model that reads the schema does: the skill tool's required fields, an allowed season."""
    schema = next(t["function"] for t in OfferedTools.seen if t["function"]["name"] == "skill__haiku_card")
    season = schema["parameters"]["properties"]["season"]["enum"][-1]
    return tool_call("skill__haiku_card", {field: "lanterns" for field in schema["parameters"]["required"]}
                     | {"season": season})


def test_a_scripted_model_is_offered_it_as_a_tool_and_calls_it(opened: Project) -> None:
    from jarvishub.runtime import Runtime

    runtime = Runtime(opened, model=OfferedTools(script=[call_the_offered_skill, "done"]))
    try:
        outcome = runtime.run("use whatever you are offered")
    finally:
        runtime.close()
    offered = {t["function"]["name"]: t["function"] for t in OfferedTools.seen}
    haiku = offered["skill__haiku_card"]
    assert haiku["description"].startswith("A haiku card: three lines on a topic in a season")
    assert "'write a haiku card'" in haiku["description"]
    assert haiku["parameters"]["required"] == ["topic"]
    assert outcome.steps[0]["action"]["args"] == {"topic": "lanterns", "season": "winter"}
    made = outcome.steps[0]["observation"]
    assert opened.store.get_node(made["haiku_id"]).title == "haiku: lanterns"


def test_tools_json_gives_each_tools_arguments_and_what_it_returns(project: Path) -> None:
    done = cli("tools", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    tools = {t["tool"]: t for t in json.loads(done.stdout)["tools"]}
    assert tools["create_node"]["returns"]["properties"]["created"]["type"] == "string"
    assert "kind" in tools["create_node"]["parameters"]["required"]
    haiku = tools["skill__haiku_card"]
    assert set(haiku["parameters"]["properties"]) == {"topic", "season"}
    assert set(haiku["returns"]["required"]) == {"skill", "haiku_id", "picture_id"}
