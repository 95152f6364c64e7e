"""observe: read the canvas for this step (its version and the nodes the request is about)."""

from __future__ import annotations

from typing import Any

from nodes.deps import TurnDeps
from nodes.state import TurnState
from nodes.view import find_focus


def make_observe(deps: TurnDeps):
    """The observe graph node."""

    def observe(state: TurnState) -> dict[str, Any]:
        store = deps.bridge.store
        version = store.canvas_version()
        update: dict[str, Any] = {"canvas_version": version}
        if "canvas_before" not in state:
            update["canvas_before"] = version
            update["step_index"] = 0
        created = (state.get("usage") or {}).get("created_ids", [])
        update["focus_ids"] = find_focus(store, state["request"], state.get("selected_ids") or [], created)
        return update

    return observe
