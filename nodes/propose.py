"""propose: ask the chat model for the next action, with the step's tool menu bound (granted tools only: nodes.menu).

Whatever the model returns becomes an action dict or a structured rejection:
malformed tool calls (bad JSON, unknown tool) never crash the loop.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from langgraph.errors import GraphInterrupt
from langgraph.types import interrupt
from langgraph.runtime import Runtime

from nodes.bridge import Usage
from nodes.context_size import ModelInput, model_input_size
from nodes.context import TurnContext, turn_context
from nodes.grant import check_spend
from nodes.models.factory import model_name_of, provider_failure
from tools.spend import charge_model, estimate_chat_usd
from nodes.verdicts import GrantDenied
from store.errors import is_engine_outage
from tools.generate.base import GenerationError
from tools.generate.errors import ProviderUnavailable
from nodes.models.playbooks import ANSWER_PREFIX
from nodes.grant import Grant
from nodes.menu import MORE_TOOLS, ToolMenu, answer_ask, more_tools_schema, step_menu
from nodes.understanding.intent import Intent
from nodes.state import TurnState

SYSTEM_PROMPT = """You are JarvisHub's creative agent. The canvas is the project's state: typed nodes with \
stable ids. Work by calling tools; refer to nodes by id. When done, reply in plain text (no tool call) with what \
you made, changed and reused."""

RESOLVED = """The targets below were resolved on the canvas just now: act on them as shown."""
"""Said only when the view has targets: a request with none (a new story, a note) has nothing resolved to act on."""


def tool_schemas(deps: TurnContext, grant: Grant, only: Collection[str] | None = None) -> list[dict[str, Any]]:
    """OpenAI-format function schemas of the tools this grant allows (nothing else is bound), compacted
    (``only``: of those, just these names; the others' schemas are not built)."""
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description,
                                          "parameters": _compacted(t.parameters)}}
        for t in deps.bridge.manifest.tools
        if (only is None or t.name in only) and grant.allows_tool(t.name)
    ]


_COMPACTED: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
"""Compact schemas by the identity of the manifest's schema (kept with it, so that the id is not reused)."""


def _compacted(schema: dict[str, Any]) -> dict[str, Any]:
    """:func:`compact_schema`, made once per manifest schema: every step of every turn binds the same few,
    and walking them took a fifth of a note turn's ``propose``.  The same dict is returned each time: it is not
    to be changed (LangChain copies a schema before it adds to it)."""
    kept = _COMPACTED.get(id(schema))
    if kept is None or kept[0] is not schema:
        if len(_COMPACTED) > 1024:  # one entry per tool of each manifest a process built
            _COMPACTED.clear()
        kept = _COMPACTED[id(schema)] = (schema, compact_schema(schema))
    return kept[1]


def turn_menu(deps: TurnContext, state: TurnState, grant: Grant, *,
              intent: dict[str, Any] | None = None) -> ToolMenu:
    """The tool menu of this step (``nodes.menu``): the grant's tools the turn's intent needs, the reads only when
    it asks or a reference is unresolved (and never on a turn that began on an empty canvas), and every tool
    the model called so far in the turn (``intent``: the turn's, when the caller has read it already)."""
    intent = intent if intent is not None else turn_intent(deps, state)
    return step_menu(deps.bridge.manifest, grant, Intent.model_validate(intent) if intent else None, state)


def bound_schemas(deps: TurnContext, state: TurnState, grant: Grant,
                  menu: ToolMenu | None = None) -> list[dict[str, Any]]:
    """The schemas bound for this step: the grant's tools on the step's menu (:func:`turn_menu`).

    Every call pays for the schemas it binds.  The grant is unchanged (a model that calls a granted tool it was
    not offered is served: the system message names them); only the menu is shorter.
    """
    menu = menu or turn_menu(deps, state, grant)
    schemas = tool_schemas(deps, grant, only=set(menu.offered))  # a step's menu is a few of the grant's ~40
    more = more_tools_schema(menu)
    return schemas + [more] if more is not None else schemas


