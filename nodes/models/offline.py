"""The offline planner: a deterministic LangChain chat model of our own that emits real tool calls.

It reads what the propose node sends any model (the system view of the canvas,
the request, and the turn so far as tool calls and tool results) and decides the
next tool call with a list of *playbooks*, so the one code path that serves an
OpenAI model serves it too.  With no playbook for a request it says so in a
reply rather than guessing.
"""

from __future__ import annotations

import dataclasses

import json
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from nodes.menu import MORE_TOOLS, named_tools
from nodes.models.grammar import CAN_DO
from nodes.models.planner_playbooks import default_playbooks
from nodes.models.playbooks import Call, Done, PlannerInput, PriorCall
from nodes.understanding.kinds import clauses_by_family
from nodes.view import read_counts, read_listed


def read_conversation(messages: list[BaseMessage]) -> PlannerInput:
    """Recover the request, the canvas view, memory and the calls made so far from the messages."""
    view: dict[str, Any] = {}
    request = ""
    calls: list[PriorCall] = []
    pending: dict[str, PriorCall] = {}
    notes: list[str] = []
    counts: dict[str, dict[str, int]] | None = None
    listed: tuple[str, list[dict[str, str]]] | None = None
    for message in messages:
        if isinstance(message, SystemMessage):
            text = str(message.content)
            counts = read_counts(text) if counts is None else counts
            listed = read_listed(text) if listed is None else listed
            start = text.rfind("\n\n{")  # the JSON line after the view's tables
            if start >= 0:
                view = json.loads(text[start + 2:])
        elif isinstance(message, HumanMessage):
            if not request:
                request = str(message.content)
            else:
                notes.append(str(message.content))
        elif isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call["name"] == MORE_TOOLS:  # asking for the menu is not a step of the work
                    continue
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
    return PlannerInput(request=request, view=view, calls=calls, notes=notes, counts=counts, listed=listed)


class OfflinePlanner(BaseChatModel):
    """Deterministic planning over playbooks; no network, same tool-calling protocol as a real model."""

    bound_tools: list[dict[str, Any]] = Field(default_factory=list, repr=False)
    """The schemas of the last ``bind_tools`` (left out of the repr, as are the playbooks: LangChain's callbacks
    repr a model that is not serialisable on every call, each call binds a new copy, and its repr compared every
    field with a fresh default: a new set of playbooks)."""
    playbooks: list[Any] = Field(default_factory=default_playbooks, repr=False,
                                 description="Playbook objects, tried in order")

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
        planner_input.more_tools = named_tools(self.bound_tools)
        decision = self.decide(planner_input)
        if isinstance(decision, Call):
            message = AIMessage(content="", tool_calls=[{
                "name": decision.tool, "args": decision.args,
                "id": f"call_{len(planner_input.history) + len(planner_input.calls)}", "type": "tool_call"}])
        else:
            extra: dict[str, Any] = {"clarification": decision.clarification} if decision.clarification else {}
            if decision.failed:
                extra["outcome"] = "failed"
            elif decision.refused:
                extra["outcome"] = "refused"
            message = AIMessage(content=decision.text, additional_kwargs=extra)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def read(self, messages: list[BaseMessage]) -> PlannerInput:
        """What the planner knows from the messages it was sent (the canvas agent's: a view and this turn)."""
        return read_conversation(messages)

    def decide(self, planner_input: PlannerInput) -> Call | Done:
        """The next step: a question when the intent is asked about, else the playbook of its operation."""
        intent = planner_input.intent
        if intent.clarification is not None:
            return Done(text=intent.clarification.message, clarification=intent.clarification.payload(CAN_DO))
        groups = clauses_by_family(intent.clauses)
        if len(groups) > 1:  # "delete the last slide and undo the last change to shot 2": one family after another
            calls, start, said = planner_input.calls, 0, []
            for clauses in groups:
                # Each playbook sees only its own calls: the shortest run of the calls left after the families
                # before it with which it is done (playbooks read their calls by position).
                for end in range(start, len(calls) + 1):
                    part = dataclasses.replace(planner_input, calls=calls[start:end])
                    part.__dict__["_intent"] = intent.model_copy(update={"clauses": clauses})
                    step = self._playbook_step(part)
                    if not isinstance(step, Call) or end == len(calls):
                        break
                if isinstance(step, Call) or step.failed or step.refused or step.clarification:
                    return step
                said.append(step.text)
                start = end
            return Done(text=" ".join(said))
        return self._playbook_step(planner_input)

    def _playbook_step(self, planner_input: PlannerInput) -> Call | Done:
        """The step of the first playbook that matches the intent's operation."""
        intent = planner_input.intent
        for playbook in self.playbooks:
            if playbook.matches(planner_input):
                step = playbook.next_step(planner_input)
                # A granted tool left off the call's menu is asked for first, as a real model must: it can call
                # only what it was sent the schemas of.
                if isinstance(step, Call) and step.tool in planner_input.more_tools - planner_input.tools:
                    return Call(tool=MORE_TOOLS, args={"names": [step.tool]})
                if isinstance(step, Call) and step.tool not in planner_input.tools:
                    return Done(text=f"I would use {step.tool} for this, but this turn's grant does not include it.",
                                refused=True)
                return step
        text = (f"I understood {intent.operation.replace('_', ' ')}, but I have no offline playbook for it. "
                f"I can: {CAN_DO}. Or set OPENAI_API_KEY to use a real model.")
        return Done(text=text, clarification={"type": "clarification", "reason": "unsupported", "question": text,
                                              "can_do": CAN_DO, "operation": intent.operation})
