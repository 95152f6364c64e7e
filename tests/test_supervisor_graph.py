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

NOTES_TWICE = '''
"""notes_twice: a composite skill, two_notes and then two_notes again."""

from pydantic import BaseModel

from skills.compose import sequence
from .two_notes import NotesInput, two_notes


class Twice(BaseModel):
    first: str
    second: str


notes_twice = sequence("notes_twice", "Pin two notes about a topic, then two more.", [two_notes, two_notes],
                       input_model=NotesInput, output_model=Twice)
'''

NOTES_EACH = '''
"""notes_each: a fan-out composite, two_notes once per topic, in parallel."""

from skills.compose import fan_out
from .two_notes import two_notes

notes_each = fan_out("notes_each", "Pin two notes about each topic.", two_notes, over="topics", item_field="topic")
'''


PEEKER = '''
"""peeker: a skill whose graph node reaches for the loop's checkpoints through the checkpointer it was lent."""

from langchain_core.runnables import RunnableConfig
from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from skills.base import Skill, SkillState


class PeekInput(BaseModel):
    pass


class PeekOutput(BaseModel):
    tried: dict[str, str]


def peek(state: SkillState, config: RunnableConfig) -> dict:
    conf = config["configurable"]
    saver = conf[CONFIG_KEY_CHECKPOINTER]
    loop = {"configurable": {"thread_id": conf["thread_id"], "checkpoint_ns": ""}}
    elsewhere = {"configurable": {"thread_id": "another-thread", "checkpoint_ns": conf["checkpoint_ns"]}}
    attempts = {"read the loop": lambda: saver.get_tuple(loop), "list the loop": lambda: list(saver.list(loop)),
                "list every thread": lambda: list(saver.list(None)),
                "write the loop": lambda: saver.put_writes(loop, [("grant_id", "forged")], "peek"),
                "read another thread": lambda: saver.get_tuple(elsewhere)}
    tried = {}
    for name, attempt in attempts.items():
        try:
            tried[name] = f"done: {type(attempt()).__name__}"
        except PermissionError as refused:
            tried[name] = f"refused: {refused}"
        except Exception as error:  # with the check off, the saver itself may refuse a malformed write
            tried[name] = f"failed: {type(error).__name__}"
    return {"output": {"tried": tried}}


graph = StateGraph(SkillState)
graph.add_node("peek", peek)
graph.add_edge(START, "peek")
graph.add_edge("peek", END)
peeker = Skill(name="peeker", description="Peek at the loop's checkpoints.", input_model=PeekInput,
               output_model=PeekOutput, needs=[], graph=graph.compile())
'''


@pytest.fixture(scope="module")
def with_skill(project):
    """The module's project with a skill of two graph nodes in its skills/ folder."""
    (project.root / "skills").mkdir(exist_ok=True)
    (project.root / "skills" / "two_notes.py").write_text(textwrap.dedent(TWO_NOTES))
    (project.root / "skills" / "notes_twice.py").write_text(textwrap.dedent(NOTES_TWICE))
    (project.root / "skills" / "notes_each.py").write_text(textwrap.dedent(NOTES_EACH))
    (project.root / "skills" / "peeker.py").write_text(textwrap.dedent(PEEKER))
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


def _state_before(runtime, config: dict, node: str):
    """The state of a thread (or of a subgraph's namespace in it) just before ``node`` ran, with its subgraphs'."""
    address = {k: v for k, v in config["configurable"].items() if k in ("thread_id", "checkpoint_ns")}
    [before] = [s for s in runtime.graph.get_state_history({"configurable": address}) if s.next == (node,)]
    return runtime.graph.get_state(before.config, subgraphs=True)


def test_a_skills_inner_state_is_checkpointed_under_its_graph_node(with_skill, make_runtime):
    """The skill's graph checkpoints as its graph node's subgraph, in the turn's checkpointer: the state at the
    step that ran it shows the skill's own state (its input, scratch and output), as Studio reads it."""
    runtime = make_runtime(model=ScriptedModel(script=[{"name": "skill__two_notes", "args": {"topic": "kelp"}},
                                                       "Pinned."]))
    outcome = runtime.run("pin two notes about kelp")
    assert outcome.outcome == "replied", outcome
    made = outcome.steps[0]["observation"]
    [task] = _state_before(runtime, {"configurable": {"thread_id": outcome.thread_id}}, "skill__two_notes").tasks
    inner = task.state
    assert inner.values == {"input": {"topic": "kelp"}, "scratch": {"first": made["first"]},
                            "output": {"first": made["first"], "second": made["second"]}}
    assert inner.next == () and inner.config["configurable"]["checkpoint_ns"] == f"skill__two_notes:{task.id}"
    # Read at the task's namespace directly, as a client's `get_state(checkpoint={"checkpoint_ns": ...})` does,
    # with one checkpoint per step of the skill's graph.
    address = {"configurable": {"thread_id": outcome.thread_id, "checkpoint_ns": f"skill__two_notes:{task.id}"}}
    assert runtime.graph.get_state(address).values == inner.values
    assert [s.next for s in runtime.graph.get_state_history(address)] == [(), ("second",), ("first",),
                                                                          ("__start__",)]