_MAX_SAFE_INT = 2**53


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The same arguments in fewer bytes: every model call pays for the schemas, so drop what says nothing.

    Pydantic's titles (the field name again), ``default: null``, ``additionalProperties: true`` and the
    64-bit integer bound go; ``$defs`` are inlined (enums read better in place); an optional field's
    ``anyOf [X, null]`` becomes X (omitting it is how a model leaves it unset).  What constrains a value
    (types, enums, bounds, required, patterns, non-null defaults, descriptions) stays.  The bridge
    validates arguments against the full schema, so nothing here loosens what is accepted.
    """
    defs = schema.get("$defs") or {}

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [walk(item, depth) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and depth < 8:
            target = dict(defs.get(ref.rsplit("/", 1)[-1]) or {})
            target.pop("description", None)  # the class docstring; the field's own description wins
            return walk({**target, **{k: v for k, v in node.items() if k != "$ref"}}, depth + 1)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("title", "$defs") and not isinstance(value, dict):
                continue
            if key == "$defs" or (key == "default" and value is None):
                continue
            if key == "additionalProperties" and value is True:
                continue
            if key in ("maximum", "minimum") and isinstance(value, int) and abs(value) >= _MAX_SAFE_INT:
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: walk(sub, depth) for name, sub in value.items()}
            else:
                out[key] = walk(value, depth)
        options = out.get("anyOf")
        if isinstance(options, list):
            present = [o for o in options if o != {"type": "null"}]
            if len(present) == 1 and len(present) < len(options):
                out = {**present[0], **{k: v for k, v in out.items() if k != "anyOf"}}
        return out

    compact = walk(schema, 0)
    compact.pop("description", None)  # "Arguments of X": the tool's own description says it better
    return compact


def build_messages(deps: TurnContext, state: TurnState, grant: Grant,
                   menu: ToolMenu | None = None) -> list[BaseMessage]:
    """The conversation of this turn as the model sees it: the focused view, the request, then each step.

    The view is the resolve graph node's (``nodes.resolve``), read just before this step; the machine-readable
    intent and memory follow as one JSON line (the offline planner reads them; a model may too).  The model's
    ``more_tools`` calls (``nodes.menu``) and their answers stand where it made them, among the steps.
    """
    intent = turn_intent(deps, state)
    view = state.get("view")
    if not view or intent is not state.get("intent"):  # no resolve step ran, or the answer re-read the request
        from nodes.resolve import view_for
        from nodes.view import as_intent

        view = view_for(deps, state, as_intent(intent or state["request"])).text
    memory = deps.extra.get("memory_lines", lambda request: [])(state["request"])
    tail: dict[str, Any] = {}
    if intent is not None and not reads_from_request(intent):
        tail["intent"] = compact_intent(intent)
    if memory:
        tail["memory"] = memory
    if grant.approval_tools:  # a model that can do a step in one call or two picks the one the grant allows
        tail["approval_tools"] = list(grant.approval_tools)
    targets = any(c.get("targets") for c in (intent or {}).get("clauses") or [])
    system = SYSTEM_PROMPT + ("\n" + RESOLVED if targets else "") + "\n\n" + view
    if tail:
        system += "\n\n" + json.dumps(tail, default=str, separators=(",", ":"))
    messages: list[BaseMessage] = [SystemMessage(content=system), HumanMessage(content=state["request"])]
    messages += [HumanMessage(content=ANSWER_PREFIX + answer) for answer in state.get("answers") or []]
    asks = list(state.get("menu_asks") or [])
    steps = list(state.get("steps") or [])
    for position, step in enumerate([*steps, None]):
        for ask in (a for a in asks if a["at_step"] == position):  # the model's more_tools calls before this step
            messages.append(AIMessage(content="", tool_calls=[{"name": MORE_TOOLS, "args": {"names": ask["asked"]},
                                                               "id": ask["call_id"]}]))
            messages.append(ToolMessage(content=ask["answer"], tool_call_id=ask["call_id"]))
        if step is None:
            break
        action = step.get("action") or {}
        call_id = action.get("action_id", f"step{step.get('index')}")
        if action.get("kind") == "tool_call":
            messages.append(AIMessage(content="", tool_calls=[{"name": action["tool"], "args": action.get("args", {}), "id": call_id}]))
            messages.append(ToolMessage(content=json.dumps(canvas_answer(step), default=str), tool_call_id=call_id))
        elif action.get("kind") == "reply":
            messages.append(AIMessage(content=action.get("text", "")))
        elif step.get("raw_error"):
            messages.append(AIMessage(content=step.get("raw_text") or ""))
            messages.append(HumanMessage(content=f"Your last output could not be used: {step['raw_error']}"))
        elif action:
            messages.append(AIMessage(content=json.dumps(action, default=str)))
            messages.append(HumanMessage(content=json.dumps(_tool_answer(step), default=str)))
    return messages


_NOT_FOR_THE_MODEL = {"request", "kinds", "removal", "titles", "node_ids", "previous_turn"}
"""Intent fields the view's JSON line leaves out: the request (the next message), and what only the grant, the
observe step and the turn report read."""


def reads_from_request(intent: dict[str, Any]) -> bool:
    """Whether the request alone reads as ``intent`` (no canvas facts, no earlier turn): then the view's JSON line
    need not carry it, as the tables show how it was read and the offline planner reads the request again
    (``PlannerInput.intent``).  A new story, page, deck or note on any canvas, typically; never a turn with
    resolved targets or a question to ask, which only the canvas could give."""
    from nodes.view import read_on_the_canvas

    if read_on_the_canvas(intent):
        return False
    from nodes.understanding.pipeline import interpret

    return compact_intent(interpret(str(intent.get("request") or "")).summary()) == compact_intent(intent)


def compact_intent(intent: dict[str, Any]) -> dict[str, Any]:
    """The intent as the view's JSON line carries it, without what the tables above it show: no request, no
    clause text equal to it (the offline planner puts it back), no clause's domain (the reader that understood
    it: its operation says as much), no references (their targets, misses and candidates are in the tables), no
    target's derived ids, no unset render value, no ``referred_as`` that is the title again."""
    dropped = _NOT_FOR_THE_MODEL | (set() if intent.get("corrections") else {"normalised"})
    compact = {k: v for k, v in intent.items() if k not in dropped}
    clauses = []
    for clause in intent.get("clauses") or []:
        clause = {k: v for k, v in clause.items() if k not in ("references", "domain")
                  and not (k == "text" and v == intent.get("request"))}
        if isinstance(clause.get("modifications"), dict):
            clause["modifications"] = {k: v for k, v in clause["modifications"].items() if v not in (None, [], {})}
        clause["targets"] = [{**{k: v for k, v in t.items() if k != "derived"
                                 and not (k == "referred_as" and v == t.get("title"))},
                              **({"current": {k: v for k, v in t["current"].items() if v is not None}}
                                 if t.get("current") else {})} for t in clause.get("targets") or []]
        clauses.append(clause)
    if clauses:
        compact["clauses"] = clauses
    return compact


