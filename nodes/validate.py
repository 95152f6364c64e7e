"""validate: check the proposed action against the grant before anything runs or is written.

Needs-approval pauses the graph with ``interrupt()``.  LangGraph re-runs this
node from its start on resume, so everything before the interrupt is a pure
check, and the grant is read again after the person answers: a grant revoked
while the turn was paused stays revoked.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import interrupt
from pydantic import ValidationError
from langgraph.runtime import Runtime

from nodes.actions import action_adapter
from nodes.bridge import Usage
from nodes.context import TurnContext, turn_context
from nodes.repair import undo_stale_marks
from nodes.repeats import repeated_call
from nodes.state import TurnState
from nodes.verdicts import Allow, NeedsApproval, Reject
from tools.base import Effect


def _reject(state: TurnState, reason: str, message: str, deps: TurnContext) -> dict[str, Any]:
    usage = Usage(**(state.get("usage") or {}))
    if not state.get("batched"):  # the other calls of one model message are one proposal: counted once
        usage.rejections_in_row += 1
    grant = deps.bridge.grants.get(state["grant_id"])
    verdict = {"verdict": "reject", "reason": reason, "message": message}
    update: dict[str, Any] = {"verdict": verdict, "usage": usage.model_dump()}
    if reason in ("revoked", "budget"):
        update.update(done=True, outcome=reason, reply=message)
        return update
    if usage.rejections_in_row >= grant.budget.rejections:
        # Asking beats looping: after too many rejections the person decides what to do.
        answer = interrupt({"type": "clarification", "question": (
            f"I could not find an allowed way to do this ({message}). What should I do instead?"),
            "rejections": usage.rejections_in_row})
        usage.rejections_in_row = 0
        update["usage"] = usage.model_dump()
        update["request"] = f"{state['request']}\n\nClarification from the person: {answer}"
    return update


def validate(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Check the proposed action against the grant; ask the person when it needs approval."""
    deps = turn_context(runtime)
    raw = state.get("action")
    if state.get("verdict") and state["verdict"].get("verdict") == "reject":  # propose already failed
        return _reject(state, state["verdict"].get("reason", "model_error"), state["verdict"]["message"], deps)
    if raw is None or raw.get("kind") == "malformed":
        return _reject(state, "malformed", (raw or {}).get("raw_error", "no action was proposed"), deps)
    try:
        action = action_adapter.validate_python(raw)
    except ValidationError as error:
        return _reject(state, "malformed", f"the action is not well formed: {error.errors()[0]['msg']}", deps)
    spec = deps.bridge.registry.get(str(raw.get("tool"))) if raw.get("kind") == "tool_call" else None
    loop = repeated_call(state.get("steps") or [], raw, state.get("seen_version"),
                         read_only=spec is not None and Effect.READ_ONLY in spec.effects)
    if loop:
        return _reject(state, "repeated", loop, deps)
    usage = Usage(**(state.get("usage") or {}))
    grant = deps.bridge.grants.get(state["grant_id"])
    verdict = deps.bridge.validate(action, grant, usage)
    if isinstance(verdict, NeedsApproval):
        decision = interrupt({"type": "approval", "action": raw, "reason": verdict.reason})
        choice = decision.get("decision") if isinstance(decision, dict) else str(decision)
        if choice == "reject":
            update = _reject(state, "rejected_by_person",
                             (decision.get("message") if isinstance(decision, dict) else None)
                             or "the person rejected this action", deps)
            actor = (decision.get("actor") if isinstance(decision, dict) else None) or "person"
            unmarked = undo_stale_marks(deps, state, str(actor))
            if unmarked:
                update["touched_ids"] = unmarked
            return update
        if choice == "edit" and isinstance(decision, dict) and "args" in decision:
            raw = {**raw, "args": decision["args"]}
            action = action_adapter.validate_python(raw)
        # Validate again against the grant as it is now (it may have been revoked meanwhile).
        verdict = deps.bridge.validate(action, deps.bridge.grants.get(state["grant_id"]), usage)
        if isinstance(verdict, NeedsApproval):
            verdict = Allow()
    if isinstance(verdict, Reject):
        return _reject(state, verdict.reason, verdict.message, deps)
    usage.rejections_in_row = 0
    return {"action": raw, "verdict": {"verdict": "allow"}, "usage": usage.model_dump()}


def route_after_validate(state: TurnState) -> str:
    """Allowed actions run; rejected ones go back to the agent with the message."""
    if state.get("done"):
        return "record"
    verdict = state.get("verdict") or {}
    return "execute" if verdict.get("verdict") == "allow" else "record"
