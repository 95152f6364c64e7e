"""The agents the evaluation drives: runtimes with ``Runtime``'s methods (run, resume, pending, close).

* ``canvas``: :class:`jarvishub.runtime.Runtime`, the canvas-native agent.
* ``chat``: ``jarvishub.chat_runtime.ChatRuntime``, the chat-history baseline (its only memory is its
  transcript; no canvas reads in its grant).  Imported only when asked for.

``--model offline`` gives each agent its offline planner (the canvas agent's
``OfflinePlanner``, the baseline's ``TranscriptPlanner``, which reads the same
grammar from the transcript); ``--model openai`` gives both the configured
OpenAI-compatible model (``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` / ``JARVISHUB_MODEL``).
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

from jarvishub.project import Project

AgentKind = Literal["canvas", "chat"]
ModelName = Literal["offline", "openai"]
AGENT_KINDS: tuple[AgentKind, ...] = ("canvas", "chat")


class AgentUnavailable(RuntimeError):
    """An agent or model that cannot be built here (a missing module, no API key): what is missing and why."""


def _import(module: str, name: str, why: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise AgentUnavailable(f"{why}: {module}.{name} is not available ({error})") from error


def make_model(kind: AgentKind, model: ModelName, project: Project) -> BaseChatModel:
    """The chat model an agent plans with."""
    if model == "openai":
        if not getattr(project.settings, "openai_api_key", None):
            raise AgentUnavailable("--model openai needs OPENAI_API_KEY (and optionally OPENAI_BASE_URL, "
                                   "JARVISHUB_MODEL) in the environment or the project's [settings]")
        from nodes.models.factory import chat_model

        return chat_model(project.settings)
    if kind == "chat":
        planner = _import("nodes.models.transcript", "TranscriptPlanner",
                          "the chat baseline's offline planner is missing")
        return planner()
    from nodes.models.offline import OfflinePlanner

    return OfflinePlanner()


def agent_class(kind: AgentKind) -> type:
    """The runtime class of an agent kind (the chat baseline is imported only here)."""
    if kind == "canvas":
        from jarvishub.runtime import Runtime

        return Runtime
    if kind == "chat":
        return _import("jarvishub.chat_runtime", "ChatRuntime", "the chat-history baseline is missing")
    raise AgentUnavailable(f"no agent {kind!r}; the agents are: {', '.join(AGENT_KINDS)}")


def make_agent(kind: AgentKind, project: Project, model: ModelName | BaseChatModel = "offline") -> Any:
    """A runtime of this kind on the project, planning with the named model (or the chat model given)."""
    cls = agent_class(kind)
    chat = make_model(kind, model, project) if isinstance(model, str) else model
    return cls(project, model=chat)