def turn_intent(deps: TurnContext, state: TurnState) -> dict[str, Any] | None:
    """The turn's intent; after a person answered its question (which shot?), read again with the answer."""
    intent = state.get("intent")
    answers = state.get("answers") or []
    if not intent or not answers:
        return intent
    if ((intent.get("clarification") or {}).get("reason")) != "ambiguous":
        return intent
    from nodes.understanding.turn import understand

    reread = understand(deps.bridge.store, state["request"], state.get("selected_ids") or [], log=deps.trajectories,
                        thread_id=state.get("thread_id"), answer=str(answers[-1]),
                        skills=deps.bridge.manifest.skills)
    return reread.summary()


def _clarification(message: Any) -> dict[str, Any] | None:
    """A clarification the model attached to its reply (the offline planner does; see nodes.models.edits)."""
    extra = getattr(message, "additional_kwargs", None) or {}
    found = extra.get("clarification")
    return found if isinstance(found, dict) else None


MAX_QUESTIONS = 3
"""How often one proposal may ask the person to pick before it gives up and replies with the question."""
MAX_MENU_ASKS = 2
"""How many ``more_tools`` calls one step answers before the model must act with what it has."""


def _tool_answer(step: dict[str, Any]) -> dict[str, Any]:
    verdict = step.get("verdict") or {}
    if verdict.get("verdict") == "reject":
        return {"rejected": True, "reason": verdict.get("reason"), "message": verdict.get("message")}
    answer: dict[str, Any] = {"observation": step.get("observation")}
    if step.get("feedback"):
        answer["feedback"] = step["feedback"]
    if step.get("repair"):
        answer["repair"] = step["repair"]
    return answer


EVALUATION_KEYS = ("node_id", "score", "passed", "notes")
"""What the canvas agent's model is told of each evaluation of a step's output; the evaluator's measurements
(``checks``: each criterion's numbers) are on the canvas, in the evaluation node the repair step commits."""


