"""The supervisor graph's state: ids, versions, hashes and short JSON; never media bytes.

A thread keeps its checkpointed state from turn to turn, so everything that
belongs to one turn (steps, step index, canvas-before, answers, outcome) is
started afresh by the observe node when it sees a new ``turn_id``
(``state_turn_id`` records whose turn the per-turn fields belong to).
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langgraph.channels import EphemeralValue

RESET = "__reset__"
"""First element of an update that replaces a per-turn list instead of extending it (a new turn on a thread)."""


def add_or_reset(old: list[Any] | None, new: list[Any] | None) -> list[Any]:
    """Append, as ``operator.add`` does, unless the update starts with :data:`RESET`: then start again from it."""
    if new and new[0] == RESET:
        return list(new[1:])
    return [*(old or []), *(new or [])]


class TurnState(TypedDict, total=False):
    """One turn of the loop (LangGraph state; checkpointed after every graph node)."""

    request: str
    profile: str | None
    """The grant profile a client asked for (``TurnInput``); ``begin`` reads it and clears it."""
    intent: dict[str, Any]
    """The request interpreted once at the start of the turn (``nodes.understanding.Intent`` as JSON: ids and
    words); the grant, the view, the planner and the turn report read it."""
    measured: dict[str, Any] | None
    """The turn's change set measured against its intent when it ended (``nodes.understanding.measure``)."""
    thread_id: str
    turn_id: str
    grant_id: str
    selected_ids: list[str]
    canvas_before: int
    canvas_after: int | None
    """The canvas version the finished turn's record gives (None until the turn is recorded)."""
    canvas_version: int
    seen_version: int
    """The canvas version the current step's proposal saw (observe's; commit moves ``canvas_version`` on)."""
    focus_ids: list[str]
    view: Annotated[str, EphemeralValue(str)]
    """The focused view the resolve node read for the current step (``nodes.resolve``): compact tables, bounded.
    It lives for one superstep (resolve's write, read by propose), so of a turn's checkpoints only the one after
    resolve carries it: every checkpoint stores the whole state, and a view in all of them was a third of a
    turn's checkpoint bytes."""
    step_index: int
    action: dict[str, Any] | None
    verdict: dict[str, Any] | None
    result: dict[str, Any] | None
    feedback: dict[str, Any] | None
    repair: dict[str, Any] | None
    rebuild: bool
    rebuilds: int
    rebuild_spent: dict[str, int]
    usage: dict[str, Any]
    steps: Annotated[list[dict[str, Any]], add_or_reset]
    touched_ids: Annotated[list[str], add_or_reset]
    state_turn_id: str
    answers: list[str]
    menu_asks: list[dict[str, Any]]
    """The model's ``more_tools`` calls this turn (``nodes.menu``): before which step, what it asked, what it was
    given; the tools given stay on the menu, and the calls stand in the conversation, for the rest of the turn."""
    clarification: dict[str, Any] | None
    failed: bool
    refused: bool
    done: bool
    outcome: str
    reply: str | None
    batched: bool
    """Whether the current action came from ``queued_calls`` (a later call of one message, not a new proposal)."""
    queued_calls: list[dict[str, Any]]
    """The other calls of a model message that made several (parallel tool calls), each proposed as a step of its own."""
    model_input: dict[str, int] | None
    """The size of the model calls that proposed the current step (``nodes.context_size.ModelInput``)."""


def made_this_turn(state: TurnState) -> list[str]:
    """The nodes this turn's steps made or changed, its skills' inner steps included (the usage's created ids)."""
    return [*(state.get("touched_ids") or []), *((state.get("usage") or {}).get("created_ids") or [])]
