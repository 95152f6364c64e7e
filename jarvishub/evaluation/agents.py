"""The agents the evaluation drives: runtimes with ``Runtime``'s methods (run, resume, pending, close).

* ``canvas``: :class:`jarvishub.runtime.Runtime`, the canvas-native agent.
* ``chat``: ``jarvishub.chat_runtime.ChatRuntime``, the chat-history baseline (its only memory is its
  transcript; no canvas reads in its grant), sending its whole transcript on every call.  Imported only when
  asked for.
* ``chat-trimmed``: the same baseline, each call trimmed to the newest messages that fit its window
  (``trim_messages``; ``JARVISHUB_CHAT_WINDOW_TOKENS``, default 32k approximate tokens).
* ``chat-summarised``: the same baseline with a running summary, written by its own model, of what no longer
  fits the window (``graphs.chat_context.Summarised``).

``jarvishub eval --agent both`` runs ``canvas`` and ``chat``; ``--agent all`` runs all four.

``--model offline`` gives each agent its offline planner (the canvas agent's
``OfflinePlanner``, the baseline's ``TranscriptPlanner``, which reads the same
grammar from the transcript); ``--model openai`` gives both the configured
OpenAI-compatible model (``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` / ``JARVISHUB_MODEL``);
``--model chaos[:RATE[:offline|openai]]`` wraps either in the chaos model (``nodes.models.chaos``), which
makes real models' mistakes at that rate (default 0.1, around the offline planner).
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

from jarvishub.project import Project

AgentKind = Literal["canvas", "chat", "chat-trimmed", "chat-summarised"]
ModelName = str
"""``offline``, ``openai`` or ``chaos[:RATE[:offline|openai]]`` (:func:`check_model_name`)."""
AGENT_KINDS: tuple[AgentKind, ...] = ("canvas", "chat", "chat-trimmed", "chat-summarised")
"""Every agent ``jarvishub eval --agent all`` runs."""
BOTH: tuple[AgentKind, ...] = ("canvas", "chat")
"""The agents of ``--agent both``: the canvas agent and the untrimmed baseline (its meaning before the variants)."""
CHAT_CONTEXT: dict[str, str] = {"chat": "untrimmed", "chat-trimmed": "trimmed", "chat-summarised": "summarised"}
"""Chat baseline kind -> its context policy (``graphs.chat_context``)."""


def is_chat(kind: str) -> bool:
    """Whether this agent kind is a variant of the chat-history baseline."""
    return kind in CHAT_CONTEXT


class AgentUnavailable(RuntimeError):
    """An agent or model that cannot be built here (a missing module, no API key): what is missing and why."""


def _import(module: str, name: str, why: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise AgentUnavailable(f"{why}: {module}.{name} is not available ({error})") from error


def check_model_name(name: str) -> str:
    """``name`` if it names a model the evaluation can build, else ValueError saying which ones it can."""
    if name in ("offline", "openai"):
        return name
    if name.startswith("chaos"):
        from nodes.models.chaos import parse_chaos

        parse_chaos(name)
        return name
    raise ValueError(f"invalid choice: {name!r} (choose from offline, openai, chaos[:RATE[:offline|openai]])")


def make_model(kind: AgentKind, model: ModelName, project: Project) -> BaseChatModel:
    """The chat model an agent plans with."""
    if model.startswith("chaos"):
        import zlib

        from jarvishub.evaluation.chaos import FOREIGN_POOL
        from nodes.models.chaos import ChaosModel, parse_chaos

        rate, base = parse_chaos(model)
        # Seeded by the scenario (its project folder's name), so a scenario meets the same mistakes every run.
        # The offline planners do not learn from feedback: they are shown the turn without the injected mistakes
        # (a real model is shown everything, and must read the feedback itself).
        return ChaosModel(inner=make_model(kind, base, project), rate=rate, forgiving=base == "offline",
                          seed=zlib.crc32(f"{kind}/{project.root.name}".encode()), foreign_ids=list(FOREIGN_POOL))
    if model == "openai":
        if not getattr(project.settings, "openai_api_key", None):
            raise AgentUnavailable("--model openai needs OPENAI_API_KEY (and optionally OPENAI_BASE_URL, "
                                   "JARVISHUB_MODEL) in the environment or the project's [settings]")
        from nodes.models.factory import chat_model

        return chat_model(project.settings)
    if is_chat(kind):
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
    if is_chat(kind):
        return _import("jarvishub.chat_runtime", "ChatRuntime", "the chat-history baseline is missing")
    raise AgentUnavailable(f"no agent {kind!r}; the agents are: {', '.join(AGENT_KINDS)}")


def make_agent(kind: AgentKind, project: Project, model: ModelName | BaseChatModel = "offline") -> Any:
    """A runtime of this kind on the project, planning with the named model (or the chat model given)."""
    cls = agent_class(kind)
    chat = make_model(kind, model, project) if isinstance(model, str) else model
    agent = cls(project, model=chat, context=CHAT_CONTEXT[kind]) if is_chat(kind) else cls(project, model=chat)
    if hasattr(chat, "all_tools"):  # the chaos model calls tools outside the grant from the whole manifest
        chat.all_tools = agent.manifest.tool_names()
    return agent