def canvas_answer(step: dict[str, Any]) -> dict[str, Any]:
    """A step's answer as the canvas agent's model reads it: the tool's answer without what the canvas keeps.

    Content hashes and the evaluator's per-criterion measurements are on the canvas (the node's outputs, the
    evaluation node) and the trajectory; every later call of the turn would send them again.  Ids, titles,
    verdicts, scores and notes stay.  (The chat baseline keeps the whole answer: its transcript is its only
    record.)
    """
    answer = _tool_answer(step)
    if answer.get("rejected"):
        return answer
    feedback = answer.get("feedback")
    if isinstance(feedback, dict) and feedback.get("evaluations"):
        answer["feedback"] = {**feedback, "evaluations": [
            {k: e[k] for k in EVALUATION_KEYS if k in e} if isinstance(e, dict) else e
            for e in feedback["evaluations"]]}
    answer["observation"] = _without_hashes(answer.get("observation"))
    return answer


def _without_hashes(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_hashes(v) for k, v in value.items() if k != "sha256"}
    if isinstance(value, list):
        return [_without_hashes(v) for v in value]
    return value


def parse_response(message: AIMessage, action_id: str) -> tuple[dict[str, Any] | None, str | None]:
    """Turn a model message into an action dict, or an error text for a rejection (its first call only;
    :func:`split_calls` queues the others)."""
    calls = split_calls(message)
    if calls:
        return _call_action(calls[0], action_id)
    text = message.content if isinstance(message.content, str) else json.dumps(message.content)
    return {"kind": "reply", "action_id": action_id, "text": text, "actor": "agent"}, None


def split_calls(message: AIMessage) -> list[dict[str, Any]]:
    """Every call of a message, one per step: the malformed ones first (each a rejection the model sees),
    then the parsed ones in the model's order.  Several calls in one message (parallel tool calls) run one
    after another, each validated on its own, so an invalid one is refused without taking the others with it."""
    calls: list[dict[str, Any]] = []
    for bad in getattr(message, "invalid_tool_calls", None) or []:
        calls.append({"error": f"tool call {bad.get('name')!r} could not be parsed: "
                               f"{bad.get('error') or bad.get('args')}"})
    for call in message.tool_calls or []:
        calls.append({"tool": call["name"], "args": call.get("args"), "call_id": call.get("id")})
    return calls


def _call_action(call: dict[str, Any], action_id: str) -> tuple[dict[str, Any] | None, str | None]:
    if "error" in call:
        return None, str(call["error"])
    if not isinstance(call.get("args"), dict):
        return None, f"tool call {call.get('tool')!r} has arguments that are not a JSON object"
    return {"kind": "tool_call", "action_id": action_id, "tool": call["tool"], "args": call["args"],
            "actor": "agent"}, None


