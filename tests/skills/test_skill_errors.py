"""A skill that raises, oversteps its grant, or reaches for the store's write method fails its own step, with the
reason in the turn's trajectory: never an exception out of ``Runtime.run`` (nor a traceback from the CLI)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from langchain_core.messages import HumanMessage

from nodes.models.scripted import ScriptedModel, tool_call
from tests.cli_run import cli

if TYPE_CHECKING:
    from conftest import Agent

MISBEHAVING = '''\
"""Three skills that go wrong, each in its own way."""

from pydantic import BaseModel

from skills.base import SkillContext, skill
from store.mutations import CreateNode


class Nothing(BaseModel):
    pass


class Made(BaseModel):
    node_id: str


@skill(name="raises", description="A skill whose own code fails.", input_model=Nothing, output_model=Made,
       needs=["create_node"])
def raises(ctx: SkillContext, inp: Nothing) -> Made:
    ctx.call("create_node", kind="text", title="made before the failure")
    raise ValueError("the palette file is empty")


@skill(name="writes_directly", description="A skill that writes around the bridge.", input_model=Nothing,
       output_model=Made, needs=["create_node"])
def writes_directly(ctx: SkillContext, inp: Nothing) -> Made:
    ctx.canvas.apply([CreateNode(kind="text", title="smuggled")])
    return Made(node_id="never")


@skill(name="oversteps", description="A skill that calls a tool it did not declare.", input_model=Nothing,
       output_model=Made, needs=["create_node"])
def oversteps(ctx: SkillContext, inp: Nothing) -> Made:
    made = ctx.call("create_node", kind="text", title="first")["created"]
    ctx.call("link_nodes", type="REFERENCES", source=made, target=made)
    return Made(node_id=made)
'''


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory, start_agent) -> Iterator[Agent]:
    root = tmp_path_factory.mktemp("errors") / "p"
    (root / "skills").mkdir(parents=True)
    (root / "skills" / "misbehaving.py").write_text(MISBEHAVING)
    (root / "skills" / "half_written.py").write_text("from skills.base import skill\nimport pillow_extras\n")
    model = ScriptedModel(script=[call_the_skill_named, "done"])
    with start_agent(root, configure=lambda project: {"model": model}) as running:
        yield running


def call_the_skill_named(messages: list) -> object:
    """The model's first move: call the skill the request names ("run the raises check")."""
    request = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
    return tool_call(f"skill__{request.split()[2]}", {})


def turn(agent: Agent, skill: str) -> tuple[object, dict]:
    """One turn whose model calls the skill, then replies; the outcome and the first step."""
    outcome = agent.runtime.run(f"run the {skill} check")
    return outcome, outcome.steps[0]


@pytest.mark.parametrize(("skill", "wanted", "refused"), [
    ("raises", "skill raises failed: ValueError: the palette file is empty", None),
    ("writes_directly", "skill writes_directly tried to write the canvas directly (apply)", None),
    ("oversteps", "could not run link_nodes: tool link_nodes is not in this turn's grant", "tool_not_granted"),
])
def test_a_misbehaving_skill_is_a_failed_step_with_its_reason(agent: Agent, skill: str, wanted: str,
                                                              refused: str | None) -> None:
    outcome, step = turn(agent, skill)
    observation = step["observation"]
    assert step["action"]["tool"] == f"skill__{skill}" and wanted in observation["error"], observation
    assert observation.get("refused") == refused
    assert outcome.outcome == "replied" and outcome.steps[-1]["action"]["kind"] == "reply"
    recorded = agent.runtime.trajectories.turns(outcome.thread_id)[-1]
    assert wanted in recorded["observations"][0]["error"]
    titles = {n.title for n in agent.store.find_nodes(kind="text")}
    assert "smuggled" not in titles


def test_steps_a_skill_committed_before_it_failed_stay(agent: Agent) -> None:
    assert "made before the failure" in {n.title for n in agent.store.find_nodes(kind="text")}


def test_skill_run_of_a_refused_step_exits_3_with_one_line(agent: Agent) -> None:
    """(A skill that raises exits 1 the same way: ``run_skill`` reads both from the step's observation.)"""
    done = cli("-C", str(agent.runtime.project.root), "skill", "run", "oversteps", "--json")
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "refused: oversteps: skill:oversteps could not run link_nodes" in done.stderr
    report = json.loads(done.stdout)
    assert report["result"] == "refused" and report["reason"] == "tool_not_granted"
    assert [n["title"] for n in report["made"]] == ["first"]  # the step before the refusal stays, and is shown


def test_skill_run_reads_a_failed_skill_as_exit_1(agent: Agent) -> None:
    from jarvishub.commands.outcomes import EXIT_FOR_RESULT
    from jarvishub.commands.skill import run_skill

    report = run_skill(agent.runtime, "raises", {})
    assert EXIT_FOR_RESULT[report["result"]] == 1 and "the palette file is empty" in report["error"]


def test_a_module_that_does_not_import_is_one_line_in_status_and_skills_and_the_others_load(agent: Agent) -> None:
    done = cli("-C", str(agent.runtime.project.root), "status")
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stderr
    line = ("skills/half_written.py: ModuleNotFoundError: No module named 'pillow_extras'")
    assert [ln for ln in done.stdout.splitlines() if "half_written" in ln] == [f"skill not loaded: {line}"]
    # `jarvishub skills` prints the runtime's problems, one line each, with the skills that did load.
    assert [p.line() for p in agent.runtime.services["skill_problems"]] == [line]
    assert {"raises", "writes_directly", "oversteps"} <= {s.name for s in agent.runtime.manifest.skills}
