"""observe: read the canvas for this step (its version and the nodes the request is about); fresh state per turn."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nodes.context import TurnContext, turn_context
from nodes.state import RESET, TurnState
from nodes.view import find_focus


def new_turn(turn_id: str, canvas_version: int | None) -> dict[str, Any]:
    """The per-turn fields of a new turn (perhaps on a thread with earlier turns): nothing of the last turn's
    steps carries over."""
    return {"state_turn_id": turn_id, "canvas_before": canvas_version, "step_index": 0, "steps": [RESET],
            "touched_ids": [RESET], "answers": [], "menu_asks": [], "clarification": None, "failed": False, "refused": False, "outcome": None, "canvas_after": None,
            "reply": None, "measured": None, "action": None, "verdict": None, "result": None, "feedback": None, "repair": None,
            "queued_calls": []}


def observe(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Read the canvas for this step: its version and the nodes the request is about.

    The read is left to the resolve graph node when it reads anyway (a model call follows) and the request names
    no title: its one statement reads the version with the view, a round trip fewer per step.  Then
    ``seen_version`` (and, on a new turn, ``canvas_before``) is None here and resolve sets it.
    """
    deps = turn_context(runtime)
    store = deps.bridge.store
    created = (state.get("usage") or {}).get("created_ids", [])
    fresh = state.get("state_turn_id") != state["turn_id"]
    queued = bool(state.get("queued_calls")) and not fresh  # the rest of one message: resolve reads nothing
    # At most one read: the canvas version and the nodes with the titles the request names.
    version, focus = find_focus(store, state.get("intent") or state["request"], state.get("selected_ids") or [],
                                created, versioned=queued)
    update: dict[str, Any] = {"seen_version": version, "focus_ids": focus}
    if version is not None:
        update["canvas_version"] = version
    if fresh:
        update.update(new_turn(state["turn_id"], version))
    return update
