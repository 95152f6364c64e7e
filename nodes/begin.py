"""begin: start a turn from what a person sends (``TurnInput``): its ids, its intent, its grant, its recorded start.

The supervisor's first graph node.  A turn started by LangGraph's server, the SDK or Studio is started here,
by the context's ``start_turn`` (``jarvishub.runtime.Runtime.start_state``: the request interpreted once, the
grant of the default policy or of a named ``[grants.NAME]`` profile, saved in the grant store so revocation
and re-checks after an interrupt work as they do locally).  A caller that started the turn itself (the CLI
names the thread once the start is recorded; a restart of a turn killed before its first checkpoint) gives
that start in the context (``TurnContext.start``), and begin takes it as it is.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from typing_extensions import NotRequired, TypedDict

from nodes.context import NoTurnContext, TurnContext, turn_context
from nodes.state import TurnState


class TurnInput(TypedDict):
    """What a client sends to start a turn."""

    request: str
    """What the person asks for, in their words."""
    selected_ids: NotRequired[list[str]]
    """Canvas node ids the person selected; a local edit is scoped to them."""
    profile: NotRequired[str]
    """A named grant profile of the project file (``[grants.NAME]``); default: the default policy."""


class TurnOutput(TypedDict, total=False):
    """What a finished (or paused) turn reports."""

    thread_id: str
    turn_id: str
    grant_id: str
    outcome: str
    reply: str | None
    canvas_before: int
    canvas_version: int


def begin(state: TurnState, config: RunnableConfig, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Start the turn: its ids, intent and saved grant, its start recorded (or the start its caller made)."""
    deps = turn_context(runtime)
    if deps.start is not None:
        return {**deps.start, "profile": None}
    if deps.start_turn is None:
        raise NoTurnContext("this run's context cannot start a turn (TurnContext.start_turn is None)")
    configurable = config.get("configurable") or {}
    profile = state.get("profile") or configurable.get("profile")
    start = deps.start_turn(state["request"], thread_id=str(configurable.get("thread_id") or "") or None,
                            profile=profile, selected=state.get("selected_ids") or [])
    return {**start, "profile": None}  # a profile names this turn's grant, not the next turn's
