"""Explore as a turn of its own (``jarvishub explore``): the explore skill submitted through the runtime's bridge.

This is the application side of :mod:`graphs.explore`: the skill graph depends
only on its :class:`~skills.base.SkillContext`; this module, which needs the
runtime (grants, trajectories, the turn record), lives with the runtime.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphs.explore import TOOL_NAME, ExploreFailed, ExploreRejected, ExploreResult
from jarvishub.runtime import Runtime
from nodes.actions import ToolCall
from nodes.bridge import Usage
from nodes.grant import Grant
from store.models import new_id, utc_now
from store.mutations import RecordTurn

__all__ = ["ExploreFailed", "ExploreRejected", "explore"]


def explore(runtime: Runtime, node_id: str, n: int = 4, instruction: str = "", thread_id: str | None = None, *,
            fail_branches: Iterable[int] = (), actor: str = "person", grant: Grant | None = None) -> ExploreResult:
    """Run the explore skill on ``node_id`` as one turn action through ``runtime.bridge.submit``.

    The grant is ``runtime.grant_for`` the request with the node selected, unless one is given.  The turn is
    recorded (a ``Turn`` node and a trajectory entry) like an agent turn.  Raises :class:`ExploreRejected` when
    the bridge refuses (unknown node, grant, budget) and :class:`ExploreFailed` when the skill stops with an error.
    """
    thread_id = thread_id or new_id()
    turn_id = new_id()
    request = f"explore {node_id} ×{n}: {instruction}".strip()
    granted = grant or runtime.grant_for(request, selected=[node_id])
    usage = Usage()
    store = runtime.project.store
    before = store.canvas_version()
    started_at = utc_now()
    args: dict[str, Any] = {"node_id": node_id, "n": n, "instruction": instruction}
    if fail_branches:
        args["fail_branches"] = sorted(set(fail_branches))
    call = ToolCall(action_id=f"{turn_id}-explore", actor=actor, tool=TOOL_NAME, args=args)
    submitted = runtime.bridge.submit(call, granted, usage, thread_id=thread_id, turn_id=turn_id)
    outcome = "explored" if submitted.verdict == "allow" and "error" not in submitted.observation else "failed"
    touched = list(dict.fromkeys([*usage.created_ids, *(submitted.observation.get("candidate_ids") or [])]))
    _record_turn(runtime, granted, thread_id, turn_id, request, before, call, submitted.model_dump(mode="json"),
                 outcome, touched, started_at)
    if submitted.verdict != "allow":
        raise ExploreRejected(f"explore was refused: {submitted.message}")
    if "error" in submitted.observation:
        raise ExploreFailed(f"explore stopped: {submitted.observation['error']}")
    body = {k: v for k, v in submitted.observation.items() if k != "skill"}
    return ExploreResult(**body, thread_id=thread_id, turn_id=turn_id, action_id=call.action_id,
                         provider_calls=submitted.provider_calls, cache_hits=submitted.cache_hits)


def _record_turn(runtime: Runtime, grant: Grant, thread_id: str, turn_id: str, request: str, before: int,
                 call: ToolCall, submitted: dict[str, Any], outcome: str, touched: list[str],
                 started_at: str) -> None:
    after = runtime.project.store.canvas_version()
    runtime.trajectories.record_turn(thread_id, turn_id, {
        "thread_id": thread_id, "turn_id": turn_id, "request": request, "canvas_before": before,
        "manifest": runtime.manifest.model_dump(mode="json"), "grant": grant.model_dump(mode="json"),
        "actions": [call.model_dump(mode="json")], "observations": [submitted.get("observation")],
        "feedback": [], "repair": [], "canvas_after": after, "outcome": outcome,
        "reply": submitted.get("message") or None, "touched_ids": touched,
        "started_at": started_at, "finished_at": utc_now(),
    })
    runtime.bridge.commit_turn_record(RecordTurn(
        turn_id=turn_id, thread_id=thread_id, request=request[:2000], canvas_before=before, canvas_after=after,
        node_ids=touched, summary={"outcome": outcome, "steps": 1}))
