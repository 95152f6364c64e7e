"""The graph LangGraph's own server runs (``langgraph.json``): ``langgraph dev``, ``langgraph up``, the SDK, Studio.

It is the supervisor itself (``graphs/supervisor.py``): begin → observe → propose → validate → execute (or a
skill's own graph node, its graph a subgraph) → feedback → repair → commit → record.  So Studio,
``get_graph(xray=True)``, ``get_state(subgraphs=True)`` and streamed subgraph events show every graph node, the
interrupt on validate, and the skills' inner steps.

A client sends only what a person would (``nodes.begin.TurnInput``: ``request``, ``selected_ids``,
``profile``); the ``begin`` graph node starts the turn as :meth:`jarvishub.runtime.Runtime.run` does.  The
project's services are the run's runtime context (:class:`~nodes.context.TurnContext`): a client cannot send
live services, so :class:`ServedSupervisor` gives every run this server's project's context, whatever context
the client sent.

The project folder is ``JARVISHUB_PROJECT``; it must already be a project (``jarvishub init DIR``), so a server
never creates one in whatever folder it was started from.  Asking for the graph reads the project file and
imports its skills (on a worker thread: the server's event loop never blocks); the project and its engine
are opened on the first run, also off the event loop.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from graphs.supervisor import build_supervisor
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from jarvishub.settings import PROJECT_FILE, load_settings
from nodes.context import TurnContext
from skills.base import Skill
from skills.registry import discover_skills

PROJECT_ENV = "JARVISHUB_PROJECT"


class ProjectNotConfigured(RuntimeError):
    """The server was started without a JarvisHub project to act on."""


_lock = threading.Lock()
_opened: dict[str, Any] = {}


def _project_folder() -> Path:
    folder = os.environ.get(PROJECT_ENV)
    if not folder or not (Path(folder) / PROJECT_FILE).exists():
        raise ProjectNotConfigured(
            f"set {PROJECT_ENV} to a JarvisHub project folder (create one with `jarvishub init DIR`) "
            "before starting LangGraph's server")
    return Path(folder)


def served_context() -> TurnContext:
    """This server's project's turn context: its runtime, opened once per server process on first use."""
    with _lock:
        if "runtime" not in _opened:
            project = Project.open(_project_folder())
            runtime = Runtime(project)
            _opened.update(project=project, runtime=runtime)
            atexit.register(_close)
        return _opened["runtime"].turn_context


def _close() -> None:
    """Close the runtime and the project: the embedded engine stops when no other process uses it."""
    with _lock:
        runtime, project = _opened.pop("runtime", None), _opened.pop("project", None)
        _opened.clear()
    if runtime is not None:
        runtime.close()
    if project is not None:
        project.close()


class ServedSupervisor(CompiledStateGraph):
    """The compiled supervisor, run with this server's project's :class:`TurnContext` (the server passes the
    context a client sent, which cannot hold the project's services)."""

    def stream(self, input: Any, config: Any = None, *, context: Any = None, **kwargs: Any) -> Iterator[Any]:
        """:meth:`CompiledStateGraph.stream` with the project's context."""
        yield from super().stream(input, _with_profile(config, context), context=served_context(), **kwargs)

    async def astream(self, input: Any, config: Any = None, *, context: Any = None,
                      **kwargs: Any) -> AsyncIterator[Any]:
        """:meth:`CompiledStateGraph.astream` with the project's context (opened on a worker thread)."""
        served = await asyncio.to_thread(served_context)
        async for chunk in super().astream(input, _with_profile(config, context), context=served, **kwargs):
            yield chunk

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """None: a client sends no context (the server gives each run its project's)."""
        return None


def _with_profile(config: Any, context: Any) -> Any:
    """The run's config with the grant profile a client gave as its context (``{"profile": NAME}``), which
    ``begin`` reads when the input names none."""
    profile = context.get("profile") if isinstance(context, dict) else None
    if not profile:
        return config
    config = dict(config or {})
    config["configurable"] = {**(config.get("configurable") or {}), "profile": profile}
    return config


def project_skills() -> list[Skill]:
    """The skills of the served project (the built-ins when none is configured yet: a run then says how)."""
    try:
        folder = _project_folder()
    except ProjectNotConfigured:
        return discover_skills(None).skills
    if "runtime" in _opened:
        return _opened["runtime"].skill_graphs()
    return discover_skills(folder, load_settings(folder).project).skills


def served_graph() -> ServedSupervisor:
    """The supervisor with a graph node per skill of the project, compiled once per server process, without a
    checkpointer (the server supplies one)."""
    with _lock:
        graph = _opened.get("graph")
    if graph is None:
        compiled = build_supervisor(project_skills(), checkpointer=None)
        graph = ServedSupervisor(**{k: v for k, v in compiled.__dict__.items() if k != "__orig_class__"})
        with _lock:
            graph = _opened.setdefault("graph", graph)
    return graph


async def make_supervisor(config: dict[str, Any] | None = None) -> ServedSupervisor:
    """The graph factory named in ``langgraph.json`` (its reading of the project runs off the event loop)."""
    return await asyncio.to_thread(served_graph)
