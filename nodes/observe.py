"""observe: read the canvas for this step (its version and the nodes the request is about); fresh state per turn."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nodes.context import TurnContext, turn_context
from nodes.state import RESET, TurnState
from nodes.view import find_focus


def new_turn(turn_id: str, canvas_version: int) -> dict[str, Any]:
    """The per-turn fields of a new turn (perhaps on a thread with earlier turns): nothing of the last turn's
    steps carries over."""
    return {"state_turn_id": turn_id, "canvas_before": canvas_version, "step_index": 0, "steps": [RESET],
            "touched_ids": [RESET], "answers": [], "clarification": None, "failed": False, "refused": False, "outcome": None, "canvas_after": None,
            "reply": None, "measured": None, "action": None, "verdict": None, "result": None, "feedback": None, "repair": None,
            "queued_calls": []}


def observe(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Read the canvas for this step: its version and the nodes the request is about."""
    deps = turn_context(runtime)
    store = deps.bridge.store
    created = (state.get("usage") or {}).get("created_ids", [])
    # One read: the canvas version and the nodes the request names.
    version, focus = find_focus(store, state.get("intent") or state["request"], state.get("selected_ids") or [],
                                created)
    update: dict[str, Any] = {"canvas_version": version, "seen_version": version, "focus_ids": focus}
    if state.get("state_turn_id") != state["turn_id"]:
        update.update(new_turn(state["turn_id"], version))
    return update
