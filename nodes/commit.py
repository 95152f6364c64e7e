"""commit: apply what the step produced, with a ticket for exactly those mutations, idempotently.

The ticket is issued here by the bridge, after it has checked the mutations the
tool actually produced (kinds, operations, scope) against the grant; a tool
that produced something outside its grant has nothing written.

A rebuild that lost a race (another turn committed a newer version of the
same output, or changed its inputs, after this step read them) raises
``StaleVersion`` and writes nothing; the step then runs again from the
then-current canvas (``route_after_commit``), a bounded number of times,
instead of failing the turn. The rerun goes through the signature cache, so an
identical rebuild costs no provider call.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nodes.bridge import Usage
from nodes.context import TurnContext, turn_context
from nodes.state import TurnState
from store.errors import CanvasError, StaleVersion, is_engine_outage
from store.mutations import mutation_adapter


REBUILD_ON_CONFLICT = frozenset({"regenerate_stale", "mark_stale", "repair"})
"""Tools that read the versions they supersede (or mark) themselves, so running them again on the new canvas
resolves a conflict (``mark_stale`` then marks the current version of an output another turn replaced)."""
MAX_REBUILDS = 16
"""Each rebuild follows another commit that changed the head (another turn marking, rebuilding or laying it out),
so progress is always made; the bound only stops a turn from spinning under a flood of writers."""


def route_after_commit(state: TurnState) -> str:
    """Back to execute when the step must be rebuilt on the current canvas, else on to record."""
    return "execute" if state.get("rebuild") else "record"


def commit(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Apply what the step produced under a ticket for exactly those mutations (or send it back to execute)."""
    return {"rebuild": False, **_commit(turn_context(runtime), state)}


def _commit(deps: TurnContext, state: TurnState) -> dict[str, Any]:
    result = state.get("result") or {}
    raw = list(result.get("mutations") or []) + list((state.get("repair") or {}).get("mutations") or [])
    if not raw:
        return {}
    mutations = [mutation_adapter.validate_python(m) for m in raw]
    usage = Usage(**(state.get("usage") or {}))
    action = state["action"] or {}
    grant = deps.bridge.grants.get(state["grant_id"])

    def refused_step(reason: str, error: Exception) -> dict[str, Any]:
        # Nothing was written to the canvas: the step's workspace writes are taken back too.
        observation = deps.bridge.taken_back(result.get("observation") or {}, mutations)
        return {"verdict": {"verdict": "reject", "reason": reason, "message": str(error)},
                "result": {**result, "mutations": [], "observation": {**observation, "not_committed": str(error)}}}

    try:
        ticket = deps.bridge.authorize(action["action_id"], mutations, grant, usage)
    except CanvasError as denied:  # outside the grant, or an unknown kind or node
        if is_engine_outage(denied):
            raise
        return refused_step(getattr(denied, "reason", type(denied).__name__), denied)
    try:
        record = deps.bridge.commit(mutations, ticket, thread_id=state["thread_id"],
                                    action_id=action["action_id"], actor=action.get("actor", "agent"),
                                    observation=result.get("observation"))
    except StaleVersion as conflict:
        rebuilds = int(state.get("rebuilds") or 0)
        if action.get("tool") in REBUILD_ON_CONFLICT and rebuilds < MAX_REBUILDS:
            # The discarded attempt's provider calls were paid: the step still reports them.
            spent = state.get("rebuild_spent") or {}
            spent = {k: int(spent.get(k) or 0) + int(result.get(k) or 0) for k in ("provider_calls", "cache_hits")}
            return {"rebuild": True, "rebuilds": rebuilds + 1, "rebuild_spent": spent, "usage": usage.model_dump(),
                    "result": None, "feedback": None, "repair": None}
        return refused_step(type(conflict).__name__, conflict)
    except CanvasError as refused:  # stale version, unknown node, invalid batch: nothing was written
        if is_engine_outage(refused):
            raise
        return refused_step(type(refused).__name__, refused)
    created = [m.id for m in mutations if m.op == "create_node"]
    usage.created_ids.extend(i for i in created if i not in usage.created_ids)
    return {"usage": usage.model_dump(), "canvas_version": record.canvas_version,
            "touched_ids": record.node_ids,
            "result": {**result, "commit": {"canvas_version": record.canvas_version, "id": record.id,
                                            "replayed": record.replayed}}}
