"""The services behind the supervisor's graph nodes, given to each run as LangGraph's runtime context.

The graph nodes are plain functions ``node(state, runtime: Runtime[TurnContext])``: nothing is closed over
when the graph is compiled, so one compiled graph serves every project and every caller.  Whoever runs the
graph passes the context: ``jarvishub.runtime.Runtime`` (the CLI, the web canvas, tests) at ``stream`` time,
and ``jarvishub.langgraph_server`` for LangGraph's server.  None of it lives in graph state, so none of it is
checkpointed; a skill never sees it (its graph runs with a :class:`~skills.base.SkillContext` of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langgraph.runtime import Runtime

from nodes.bridge import Bridge
from store.trajectories import TrajectoryStore

if TYPE_CHECKING:
    from nodes.understanding.facts import CanvasFacts

StartTurn = Callable[..., dict[str, Any]]
"""``start_turn(request, *, thread_id, profile, selected) -> the turn's first state`` (ids, intent, saved grant,
recorded start): ``jarvishub.runtime.Runtime.start_state``."""


class NoTurnContext(RuntimeError):
    """The supervisor graph was run without its services (``context=TurnContext(...)``)."""


@dataclass
class TurnContext:
    """What the supervisor's graph nodes use (LangGraph's runtime context; never graph state)."""

    bridge: Bridge
    model: BaseChatModel
    trajectories: TrajectoryStore
    start_turn: StartTurn | None = None
    """How ``begin`` starts a turn from a person's request (None: the caller starts turns itself)."""
    start: dict[str, Any] | None = None
    """A turn this run's caller has started already (``Runtime.run``; a restart): ``begin`` takes it as it is."""
    fresh: bool = False
    """Whether this run started its turn just now (``Runtime.run``): then no process has run any of the turn's
    actions yet (their ids start with the new turn's id), so ``execute`` need not look for an earlier commit of
    each; a resumed or restarted run looks (``nodes.execute``)."""
    facts: CanvasFacts | None = None
    """The facts the turn's understanding read as it started (``Runtime.run``), labelled with their canvas
    version: the first focused view reuses them while the canvas is still at that version (``nodes.resolve``)."""
    max_steps: int = 40
    max_retries: int = 2
    evaluate_generations: bool = True
    ask_person_for_feedback: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def turn_context(runtime: Runtime[TurnContext]) -> TurnContext:
    """The run's :class:`TurnContext`, or a :class:`NoTurnContext` that says how to give one."""
    context = runtime.context
    if not isinstance(context, TurnContext):
        raise NoTurnContext("the supervisor graph runs with its services as LangGraph's runtime context: "
                            "graph.stream(input, config, context=TurnContext(...)), as jarvishub.runtime.Runtime does")
    return context
