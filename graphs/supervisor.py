"""The supervisor graph: begin → observe → resolve → propose → validate → execute → feedback → repair → commit
→ record, looping.

This compiled graph is the one LangGraph's server runs (``langgraph.json``) and the one the CLI runs
(``jarvishub.runtime.Runtime``); the project's services reach its graph nodes as LangGraph's runtime context
(:class:`~nodes.context.TurnContext`), never through closures.  Each skill is a graph node of its own, named as
the tool the agent calls it by (``skill__poster``), with the skill's compiled graph as its subgraph
(``graphs/skill_nodes.py``): an allowed skill call goes there instead of ``execute``.

Rejected actions skip straight to record (the rejection is part of the trajectory) and loop back to observe,
so the agent sees why and proposes again.  The loop ends when the agent replies, a budget is spent, or the
grant is revoked.

Adding a graph node is one ``add_node`` and its edges here; the node is a function
``node(state: TurnState, runtime: Runtime[TurnContext]) -> dict`` that reads its services with
``turn_context(runtime)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer, Command

from graphs.skill_nodes import skill_nodes
from nodes.begin import TurnInput, TurnOutput, begin
from nodes.commit import commit, route_after_commit
from nodes.context import TurnContext
from nodes.execute import execute
from nodes.feedback import feedback
from nodes.observe import observe
from nodes.propose import propose
from nodes.record import record
from nodes.repair import repair
from nodes.resolve import resolve
from nodes.state import TurnState
from nodes.validate import route_after_validate, validate
from skills.base import Skill


def route_after_record(state: TurnState) -> str:
    """Loop until the turn is done."""
    return END if state.get("done") else "observe"


def to_skill_nodes(route: Callable[[TurnState], str], names: Iterable[str]) -> Callable[[TurnState], str]:
    """``route``, with an allowed call of a skill that has a graph node sent to that node instead of execute."""
    nodes = frozenset(names)

    def route_skills(state: TurnState) -> str:
        chosen = route(state)
        tool = str((state.get("action") or {}).get("tool") or "")
        return tool if chosen == "execute" and tool in nodes else chosen

    route_skills.__name__ = route.__name__
    route_skills.__doc__ = route.__doc__
    return route_skills


GraphNode = Callable[[TurnState, Runtime[TurnContext]], Mapping[str, Any]]


def routed(node: GraphNode, route: Callable[[TurnState], str]) -> Callable[[TurnState, Runtime[TurnContext]], Command]:
    """``node``, naming the next graph node itself (a ``Command``): ``route`` reads the state as the node leaves it.

    Why not a conditional edge: LangGraph shows an edge's router the node's writes by copying every channel of
    the state (``local_read``), about 0.4 ms per routing decision with the turn's 40 channels, six times in a note
    turn (``bench/state_width.py``).  The node's ``destinations`` still draw the same edges.  ``route`` may read
    only channels a write replaces (``done``, ``verdict``, ``action``, ``rebuild``): the state it sees is the
    node's input with its update laid over it, which for a channel with a reducer is the update alone.
    """

    def routed_node(state: TurnState, runtime: Runtime[TurnContext]) -> Command:
        update = dict(node(state, runtime))
        return Command(update=update, goto=route({**state, **update}))  # type: ignore[typeddict-item]

    routed_node.__name__ = getattr(node, "__name__", "routed_node")
    routed_node.__doc__ = node.__doc__
    return routed_node


def add_bridge_pipeline(graph: StateGraph, skills: Iterable[Skill] = ()) -> None:
    """validate → execute (or a skill's node) → feedback → repair → commit → record, rejections straight to record.

    The caller wires what proposes into ``validate``, and adds ``record`` with what follows it; the chat-history
    baseline (``graphs/chat_baseline.py``) sends its tool calls through this same pipeline.
    """
    by_skill = skill_nodes(skills)
    graph.add_node("validate", routed(validate, to_skill_nodes(route_after_validate, by_skill)),
                   destinations=("execute", *by_skill, "record"))
    graph.add_node("execute", execute)
    for name, node in by_skill.items():
        graph.add_node(name, node)
        graph.add_edge(name, "feedback")
    graph.add_node("feedback", feedback)
    graph.add_node("repair", repair)
    graph.add_node("commit", routed(commit, route_after_commit), destinations=("execute", "record"))
    graph.add_edge("execute", "feedback")
    graph.add_edge("feedback", "repair")
    graph.add_edge("repair", "commit")


def build_supervisor(skills: Iterable[Skill] = (), checkpointer: Checkpointer = None):
    """Compile the turn loop with a graph node per skill, and a checkpointer (None under LangGraph's server,
    which supplies one).  Run it with ``context=TurnContext(...)``."""
    graph = StateGraph(TurnState, context_schema=TurnContext, input_schema=TurnInput, output_schema=TurnOutput)
    graph.add_node("begin", begin)
    graph.add_node("observe", observe)
    graph.add_node("resolve", resolve)
    graph.add_node("propose", propose)
    add_bridge_pipeline(graph, skills)
    graph.add_node("record", routed(record, route_after_record), destinations=("observe", END))
    graph.add_edge(START, "begin")
    graph.add_edge("begin", "observe")
    graph.add_edge("observe", "resolve")
    graph.add_edge("resolve", "propose")
    graph.add_edge("propose", "validate")
    return graph.compile(checkpointer=checkpointer)