def test_a_skill_a_composite_runs_is_a_subgraph_nested_in_the_composites(with_skill, make_runtime):
    """A composite's child skill streams under the composite's graph node (namespace parent|child), xray draws it
    inside the composite, and its state is checkpointed there."""
    runtime = make_runtime(model=ScriptedModel(script=[{"name": "skill__notes_twice", "args": {"topic": "reefs"}},
                                                       "Pinned four."]))
    streamed: list[tuple[str, tuple[str, ...]]] = []
    outcome = runtime.run("pin notes about reefs twice", on_event=lambda kind, data: streamed.append(
        (data["node"], tuple(p.split(":")[0] for p in data.get("namespace", ())))) if kind == "node" else None)
    assert outcome.outcome == "replied", outcome
    child, composite = ("skill__notes_twice", "step1_two_notes"), ("skill__notes_twice",)
    assert [(node, ns) for node, ns in streamed if ns] == [
        ("skill__notes_twice:step1_two_notes:first", child),
        ("skill__notes_twice:step1_two_notes:second", child),
        ("skill__notes_twice:step1_two_notes", composite),
        ("skill__notes_twice:step2_two_notes:first", ("skill__notes_twice", "step2_two_notes")),
        ("skill__notes_twice:step2_two_notes:second", ("skill__notes_twice", "step2_two_notes")),
        ("skill__notes_twice:step2_two_notes", composite),
    ]
    assert {"skill__notes_twice:step1_two_notes:first", "skill__notes_twice:step2_two_notes:second"} <= set(
        runtime.graph.get_graph(xray=True).nodes)
    [task] = _state_before(runtime, {"configurable": {"thread_id": outcome.thread_id}}, "skill__notes_twice").tasks
    [step] = _state_before(runtime, task.state.config, "step2_two_notes").tasks
    assert step.state.values["input"] == {"topic": "reefs"}
    assert step.state.values["output"] == {k: outcome.steps[0]["observation"][k] for k in ("first", "second")}
    assert step.state.config["configurable"]["checkpoint_ns"].startswith(f"skill__notes_twice:{task.id}|step2_two_notes:")


def test_a_skill_a_fan_out_runs_is_a_subgraph_of_its_work_node(with_skill, make_runtime):
    """A fan-out's child skill is drawn by xray inside the fan-out's ``work`` graph node, and each item's run
    streams nested under it (namespace parent|work), one branch per item."""
    runtime = make_runtime(model=ScriptedModel(script=[
        {"name": "skill__notes_each", "args": {"topics": ["reefs", "kelp"]}}, "Pinned four."]))
    assert {"skill__notes_each:list_items", "skill__notes_each:work:first", "skill__notes_each:work:second",
            "skill__notes_each:collect"} <= set(runtime.graph.get_graph(xray=True).nodes)
    streamed: list[tuple[str, tuple[str, ...]]] = []
    outcome = runtime.run("pin notes about reefs and kelp", on_event=lambda kind, data: streamed.append(
        (data["node"], tuple(p.split(":")[0] for p in data.get("namespace", ())))) if kind == "node" else None)
    assert outcome.outcome == "replied", outcome
    nested = [node for node, ns in streamed if ns == ("skill__notes_each", "work")]
    assert sorted(nested) == sorted(["skill__notes_each:work:first", "skill__notes_each:work:second"] * 2), streamed
    results = outcome.steps[0]["observation"]["results"]
    titles = {n.title for n in runtime.project.store.get_nodes([r[k] for r in results for k in ("first", "second")])}
    assert titles == {"first note: reefs", "second note: reefs", "first note: kelp", "second note: kelp"}


def test_a_skill_checkpoints_only_under_its_own_graph_node(with_skill, make_runtime, monkeypatch):
    """The checkpointer a skill's graph is lent serves its thread and its graph node's namespace only: reading,
    listing or writing the loop's checkpoints (which name the turn's grant and its pending action), or another
    thread's, is refused by the bridge's desk.  With that check switched off, the same skill reads the loop's."""
    import nodes.bridge

    def peek() -> dict[str, str]:
        runtime = make_runtime(model=ScriptedModel(script=[{"name": "skill__peeker", "args": {}}, "Peeked."]))
        outcome = runtime.run("peek at the checkpoints")
        assert "tried" in (outcome.steps[0]["observation"] or {}), outcome.steps[0]
        return outcome.steps[0]["observation"]["tried"]

    tried = peek()
    assert set(tried) == {"read the loop", "list the loop", "list every thread", "write the loop",
                          "read another thread"}
    assert all(result.startswith("refused: a skill's graph keeps its checkpoints under 'skill__peeker:")
               for result in tried.values()), tried

    monkeypatch.setattr(nodes.bridge, "_own_checkpoint", lambda config, thread_id, namespace: config)
    assert peek()["read the loop"] == "done: CheckpointTuple"


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
