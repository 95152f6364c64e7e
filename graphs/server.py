"""The graph LangGraph's own server runs (``langgraph.json``): ``langgraph dev``, ``langgraph up``, the SDK.

A client sends only what a person would: ``{"request": ..., "selected_ids"?: [...], "profile"?: ...}``.
The first graph node (``begin``) does what :meth:`jarvishub.runtime.Runtime.run` does for the CLI: it
creates the turn's ids, derives the grant (the default policy, or a named ``[grants.NAME]`` profile of the
project file, from the input or from ``configurable.profile``) and saves it in the project's grant store,
so revocation and re-checks after an interrupt work exactly as they do locally.  The ``turn`` node then
runs the supervisor turn loop as a subgraph; its approval and clarification interrupts reach the client,
which answers them with ``Command(resume=...)``.

Nothing blocking happens when the server asks for the graph: :func:`make_supervisor` only compiles two
small graph nodes.  The project and its engine are opened on first use, inside a graph node, which the
server runs on a worker thread (so ``langgraph dev`` needs no ``--allow-blocking``).

The project folder is ``JARVISHUB_PROJECT``; it must already be a project (``jarvishub init DIR``), so a
server never creates one in whatever folder it was started from.
"""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime as GraphRuntime
from typing_extensions import NotRequired, TypedDict

from nodes.state import TurnState

PROJECT_ENV = "JARVISHUB_PROJECT"


class TurnInput(TypedDict):
    """What a client sends to start a turn."""

    request: str
    """What the person asks for, in their words."""
    selected_ids: NotRequired[list[str]]
    """Canvas node ids the person selected; a local edit is scoped to them."""
    profile: NotRequired[str]
    """A named grant profile of the project file (``[grants.NAME]``); default: the default policy."""


class TurnOutput(TypedDict, total=False):
    """What a finished (or paused) turn reports."""

    thread_id: str
    turn_id: str
    grant_id: str
    outcome: str
    reply: str | None
    canvas_before: int
    canvas_version: int


class TurnConfig(TypedDict, total=False):
    """Per-run settings under ``configurable``."""

    profile: str
    """The grant profile to use when the input names none."""


class ServerState(TurnState, total=False):
    """The server graph's state: the turn's state plus the requested profile."""

    profile: str


class ProjectNotConfigured(RuntimeError):
    """The server was started without a JarvisHub project to act on."""


_lock = threading.Lock()
_opened: dict[str, Any] = {}


def _runtime() -> Any:
    """The project's runtime, opened once per server process on first use (never on the event loop)."""
    with _lock:
        if "runtime" not in _opened:
            from jarvishub.project import Project
            from jarvishub.runtime import Runtime
            from jarvishub.settings import PROJECT_FILE

            folder = os.environ.get(PROJECT_ENV)
            if not folder or not (Path(folder) / PROJECT_FILE).exists():
                raise ProjectNotConfigured(
                    f"set {PROJECT_ENV} to a JarvisHub project folder (create one with `jarvishub init DIR`) "
                    "before starting LangGraph's server")
            project = Project.open(Path(folder))
            runtime = Runtime(project)
            _opened.update(project=project, runtime=runtime, supervisor=_build_turn_graph(runtime))
            atexit.register(_close)
        return _opened["runtime"]


def _close() -> None:
    """Close the runtime and the project: the embedded engine stops when no other process uses it."""
    with _lock:
        runtime, project = _opened.pop("runtime", None), _opened.pop("project", None)
        _opened.clear()
    if runtime is not None:
        runtime.close()
    if project is not None:
        project.close()


def _build_turn_graph(runtime: Any) -> Any:
    from graphs.supervisor import build_supervisor

    # No checkpointer of its own: as a subgraph it checkpoints into the server's.
    return build_supervisor(runtime.deps, checkpointer=None)


def begin(state: ServerState, config: RunnableConfig, runtime: GraphRuntime[TurnConfig]) -> dict[str, Any]:
    """Create the turn's ids and its grant, and record the turn's start."""
    configurable = config.get("configurable") or {}
    context = runtime.context or {}
    thread_id = str(configurable.get("thread_id") or "")
    profile = state.get("profile") or context.get("profile") or configurable.get("profile")
    start = _runtime().start_state(state["request"], thread_id=thread_id or None, profile=profile,
                                   selected=state.get("selected_ids") or [])
    return start


def turn(state: ServerState, config: RunnableConfig) -> dict[str, Any]:
    """Run the supervisor's turn loop on this turn's state; interrupts pass through to the client."""
    _runtime()
    supervisor = _opened["supervisor"]
    result = supervisor.invoke({k: v for k, v in state.items() if k != "profile"}, config)
    return {key: result.get(key) for key in ("outcome", "reply", "done", "canvas_version") if key in result}


def finish(state: ServerState) -> dict[str, Any]:
    """Report the canvas version the turn left."""
    return {"canvas_version": _runtime().project.store.canvas_version()}


def build_server_graph() -> Any:
    """The server graph, compiled without a checkpointer (the server supplies one)."""
    graph = StateGraph(ServerState, context_schema=TurnConfig, input_schema=TurnInput, output_schema=TurnOutput)
    graph.add_node("begin", begin)
    graph.add_node("turn", turn)
    graph.add_node("finish", finish)
    graph.add_edge(START, "begin")
    graph.add_edge("begin", "turn")
    graph.add_edge("turn", "finish")
    graph.add_edge("finish", END)
    return graph.compile()


def make_supervisor(config: dict[str, Any] | None = None) -> Any:
    """The graph factory named in ``langgraph.json``: cheap, and free of blocking calls."""
    return build_server_graph()
