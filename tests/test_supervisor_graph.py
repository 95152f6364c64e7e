"""The graph the CLI runs is the supervisor loop itself, with each skill a graph node whose graph is its subgraph.

The CLI drives ``Runtime.run``, which streams the compiled supervisor (``graphs/supervisor.py``) with the
project's services as LangGraph's runtime context: the node names it streams are the loop's, and a skill's
inner steps come under the skill's graph node, named as ``get_graph(xray=True)`` draws them.  The same
compiled graph is what ``langgraph dev`` serves (``tests/server/test_langgraph_server.py``).
"""

from __future__ import annotations

import textwrap

import pytest

from nodes.context import NoTurnContext
from nodes.models.scripted import ScriptedModel

LOOP = ["begin", "observe", "resolve", "propose", "validate", "execute", "feedback", "repair", "commit", "record"]

TWO_NOTES = '''
"""two_notes: a skill of two graph nodes, each pinning a note through the bridge."""

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel

from skills.base import Skill, SkillContext, SkillState, skill_context


class NotesInput(BaseModel):
    topic: str


class NotesOutput(BaseModel):
    first: str
    second: str


def first(state: SkillState, runtime: Runtime[SkillContext]) -> dict:
    made = runtime.context.call("create_node", kind="text", title=f"first note: {state['input']['topic']}",
                                inputs={"text": "one"}, status="completed")
    return {"scratch": {"first": made["created"]}}


def second(state: SkillState, config: RunnableConfig) -> dict:
    made = skill_context(config).call("create_node", kind="text", title=f"second note: {state['input']['topic']}",
                                      inputs={"text": "two"}, status="completed")
    return {"output": {"first": state["scratch"]["first"], "second": made["created"]}}


graph = StateGraph(SkillState)
graph.add_node("first", first)
graph.add_node("second", second)
graph.add_edge(START, "first")
graph.add_edge("first", "second")
graph.add_edge("second", END)
two_notes = Skill(name="two_notes", description="Pin two notes about a topic.", input_model=NotesInput,
                  output_model=NotesOutput, needs=["create_node"], graph=graph.compile())
'''


@pytest.fixture(scope="module")
def with_skill(project):
    """The module's project with a skill of two graph nodes in its skills/ folder."""
    (project.root / "skills").mkdir(exist_ok=True)
    (project.root / "skills" / "two_notes.py").write_text(textwrap.dedent(TWO_NOTES))
    return project


def test_the_graph_is_the_loop_with_a_subgraph_per_skill(with_skill, make_runtime):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    drawn = runtime.graph.get_graph(xray=True)
    assert set(LOOP) <= set(drawn.nodes)
    assert {"skill__two_notes:first", "skill__two_notes:second", "skill__storyboard:shots"} <= set(drawn.nodes)
    edges = {(e.source, e.target) for e in drawn.edges}
    assert {("__start__", "begin"), ("begin", "observe"), ("propose", "validate"), ("validate", "execute"),
            ("execute", "feedback"), ("record", "observe")} <= edges
    assert "skill__two_notes" in dict(runtime.graph.get_subgraphs())


def test_a_turn_streams_the_loops_nodes_and_the_skills_inner_steps(with_skill, make_runtime):
    runtime = make_runtime(model=ScriptedModel(script=[{"name": "skill__two_notes", "args": {"topic": "tides"}},
                                                       "Pinned two notes."]))
    streamed: list[str] = []
    outcome = runtime.run("pin two notes about the tides", on_event=lambda kind, data: streamed.append(
        data["node"]) if kind == "node" else None)
    assert outcome.outcome == "replied", outcome
    skill_step = ["skill__two_notes:first", "skill__two_notes:second", "skill__two_notes"]
    assert streamed == ["begin", "observe", "resolve", "propose", "validate", *skill_step, "feedback", "repair",
                        "commit", "record", "observe", "resolve", "propose", "validate", "execute", "feedback",
                        "repair", "commit", "record"]
    # Every name streamed is a node the graph draws: the skill's node in the graph, its steps with xray.
    assert set(streamed) <= set(runtime.graph.get_graph().nodes) | set(runtime.graph.get_graph(xray=True).nodes)
    # Each of the skill's graph nodes wrote through the bridge, under the skill's own narrowed grant.
    made = outcome.steps[0]["observation"]
    notes = {n.id: n for n in runtime.project.store.get_nodes([made["first"], made["second"]])}
    assert {n.title for n in notes.values()} == {"first note: tides", "second note: tides"}
    assert {n.provenance.actor for n in notes.values()} == {"skill:two_notes"}


def test_the_graph_says_how_to_give_it_its_services(with_skill, make_runtime):
    runtime = make_runtime(model=ScriptedModel(script=["done"]))
    with pytest.raises(NoTurnContext, match="context=TurnContext"):
        runtime.graph.invoke({"request": "hello"}, {"configurable": {"thread_id": "no-context"}})


def test_a_served_turn_without_a_selection_does_not_reuse_the_last_ones(with_skill, make_runtime):
    """Under LangGraph's server a thread's state outlives its turns: a client that sends no ``selected_ids``
    selected nothing, and its turn must not be scoped to what the previous turn had selected."""
    import dataclasses

    pin = {"name": "create_node", "args": {"kind": "text", "title": "a note on tides", "inputs": {"text": "high"},
                                           "status": "completed"}}
    runtime = make_runtime(model=ScriptedModel(script=[pin, "Pinned.", "done", "done"]))
    pinned = runtime.run("pin a note about the tides")
    picked = pinned.steps[0]["observation"]["created"]
    asked: list[list[str]] = []

    def start_turn(request: str, **kwargs):
        asked.append(list(kwargs.get("selected") or []))
        return runtime.start_state(request, **kwargs)

    served = dataclasses.replace(runtime.turn_context, start_turn=start_turn)  # begin starts it, as on a server
    config = {"configurable": {"thread_id": "served-thread"}}
    first = runtime.graph.invoke({"request": "make it warmer", "selected_ids": [picked]}, config, context=served)
    second = runtime.graph.invoke({"request": "how many notes are there"}, config, context=served)
    assert asked == [[picked], []], (first, second)
