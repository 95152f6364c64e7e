"""The offline planner: a deterministic LangChain chat model of our own that emits real tool calls.

It reads what the propose node sends any model (the system view of the canvas,
the request, and the turn so far as tool calls and tool results) and decides the
next tool call with a list of *playbooks*, so the one code path that serves an
OpenAI model serves it too.  With no playbook for a request it says so in a
reply rather than guessing.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from nodes.models.edits import clarify
from nodes.models.grammar import CAN_DO, mentions_an_edit
from nodes.models.playbooks import Call, Done, PlannerInput, PriorCall, default_playbooks


def read_conversation(messages: list[BaseMessage]) -> PlannerInput:
    """Recover the request, the canvas view, memory and the calls made so far from the messages."""
    view: dict[str, Any] = {}
    request = ""
    calls: list[PriorCall] = []
    pending: dict[str, PriorCall] = {}
    notes: list[str] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            text = str(message.content)
            start = text.find("\n\n{")
            if start >= 0:
                view = json.loads(text[start + 2:])
        elif isinstance(message, HumanMessage):
            if not request:
                request = str(message.content)
            else:
                notes.append(str(message.content))
        elif isinstance(message, AIMessage):
            for call in message.tool_calls:
                prior = PriorCall(tool=call["name"], args=call["args"], answer={})
                calls.append(prior)
                pending[call["id"]] = prior
        elif isinstance(message, ToolMessage):
            prior = pending.get(message.tool_call_id)
            if prior is not None:
                try:
                    prior.answer = json.loads(str(message.content))
                except json.JSONDecodeError:
                    prior.answer = {"text": str(message.content)}
    return PlannerInput(request=request, view=view, calls=calls, notes=notes)


class OfflinePlanner(BaseChatModel):
    """Deterministic planning over playbooks; no network, same tool-calling protocol as a real model."""

    bound_tools: list[dict[str, Any]] = Field(default_factory=list)
    playbooks: list[Any] = Field(default_factory=default_playbooks, description="Playbook objects, tried in order")

    model_config = {"arbitrary_types_allowed": True}

    @property
    def _llm_type(self) -> str:
        return "jarvishub-offline-planner"

    def bind_tools(self, tools: list[Any], **kwargs: Any) -> OfflinePlanner:  # type: ignore[override]
        return self.model_copy(update={"bound_tools": [convert_to_openai_tool(t) for t in tools]})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        planner_input = self.read(messages)
        planner_input.tools = {t["function"]["name"] for t in self.bound_tools}
        planner_input.tool_schemas = {t["function"]["name"]: t for t in self.bound_tools}
        decision = self.decide(planner_input)
        if isinstance(decision, Call):
            message = AIMessage(content="", tool_calls=[{
                "name": decision.tool, "args": decision.args,
                "id": f"call_{len(planner_input.history) + len(planner_input.calls)}", "type": "tool_call"}])
        else:
            extra: dict[str, Any] = {"clarification": decision.clarification} if decision.clarification else {}
            if decision.failed:
                extra["outcome"] = "failed"
            message = AIMessage(content=decision.text, additional_kwargs=extra)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def read(self, messages: list[BaseMessage]) -> PlannerInput:
        """What the planner knows from the messages it was sent (the canvas agent's: a view and this turn)."""
        return read_conversation(messages)

    def decide(self, planner_input: PlannerInput) -> Call | Done:
        """The next step: the first playbook that claims the request decides it."""
        for playbook in self.playbooks:
            if playbook.matches(planner_input):
                step = playbook.next_step(planner_input)
                if isinstance(step, Call) and step.tool not in planner_input.tools:
                    return Done(text=f"I would use {step.tool} for this, but this turn's grant does not include it.")
                return step
        understood = mentions_an_edit(planner_input.request)
        if understood:
            return clarify("no_target", (
                f"I understood {', '.join(understood)}, but not which shot to change. Name it: 'shot 3', "
                "'shots 2 and 4', 'the last shot', 'every shot'."), understood=understood)
        return clarify("unparsed", (
            "I did not understand that request, and I never guess another edit instead. I can: make a narrative "
            "(\"a 6-shot short drama about ...\"), a web page from a brief, a slide deck on a topic, notes, "
            f"queries, and edits of shots ({CAN_DO}). Or set OPENAI_API_KEY to use a real model."), understood=[])
