"""The supervisor graph's state: ids, versions, hashes and short JSON; never media bytes."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


class TurnState(TypedDict, total=False):
    """One turn of the loop (LangGraph state; checkpointed after every graph node)."""

    request: str
    thread_id: str
    turn_id: str
    grant_id: str
    selected_ids: list[str]
    canvas_before: int
    canvas_version: int
    focus_ids: list[str]
    step_index: int
    action: dict[str, Any] | None
    verdict: dict[str, Any] | None
    result: dict[str, Any] | None
    feedback: dict[str, Any] | None
    repair: dict[str, Any] | None
    usage: dict[str, Any]
    steps: Annotated[list[dict[str, Any]], operator.add]
    touched_ids: Annotated[list[str], operator.add]
    done: bool
    outcome: str
    reply: str | None
