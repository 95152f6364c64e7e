"""The chat-history baseline: a standard LangGraph tool-calling agent whose only memory is its transcript.

``MessagesState``: the thread's messages (each request, the model's tool calls, the tool results, its replies)
accumulate from turn to turn and are checkpointed with the project's checkpointer.  The ``agent`` graph node
sends the model a fixed system prompt plus the whole transcript, with the grant's tools bound; nothing else:
no canvas view, no summary of earlier turns read from the canvas, no memory lines.

Every tool call goes through the canvas agent's own bridge pipeline, unchanged: ``validate`` (the grant,
approval interrupts) → ``execute`` → ``feedback`` → ``repair`` → ``commit`` (the ticket is authorised against
the grant for exactly the mutations produced) → ``record`` (the same trajectory keys and Turn node).  Those
graph nodes are the baseline's "tools node"; ``tool_result`` then appends what came back as a
``ToolMessage``, which is all the model will ever know about it.

How much of the transcript each call sends is the baseline's context policy (``graphs.chat_context``): all of
it (``untrimmed``), the newest messages that fit a window (``trimmed``, LangChain's ``trim_messages``), or a
running summary written by the same model plus the newest messages (``summarised``).
"""

from __future__ import annotations

import json
from typing import Any, get_type_hints

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.errors import GraphInterrupt
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer, interrupt
from typing_extensions import TypedDict

from graphs.chat_context import ContextPolicy, Untrimmed
from graphs.supervisor import add_bridge_pipeline
from nodes.context_size import ModelInput, model_input_size
from nodes.context import TurnContext, turn_context
from nodes.grant import Grant
from nodes.models.factory import model_name_of, provider_failure
from nodes.models.playbooks import ANSWER_PREFIX
from nodes.models.transcript import SELECTED_PREFIX, UNUSABLE_PREFIX
from nodes.propose import MAX_QUESTIONS, _clarification, _tool_answer, parse_response, reply_outcome, tool_schemas
from nodes.record import record
from nodes.observe import new_turn
from nodes.state import TurnState
from store.errors import is_engine_outage
from tools.generate.base import GenerationError
from tools.generate.errors import ProviderUnavailable
from tools.spend import charge_model

SYSTEM_PROMPT = """You are a creative agent working in a chat. You make and change images, clips, cuts, web \
pages and slide decks by calling tools. You cannot see the project: what you know is this conversation, the \
person's requests and the results of your own tool calls. Refer to things by the ids your tools returned. Call \
one tool at a time. When the request is done, answer in plain text (no tool call) with what you made and changed."""


ChatState = TypedDict("ChatState", {**get_type_hints(TurnState, include_extras=True),  # type: ignore[misc]
                                     **get_type_hints(MessagesState, include_extras=True),
                                     "summary": str, "window_spent": dict[str, int] | None}, total=False)
"""The turn loop's bookkeeping (ids, grant, steps, outcome, with their reducers) plus ``MessagesState``'s
``messages``: the transcript the model sees, ``summary``: the summarised variant's running summary of
the messages it folded, and ``window_spent``: the size of the summariser's call ``fit_window`` made for the
step (the agent node counts it once).  (Built from both, as the two TypedDicts come from different ``typing`` modules and
cannot be subclassed together.)"""


def bound_tools(deps: TurnContext, grant: Grant) -> list[dict[str, Any]]:
    """The tool schemas bound to the model: the grant's tools, built as the canvas agent builds them."""
    return tool_schemas(deps, grant)


def request_message(request: str, selected: list[str]) -> HumanMessage:
    """The person's request as the chat model reads it; a selection is named in words (ids), nothing more."""
    if selected:
        request += "\n\n" + SELECTED_PREFIX + ", ".join(selected)
    return HumanMessage(content=request)


