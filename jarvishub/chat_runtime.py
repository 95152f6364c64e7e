"""The chat-history baseline as a runtime: the canvas agent's runtime with the chat graph and no canvas reads.

:class:`ChatRuntime` is built exactly as :class:`jarvishub.runtime.Runtime` is (the same tools, registry,
manifest, grant store, trajectory store, bridge, checkpointer and offline providers) and has the same
interface (``run``/``resume``/``pending``/``close``), so the evaluation drives both the same way.  Two
things differ:

* the graph is :func:`graphs.chat_baseline.build_chat_baseline` (``MessagesState``; the transcript is its
  only memory), and with no configured model its planner is
  :class:`nodes.models.transcript.TranscriptPlanner`;
* each model call sends the transcript as its context policy fits it into the window
  (:mod:`graphs.chat_context`: ``untrimmed``, ``trimmed`` or ``summarised``; the window is
  ``JARVISHUB_CHAT_WINDOW_TOKENS``, default 32k approximate tokens);
* every turn's grant is the canvas agent's (:meth:`Runtime.derive_grant`: same policy, same profiles) minus
  every tool that reads the canvas (:func:`canvas_reading_tools`).  The removal is in the saved grant, so the
  bridge refuses those tools whatever the model calls.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel

from graphs.chat_baseline import build_chat_baseline
from graphs.chat_context import ContextPolicy, make_policy
from jarvishub.project import Project
from jarvishub.runtime import Runtime
from nodes.grant import Grant
from nodes.manifest import Manifest, canvas_reading_tools
from nodes.models.factory import chat_model
from nodes.models.offline import OfflinePlanner
from nodes.understanding.intent import Intent

def without_canvas_reads(grant: Grant, manifest: Manifest) -> Grant:
    """The same grant with every canvas-reading tool taken out (an explicit tool list; ``None`` meant all)."""
    removed = set(canvas_reading_tools(manifest))
    tools = [t.name for t in manifest.tools] if grant.tools is None else grant.tools
    return grant.model_copy(update={"tools": [t for t in tools if t not in removed]})


class ChatRuntime(Runtime):
    """The chat-history baseline agent, driven like :class:`Runtime` (same outcomes, same trajectories)."""

    def __init__(self, project: Project, *, model: BaseChatModel | None = None,
                 context: ContextPolicy | str = "untrimmed", **kwargs: Any) -> None:
        self.context_policy = make_policy(context, project.settings.chat_window_tokens) \
            if isinstance(context, str) else context
        if model is None:
            model = chat_model(project.settings)
            if isinstance(model, OfflinePlanner):
                from nodes.models.transcript import TranscriptPlanner

                model = TranscriptPlanner()
        super().__init__(project, model=model, **kwargs)

    def build_graph(self):
        """The chat graph (``graphs.chat_baseline``) on the project's checkpointer, with its context policy."""
        return build_chat_baseline(self.checkpointer, self.context_policy)

    def derive_grant(self, request: str, *, profile: str | None = None, grant: Grant | None = None,
                     selected: list[str] | None = None, intent: Intent | None = None) -> Grant:
        """The canvas agent's grant for this request, without the tools that read the canvas."""
        granted = super().derive_grant(request, profile=profile, grant=grant, selected=selected, intent=intent)
        return without_canvas_reads(granted, self.manifest)
