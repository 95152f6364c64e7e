"""Skills: reusable creative procedures, each a LangGraph subgraph that acts only through the bridge.

A skill never holds the store, the bridge or the ticket authority.  Its graph
nodes get a :class:`SkillContext` from the run config: a read-only canvas and a
:class:`~nodes.ports.BridgePort` bound to the grant it was invoked under.  It
calls tools with :meth:`SkillContext.call`, which submits a ``ToolCall`` action
through the port under a grant narrowed to the skill's declared needs; the
bridge validates it, runs the tool and commits with a ticket.

Action ids inside a skill are derived from the parent action id and a counter
per branch, so a resumed turn replays a skill's committed steps instead of
running them again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_RUNTIME, CONFIG_KEY_TASK_ID
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from nodes.ports import BridgePort
from nodes.subgraph import SubgraphRun
from store.errors import CanvasError
from tools.base import Effect


class SkillStepRejected(CanvasError):
    """The bridge turned down one of a skill's actions (the message says why).

    ``refused`` is the bridge's reason (``kind_not_granted``, ``budget``, ...) when the bridge refused the action,
    so the step's observation shows a refusal by the mechanism, not only a message (``Bridge.execute``).
    """

    def __init__(self, message: str, *, refused: str | None = None) -> None:
        super().__init__(message)
        self.refused = refused


class SkillState(TypedDict, total=False):
    """State of a skill subgraph: its input, its output, and scratch values between its nodes."""

    input: dict[str, Any]
    output: dict[str, Any]
    scratch: dict[str, Any]


@dataclass
class SkillContext:
    """What a running skill may do: read the canvas, and submit actions through the bridge.

    ``bridge`` is a :class:`~nodes.ports.BridgePort`; given the application's
    bridge (tests, scripts), it is replaced by a port bound to ``grant``.
    """

    bridge: BridgePort
    grant: Grant
    usage: Usage
    thread_id: str
    turn_id: str | None
    action_prefix: str
    actor: str
    services: dict[str, Any] = field(default_factory=dict)
    progress: Callable[[str], None] | None = None
    provider_calls: int = 0
    cache_hits: int = 0
    _counter: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if not isinstance(self.bridge, BridgePort):
            self.bridge = self.bridge.port(self.grant)

    @property
    def canvas(self):
        """Read access to the canvas (the write side is the bridge's)."""
        return self.bridge.canvas

    @property
    def artifacts(self):
        """The artifact store, for skills that read media bytes (critique)."""
        return self.services["artifacts"]

    def _next_id(self, label: str) -> str:
        with self._lock:
            self._counter += 1
            return f"{self.action_prefix}/{self._counter}-{label}"

    def call(self, tool: str, **args: Any) -> dict[str, Any]:
        """Run one tool through the bridge; returns its observation or raises :class:`SkillStepRejected`."""
        action = ToolCall(action_id=self._next_id(tool), actor=self.actor, tool=tool, args=args)
        if self.progress:
            self.progress(f"{self.actor}: {tool}")
        result = self.bridge.submit(action, self.grant, self.usage, thread_id=self.thread_id, turn_id=self.turn_id)
        if result.verdict != "allow":
            raise SkillStepRejected(f"{self.actor} could not run {tool}: {result.message}",
                                    refused=result.reason or result.verdict)
        if "error" in result.observation:
            raise SkillStepRejected(f"{self.actor}: {tool} failed: {result.observation['error']}",
                                    refused=result.observation.get("refused"))
        with self._lock:
            self.provider_calls += result.provider_calls
            self.cache_hits += result.cache_hits
        return result.observation

    def branch(self, label: str, *, actor: str | None = None, grant: Grant | None = None) -> SkillContext:
        """A context for one parallel branch: its own action-id sequence, optionally a narrower grant."""
        return SkillContext(bridge=self.bridge, grant=grant or self.grant, usage=self.usage,
                            thread_id=self.thread_id, turn_id=self.turn_id,
                            action_prefix=f"{self.action_prefix}/{label}", actor=actor or self.actor,
                            services=self.services, progress=self.progress)

    def absorb(self, child: SkillContext) -> None:
        """Add a branch's provider-call counts to this context's."""
        with self._lock:
            self.provider_calls += child.provider_calls
            self.cache_hits += child.cache_hits


_FRAMEWORK_MODULES = frozenset({"skills.base", "skills.compose", "dataclasses"})


def _maker_module() -> str:
    """The first module up the call stack outside this framework: the one whose code is making a skill."""
    frame = sys._getframe(1)
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if name not in _FRAMEWORK_MODULES:
            return name
        frame = frame.f_back
    return ""


def _running_skill_node() -> RunnableConfig | None:
    """The config of the skill graph node this code runs in, if it runs in one (a composite running a child).

    A skill's graph runs on the bridge's skill thread with empty context variables, so the only graph node
    config found here is a skill's own, never the supervisor's (``nodes/subgraph.py``).
    """
    try:
        config = get_config()
    except RuntimeError:  # not inside a running graph node
        return None
    configurable = config.get("configurable") or {}
    if CONFIG_KEY_TASK_ID not in configurable or not isinstance(getattr(configurable.get(CONFIG_KEY_RUNTIME),
                                                                        "context", None), SkillContext):
        return None
    return config


def skill_context(config: RunnableConfig) -> SkillContext:
    """The SkillContext a skill graph node runs with: its runtime context (``Runtime[SkillContext]``), never state.

    A node may take ``runtime: Runtime[SkillContext]`` and read ``runtime.context`` instead; this reads the same
    context from the node's config.
    """
    runtime = (config.get("configurable") or {}).get(CONFIG_KEY_RUNTIME)
    ctx = getattr(runtime, "context", None)
    if not isinstance(ctx, SkillContext):
        raise RuntimeError("this graph is a skill: run it with Skill.run, which supplies its SkillContext")
    return ctx


@dataclass
class Skill:
    """A named, described subgraph with declared input/output schemas and the tools it needs.

    ``triggers`` are phrases a request may use to ask for the skill ("make a poster"); the offline planner
    routes a request that uses one (or names the skill) to it (``nodes/skill_match.py``), and a real model
    reads them in the skill tool's description.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    needs: list[str]
    graph: Any
    effects: frozenset[Effect] = frozenset({Effect.MUTATES_CANVAS})
    triggers: list[str] = field(default_factory=list)
    defined_in: str = field(default="", compare=False, repr=False)
    """The module whose code made the skill (found when it is made): where ``jarvishub skills`` says it is from,
    even when other modules import it."""

    def __post_init__(self) -> None:
        if not self.defined_in:
            self.defined_in = _maker_module()

    def run(self, ctx: SkillContext, inputs: dict[str, Any] | BaseModel, *,
            subgraph: SubgraphRun | None = None) -> BaseModel:
        """Run the skill's graph with ``ctx`` and return its validated output.

        ``subgraph``: the supervisor's graph node for this skill is running it (``graphs/skill_nodes.py``), so
        the run is that node's subgraph and its events join the turn's stream (``nodes/subgraph.py``).
        Called from a running skill's graph node (a composite's step, ``skills.compose``), the run is that
        node's subgraph, as any graph invoked in a graph node is LangGraph's: nested under it in the stream
        (``parent|child``) and in the checkpoints.
        """
        payload = inputs.model_dump(mode="json") if isinstance(inputs, BaseModel) else dict(inputs)
        self.input_model.model_validate(payload)
        # A skill runs whole inside one step (a resumed turn replays it through its deterministic action ids,
        # never from a checkpoint).  Run as a supervisor's graph node's subgraph, or as a child in a running
        # skill's graph node, it checkpoints where that subgraph would, in the run's checkpointer
        # lent to it under its namespace, so its state can be read; otherwise it keeps none, not in its own saver
        # either.  Its context is its runtime context, never in the run's config, which streamed and
        # checkpointed runs serialise.
        within = _running_skill_node()
        if within is not None:
            config: RunnableConfig = {**within, "recursion_limit": 200}
        else:
            config = {"configurable": subgraph.configurable() if subgraph else {}, "recursion_limit": 200}
        lent = (config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINTER) is not None
        graph = self.graph.copy(update={"checkpointer": None if lent else False})
        final = graph.invoke({"input": payload, "output": {}, "scratch": {}}, config=config, context=ctx)
        return self.output_model.model_validate(final.get("output") or {})

    @classmethod
    def from_function(
        cls,
        function: Callable[[SkillContext, Any], BaseModel],
        *,
        name: str,
        description: str,
        input_model: type[BaseModel],
        output_model: type[BaseModel],
        needs: list[str],
        effects: frozenset[Effect] = frozenset({Effect.MUTATES_CANVAS}),
        triggers: list[str] | None = None,
    ) -> Skill:
        """A one-node skill graph around a plain function ``(ctx, input) -> output``."""

        def node(state: SkillState, config: RunnableConfig) -> dict[str, Any]:
            result = function(skill_context(config), input_model.model_validate(state["input"]))
            return {"output": result.model_dump(mode="json")}

        graph = StateGraph(SkillState)
        graph.add_node(name, node)
        graph.add_edge(START, name)
        graph.add_edge(name, END)
        return cls(name=name, description=description, input_model=input_model, output_model=output_model,
                   needs=list(needs), graph=graph.compile(), effects=effects, triggers=list(triggers or []))


def skill(
    *,
    name: str,
    description: str,
    input_model: type[BaseModel],
    output_model: type[BaseModel],
    needs: list[str],
    effects: frozenset[Effect] = frozenset({Effect.MUTATES_CANVAS}),
    triggers: list[str] | None = None,
) -> Callable[[Callable[[SkillContext, Any], BaseModel]], Skill]:
    """Decorator: turn ``def f(ctx, input) -> output`` into a :class:`Skill` (the function is replaced by it).

    ``triggers``: phrases that ask for the skill in a request (``["make a poster"]``), see :class:`Skill`.
    """

    def wrap(function: Callable[[SkillContext, Any], BaseModel]) -> Skill:
        return Skill.from_function(function, name=name, description=description, input_model=input_model,
                                   output_model=output_model, needs=needs, effects=effects, triggers=triggers)

    return wrap