def begin(state: ChatState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """The begin graph node: a new turn's fresh per-turn fields, and the request appended to the transcript."""
    deps = turn_context(runtime)
    if state.get("state_turn_id") == state["turn_id"]:
        return {}  # resumed from the turn's first checkpoint: the request is in the transcript already
    version = deps.bridge.store.canvas_version()  # the harness measures the canvas; the model never sees it
    return {**new_turn(state["turn_id"], version), "canvas_version": version, "done": False,
            "messages": [request_message(state["request"], state.get("selected_ids") or [])]}


def _kept(message: AIMessage, action: dict[str, Any] | None) -> AIMessage:
    """The model's message as the transcript keeps it: its one tool call carries the action's id."""
    if action is None or action.get("kind") != "tool_call":
        return message
    # The loop runs one call per step (as the canvas agent does); extra parallel calls are not kept, so every
    # kept call gets exactly one ToolMessage (OpenAI-compatible APIs refuse a call without its result).
    return AIMessage(content=message.content, tool_calls=[{
        "name": action["tool"], "args": action["args"], "id": action["action_id"], "type": "tool_call"}])


def make_agent(policy: ContextPolicy | None = None):
    """The agent graph node: the model reads the transcript (as the context policy fits it into the window)
    and proposes the next action."""
    policy = policy or Untrimmed()

    def agent(state: ChatState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
        deps = turn_context(runtime)
        grant = deps.bridge.grants.get(state["grant_id"])
        action_id = f"{state['turn_id']}-s{state.get('step_index', 0)}"
        schemas = bound_tools(deps, grant)
        model = deps.model.bind_tools(schemas)
        added: list[BaseMessage] = []
        answers = list(state.get("answers") or [])
        # The summariser's call, if ``fit_window`` made one for this step, is a model call of the step.
        sent = ModelInput.model_validate(state.get("window_spent") or {})
        window = policy.window(SystemMessage(content=SYSTEM_PROMPT), list(state["messages"]),
                               state.get("summary") or "", schemas, deps.model, fold=False)
        transcript: list[BaseMessage] = window.messages
        kept: dict[str, Any] = {"window_spent": None}  # counted in this step's calls: not again in the next

        def ask() -> AIMessage:
            nonlocal sent
            messages = [*transcript, *added]
            sent = sent.plus(model_input_size(messages, schemas))
            try:
                reply = model.invoke(messages)
            except Exception as error:
                failure = provider_failure(error, deps.model)  # an outage stops the turn, as for the canvas agent
                if failure is error:
                    raise
                raise failure from error
            charge_model(deps.extra.get("spend"), None, reply, model=model_name_of(deps.model),
                         thread_id=state.get("thread_id"), turn_id=state.get("turn_id"), action_id=action_id)
            return reply

        try:
            message = ask()
            clarification = _clarification(message)
            asked = 0
            # An ambiguous target is a question (as for the canvas agent): the question and the person's answer
            # join the transcript. LangGraph re-runs this node on resume, so nothing before interrupt() writes.
            while clarification and clarification.get("reason") == "ambiguous" and asked < MAX_QUESTIONS:
                answer = str(interrupt(clarification))
                answers.append(answer)
                asked += 1
                added += [AIMessage(content=message.content), HumanMessage(content=ANSWER_PREFIX + answer)]
                message = ask()
                clarification = _clarification(message)
        except (ProviderUnavailable, GenerationError):
            raise
        except Exception as error:  # what the model sent back could not be used: a visible rejection
            if isinstance(error, GraphInterrupt) or is_engine_outage(error):
                raise
            return {**kept, "action": None, "model_input": sent.model_dump(), "messages": added,
                    "verdict": {"verdict": "reject", "reason": "model_error", "message": f"the model call failed: {error}"}}
        action, error = parse_response(message, action_id)
        if error:
            return {**kept, "action": {"kind": "malformed", "action_id": action_id, "raw_error": error},
                    "verdict": None, "answers": answers, "model_input": sent.model_dump(),
                    "messages": [*added, AIMessage(content=message.content or "(malformed tool call)")]}
        replied = bool(action and action.get("kind") == "reply")
        return {**kept, "action": action, "verdict": None, "answers": answers, "model_input": sent.model_dump(),
                "messages": [*added, _kept(message, action)],
                # What this proposal saw, for the repeated-call check (nodes.repeats); the model never sees it.
                "seen_version": deps.bridge.store.canvas_version(),
                **(reply_outcome(message, clarification) if replied else {})}

    return agent


def make_fit_window(policy: ContextPolicy | None = None):
    """The fit_window graph node: before each model call, fold what no longer fits into the running summary.

    Its own graph node, so the summary and the removal of the folded messages are checkpointed before the agent
    node calls the model: when the agent node pauses on a question and LangGraph re-runs it on resume, the
    summariser is not called (and paid for, and counted) a second time.  Its call's size is left in
    ``window_spent`` for the agent node to count as a model call of the step.
    """
    policy = policy or Untrimmed()

    def fit_window(state: ChatState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
        deps = turn_context(runtime)
        schemas = bound_tools(deps, deps.bridge.grants.get(state["grant_id"]))
        try:
            window = policy.window(SystemMessage(content=SYSTEM_PROMPT), list(state["messages"]),
                                   state.get("summary") or "", schemas, deps.model)
        except Exception as error:  # the summariser's call: an outage stops the turn, as any model call does
            failure = provider_failure(error, deps.model)
            if failure is error:
                raise
            raise failure from error
        if not window.spent.calls:
            return {"window_spent": None}
        charge_model(deps.extra.get("spend"), None, window.reply, model=model_name_of(deps.model),
                     thread_id=state.get("thread_id"), turn_id=state.get("turn_id"),
                     action_id=f"{state['turn_id']}-s{state.get('step_index', 0)}")
        return {**window.update, "window_spent": window.spent.model_dump()}

    return fit_window


def tool_result(state: ChatState) -> dict[str, Any]:
    """The tool_result graph node: what the bridge and the tool answered, appended to the transcript."""
    step = (state.get("steps") or [{}])[-1]
    action = step.get("action") or {}
    if action.get("kind") == "tool_call":
        return {"messages": [ToolMessage(content=json.dumps(_tool_answer(step), default=str),
                                         tool_call_id=action["action_id"])]}
    if step.get("raw_error"):
        return {"messages": [HumanMessage(content=UNUSABLE_PREFIX + str(step["raw_error"]))]}
    return {}


def route_after_result(state: ChatState) -> str:
    """Back to the model (through the window) until the turn is done."""
    return END if state.get("done") else "fit_window"


def build_chat_baseline(checkpointer: Checkpointer = None, policy: ContextPolicy | None = None):
    """Compile the baseline: begin → agent → the bridge pipeline → tool_result → agent …, with the checkpointer;
    ``policy``: how each call fits the transcript into the model's window (default: all of it).

    Run it with ``context=TurnContext(...)``, as the supervisor.  Skills run in ``execute`` (no node of their own).
    """
    graph = StateGraph(ChatState, context_schema=TurnContext)
    graph.add_node("begin", begin)
    graph.add_node("fit_window", make_fit_window(policy))
    graph.add_node("agent", make_agent(policy))
    add_bridge_pipeline(graph)
    graph.add_node("record", record)
    graph.add_node("tool_result", tool_result)
    graph.add_edge(START, "begin")
    graph.add_edge("begin", "fit_window")
    graph.add_edge("fit_window", "agent")
    graph.add_edge("agent", "validate")
    graph.add_edge("record", "tool_result")
    graph.add_conditional_edges("tool_result", route_after_result, ["fit_window", END])
    return graph.compile(checkpointer=checkpointer)