def propose(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Ask the model for the next action (or take the next call of a message that made several)."""
    deps = turn_context(runtime)
    grant = deps.bridge.grants.get(state["grant_id"])
    index = state.get("step_index", 0)
    action_id = f"{state['turn_id']}-s{index}"
    queued = list(state.get("queued_calls") or [])
    if queued:  # the rest of a message with several calls: each is a step of its own, validated on its own
        action, error = _call_action(queued[0], action_id)
        if error:
            return {"action": {"kind": "malformed", "action_id": action_id, "raw_error": error},
                    "verdict": None, "queued_calls": queued[1:], "model_input": None, "batched": True}
        return {"action": action, "verdict": None, "queued_calls": queued[1:], "model_input": None,
                "batched": True}
    answers = list(state.get("answers") or [])
    usage = Usage(**(state.get("usage") or {}))
    ledger = deps.extra.get("spend")
    if ledger is not None:
        ledger.sync(usage, state["turn_id"])
    # What this step showed the model, measured on exactly what was sent (the evaluation's context bytes).
    # Only the calls of the final run of this graph node count: a call repeated because LangGraph re-ran the
    # node after an interrupt is counted once, like the step it belongs to.
    sent = ModelInput()

    def ask(step_state: TurnState) -> AIMessage:
        """One model call with the step's menu bound (read again after a person's answer: the intent re-read
        with it resolves the targets, and an edit's tools replace the reads)."""
        nonlocal sent
        menu = turn_menu(deps, step_state, grant, intent=turn_intent(deps, step_state))
        schemas = bound_schemas(deps, step_state, grant, menu)
        messages = build_messages(deps, step_state, grant, menu)
        size = model_input_size(messages, schemas)
        # The budget stops the turn before a call that could overspend it, never after.
        if ledger is not None and (grant.budget.cost_usd is not None or grant.budget.tokens is not None):
            check_spend(grant.budget, usage, next_call_usd=estimate_chat_usd(
                ledger.prices, model_name_of(deps.model), size.bytes), next_call_tokens=size.bytes // 3)
        sent = sent.plus(size)
        try:
            reply = deps.model.bind_tools(schemas).invoke(messages)
        except Exception as error:
            failure = provider_failure(error, deps.model)
            if failure is error:
                raise
            raise failure from error
        charge_model(ledger, usage, reply, model=model_name_of(deps.model), thread_id=state.get("thread_id"),
                     turn_id=state.get("turn_id"), action_id=action_id)
        return reply

    menu_asks = list(state.get("menu_asks") or [])

    def ask_with_menu(step_state: TurnState) -> AIMessage:
        """:func:`ask`, answering the model's ``more_tools`` calls here (each a model call, as it is the model's
        request): the tools it asked for are offered from its next call on, for the rest of the turn."""
        for _ in range(MAX_MENU_ASKS):
            reply = ask({**step_state, "menu_asks": menu_asks})
            call = next((c for c in reply.tool_calls or [] if c.get("name") == MORE_TOOLS), None)
            if call is None:
                return reply
            menu = turn_menu(deps, {**step_state, "menu_asks": menu_asks}, grant)
            given, answer = answer_ask(menu, call.get("args"))
            asked = (call.get("args") or {}).get("names") if isinstance(call.get("args"), dict) else None
            menu_asks.append({"at_step": len(step_state.get("steps") or []), "names": given, "answer": answer,
                              "asked": asked if isinstance(asked, list) else [],
                              "call_id": call.get("id") or f"{action_id}-menu{len(menu_asks)}"})
        return ask({**step_state, "menu_asks": menu_asks})

    try:
        message = ask_with_menu(state)
        clarification = _clarification(message)
        # An ambiguous target is a question, never a silent pick: pause for the person's answer (the chosen
        # id), then ask the model again with it. LangGraph re-runs this node on resume; the model call before
        # the interrupt is repeated, which is why the answer, not the model's output, is kept in state.
        asked = 0
        while clarification and clarification.get("reason") == "ambiguous" and asked < MAX_QUESTIONS:
            answers.append(str(interrupt(clarification)))
            asked += 1
            message = ask_with_menu({**state, "answers": answers})
            clarification = _clarification(message)
    except GrantDenied as denied:  # the next model call could take the spend past the budget
        return {"action": None, "verdict": {"verdict": "reject", "reason": denied.reason, "message": str(denied)},
                "model_input": sent.model_dump(), "usage": usage.model_dump()}
    except (ProviderUnavailable, GenerationError):
        # An outage (or a request the provider refuses) is not the model's mistake to retry: the turn stops
        # here, resumable, and what the calls before it were billed is in the spend ledger already.
        raise
    except Exception as error:  # what the model sent back could not be used: a visible rejection
        if isinstance(error, GraphInterrupt) or is_engine_outage(error):
            raise
        return {"action": None, "verdict": {"verdict": "reject", "reason": "model_error",
                                             "message": f"the model call failed: {error}"},
                "model_input": sent.model_dump(), "usage": usage.model_dump()}
    calls = split_calls(message)
    action, error = parse_response(message, action_id)
    if error:
        return {"action": {"kind": "malformed", "action_id": action_id, "raw_error": error},
                "verdict": None, "answers": answers, "model_input": sent.model_dump(), "menu_asks": menu_asks,
                "queued_calls": calls[1:], "usage": usage.model_dump(), "batched": False}
    update: dict[str, Any] = {"action": action, "verdict": None, "answers": answers,
                              "model_input": sent.model_dump(), "queued_calls": calls[1:], "menu_asks": menu_asks,
                              "usage": usage.model_dump(), "batched": False}
    if answers and answers != list(state.get("answers") or []):
        # The person answered the turn's question: the intent read with the answer is the turn's intent
        # from now on (the report is measured against it).
        update["intent"] = turn_intent(deps, {**state, "answers": answers})
    if action and action.get("kind") == "reply":
        update.update(reply_outcome(message, clarification))
    return update


def reply_outcome(message: Any, clarification: dict[str, Any] | None) -> dict[str, Any]:
    """The state fields of a reply that asks (a clarification) or reports failed work, so its outcome says so."""
    if clarification:
        return {"clarification": clarification}
    said = (getattr(message, "additional_kwargs", None) or {}).get("outcome")
    if said == "failed":
        return {"clarification": None, "failed": True}
    if said == "refused":
        return {"clarification": None, "refused": True}
    return {}
