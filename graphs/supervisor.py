"""The supervisor graph: observe → resolve → propose → validate → execute → feedback → repair → commit → record,
looping.

Rejected actions skip straight to record (the rejection is part of the
trajectory) and loop back to observe, so the agent sees why and proposes again.
The loop ends when the agent replies, a budget is spent, or the grant is revoked.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.types import Checkpointer

from nodes.commit import make_commit, route_after_commit
from nodes.deps import TurnDeps
from nodes.execute import make_execute
from nodes.feedback import make_feedback
from nodes.observe import make_observe
from nodes.propose import make_propose
from nodes.record import make_record
from nodes.repair import make_repair
from nodes.resolve import make_resolve
from nodes.state import TurnState
from nodes.validate import make_validate, route_after_validate


def route_after_record(state: TurnState) -> str:
    """Loop until the turn is done."""
    return END if state.get("done") else "observe"


def add_bridge_pipeline(graph: StateGraph, deps: TurnDeps) -> None:
    """validate → execute → feedback → repair → commit → record, rejections straight to record.

    The caller wires what proposes into ``validate`` and what follows ``record``; the chat-history baseline
    (``graphs/chat_baseline.py``) sends its tool calls through this same pipeline.
    """
    graph.add_node("validate", make_validate(deps))
    graph.add_node("execute", make_execute(deps))
    graph.add_node("feedback", make_feedback(deps))
    graph.add_node("repair", make_repair(deps))
    graph.add_node("commit", make_commit(deps))
    graph.add_node("record", make_record(deps))
    graph.add_conditional_edges("validate", route_after_validate, ["execute", "record"])
    graph.add_edge("execute", "feedback")
    graph.add_edge("feedback", "repair")
    graph.add_edge("repair", "commit")
    graph.add_conditional_edges("commit", route_after_commit, ["execute", "record"])


def build_supervisor(deps: TurnDeps, checkpointer: Checkpointer = None):
    """Compile the turn loop with its checkpointer (None under LangGraph's server, which supplies one)."""
    graph = StateGraph(TurnState)
    graph.add_node("observe", make_observe(deps))
    graph.add_node("resolve", make_resolve(deps))
    graph.add_node("propose", make_propose(deps))
    add_bridge_pipeline(graph, deps)
    graph.add_edge(START, "observe")
    graph.add_edge("observe", "resolve")
    graph.add_edge("resolve", "propose")
    graph.add_edge("propose", "validate")
    graph.add_conditional_edges("record", route_after_record, ["observe", END])
    return graph.compile(checkpointer=checkpointer)
