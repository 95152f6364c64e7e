"""Each skill as a graph node of the supervisor, with the skill's own compiled graph as that node's subgraph.

The agent calls a skill as the tool ``skill__<name>``; once ``validate`` allows the call, the turn goes to the
graph node of the same name instead of ``execute``.  The node does what ``execute`` does (the budget ledger, the
replay of a committed step, the tool context, the accounting) and has the bridge run the skill's graph as its
subgraph: every tool call inside stays a ``Bridge.submit`` under the grant narrowed to the skill's needs, and
the skill's graph runs on the bridge's skill thread, with nothing of the turn's run in reach
(``nodes/subgraph.py``).  LangGraph sees the skill's graph in the node (``get_graph(xray=True)``) and its events
under the node's namespace (``stream(..., subgraphs=True)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from nodes.context import TurnContext, turn_context
from nodes.execute import execute_step
from nodes.skill_match import SKILL_TOOL_PREFIX
from nodes.state import TurnState
from nodes.subgraph import SubgraphRun
from skills.base import Skill

SkillNode = Callable[[TurnState, RunnableConfig, Runtime[TurnContext]], dict[str, Any]]


def skill_node_name(skill_name: str) -> str:
    """The graph node of a skill: the name of the tool the agent calls it by (``skill__poster``)."""
    return SKILL_TOOL_PREFIX + skill_name


def skill_node(skill: Skill) -> SkillNode:
    """The supervisor's graph node that runs ``skill``; its graph is the node's subgraph."""

    def run_skill(state: TurnState, config: RunnableConfig, runtime: Runtime[TurnContext]) -> dict[str, Any]:
        _ = skill.graph  # named here because LangGraph finds a node's subgraph among what its function refers to
        return execute_step(turn_context(runtime), state, SubgraphRun.of_task(config))

    run_skill.__name__ = run_skill.__qualname__ = skill_node_name(skill.name)
    run_skill.__doc__ = f"Run the skill {skill.name} ({skill.description.split('.')[0]}) as this node's subgraph."
    return run_skill


def skill_nodes(skills: Iterable[Skill]) -> dict[str, SkillNode]:
    """Graph node name → graph node, one per skill."""
    return {skill_node_name(s.name): skill_node(s) for s in skills}
