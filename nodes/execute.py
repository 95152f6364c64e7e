"""execute: run the allowed action.  A resumed turn whose action was already committed does not run it again."""

from __future__ import annotations

from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from nodes.actions import action_adapter
from nodes.bridge import Usage
from nodes.context import TurnContext, turn_context
from nodes.state import TurnState
from nodes.subgraph import SubgraphRun
from tools.base import Effect


def _progress_writer():
    """Tools and skills report progress on LangGraph's custom stream (the CLI shows it live)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # not inside a streaming run
        return None
    return lambda message: writer({"message": message})


def execute(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Run the allowed action (a skill the supervisor has a graph node for runs there: ``graphs/skill_nodes.py``)."""
    return execute_step(turn_context(runtime), state)


def execute_step(deps: TurnContext, state: TurnState, subgraph: SubgraphRun | None = None) -> dict[str, Any]:
    """What ``execute`` does, for it and for a skill's own graph node (``subgraph``: where the skill's graph runs)."""
    raw = state["action"] or {}
    action = action_adapter.validate_python(raw)
    usage = Usage(**(state.get("usage") or {}))
    ledger = deps.extra.get("spend")
    if ledger is not None:  # a resumed step's budget counts what the stopped attempt was billed
        ledger.sync(usage, state["turn_id"])
    if action.kind == "reply":
        return {"result": {"observation": {"reply": action.text}, "mutations": []},
                "done": True, "outcome": "replied", "reply": action.text}
    spec = deps.bridge.registry.get(action.tool) if action.kind == "tool_call" else None
    # A read-only tool commits nothing, so there is nothing to replay: running it again is the resume.  In a run
    # that started its turn (``TurnContext.fresh``) no attempt of this action can have committed: its id is new.
    read_only = spec is not None and Effect.READ_ONLY in spec.effects
    previous = None if read_only or deps.fresh else \
        deps.bridge.store.commit_for_key(f"{state['thread_id']}:{action.action_id}")
    if previous is not None:
        # Killed after the commit and before the checkpoint: the work is on the canvas already.
        return {"result": {"observation": {**previous.observation, "replayed": True},
                           "mutations": [], "replayed": True}}
    ctx = deps.bridge.context(actor=action.actor, thread_id=state["thread_id"], turn_id=state["turn_id"],
                              usage=usage, grant_id=state["grant_id"], action_id=action.action_id,
                              progress=_progress_writer())
    result = deps.bridge.execute(action, ctx, subgraph)
    deps.bridge.account(action, result, usage)
    stop: dict[str, Any] = {}
    if result.observation.get("refused") == "budget":
        # A skill's step was refused by the budget: the turn stops here rather than spend on asking again.
        stop = {"done": True, "outcome": "budget", "reply": str(result.observation.get("error") or "budget")}
    return {**stop,
        "result": {
            "observation": result.observation,
            "mutations": [m.model_dump(mode="json") for m in result.mutations],
            "provider_calls": result.provider_calls,
            "cache_hits": result.cache_hits,
        },
        "usage": usage.model_dump(),
    }
