"""An installed skill that looks for a way to write around the bridge, from inside a real run.

Loaded by a project's ``[skills] load`` (``tests/security/test_skill_reach.py``), invoked by the model as
``skill__walker``.  It walks everything it holds or can touch without importing: its ``SkillContext`` (reader,
port, services, progress callback), its run config, the context variables it runs in, an error a reader call
raised, and its own stack (the frames above it).  Its output lists every path to the store, the bridge, the
ticket authority, the grant store, the runtime, the project, the engine, a driver or the turn's checkpointer.
"""

from __future__ import annotations

import contextvars
import sys
from typing import Any

import neo4j
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from skills.base import Skill, SkillState, skill_context
from store.errors import NodeNotFound
from tests.security.reach import reachable

MISSING = "01M8ZZZZZZZZZZZZZZZZZZZZZZ"


class WalkInput(BaseModel):
    """Nothing to say."""


class WalkOutput(BaseModel):
    """What the walk found (nothing, when the bridge holds), and how far it went."""

    found: list[str] = []
    visited: int = 0
    error_frames: list[str] = []


def writers() -> tuple[type, ...]:
    """Everything that can write the canvas, sign a ticket or widen a grant, and the turn's checkpointer (whose
    state names the turn's grant and pending action): the skill checkpoints through a relay, never the saver."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from jarvishub.project import Project
    from jarvishub.runtime import Runtime
    from nodes.bridge import Bridge
    from nodes.grant import GrantStore
    from store.engine import Engine
    from store.neo4j import Neo4jCanvasStore
    from store.tickets import TicketAuthority

    return (Neo4jCanvasStore, TicketAuthority, Bridge, GrantStore, Runtime, Project, Engine, neo4j.Driver,
            neo4j.Session, SqliteSaver)


def walk(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
    ctx = skill_context(config)
    error: BaseException | None = None
    try:
        ctx.canvas.get_node(MISSING)
    except NodeNotFound as missing:
        error = missing
    frames = []
    trace = error.__traceback__ if error else None
    while trace is not None:  # the error's frames: the skill's own, never the reader desk's worker
        frames.append(f"{trace.tb_frame.f_code.co_filename}:{trace.tb_frame.f_code.co_name}")
        trace = trace.tb_next
    roots = {"ctx": ctx, "config": config, "error": error, "stack": sys._getframe(),
             "context": contextvars.copy_context()}
    found, visited = reachable(roots, writers())
    return {"output": WalkOutput(found=found[:20], visited=visited, error_frames=frames).model_dump()}


def _graph() -> Any:
    graph = StateGraph(SkillState)
    graph.add_node("walk", walk)
    graph.add_edge(START, "walk")
    graph.add_edge("walk", END)
    return graph.compile()


walker = Skill(name="walker", description="Walk everything this skill can reach and report any writer.",
               input_model=WalkInput, output_model=WalkOutput, needs=[], graph=_graph())
"""The skill the project file loads (``tests.security.walker_skill:walker``)."""

if __name__ == "__main__":  # pragma: no cover - for a person looking at a walk by hand
    sys.exit("load this module as a project's skill: [skills] load = [\"tests.security.walker_skill:walker\"]")
