"""Playbooks of the offline planner: what to call next for an understood request, given the turn so far.

A playbook carries out one operation of the turn's intent (``nodes.understanding``: the request read once,
at the start of the turn); it never reads the request's words itself.  It is a small state machine over the
calls already made in the turn (their tools, arguments and results), so it is deterministic and resumable:
re-running the same turn makes the same calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from nodes.understanding.intent import Clause, Intent


@dataclass
class PriorCall:
    """A tool call made earlier in this turn and what came back."""

    tool: str
    args: dict[str, Any]
    answer: dict[str, Any]

    @property
    def rejected(self) -> bool:
        """Whether the bridge turned the call away."""
        return bool(self.answer.get("rejected"))

    @property
    def observation(self) -> dict[str, Any]:
        """The tool's observation (empty when rejected)."""
        return self.answer.get("observation") or {}


@dataclass
class PlannerInput:
    """Everything the planner knows: the request, the canvas view, memory and the turn so far."""

    request: str
    view: dict[str, Any]
    calls: list[PriorCall]
    notes: list[str] = field(default_factory=list)
    tools: set[str] = field(default_factory=set)
    history: list[PriorCall] = field(default_factory=list)
    """Calls of earlier turns on the thread: only a transcript-reading planner sees them (the canvas agent's
    model is shown this turn only, and reads the canvas instead)."""
    selected: list[str] = field(default_factory=list)
    """Node ids the person selected, when the planner is told them in words (the chat baseline)."""
    counts: dict[str, dict[str, int]] | None = None
    """The live nodes' counts by kind and status the view showed (``nodes.view.read_counts``), or None."""
    listed: tuple[str, list[dict[str, str]]] | None = None
    """The kind and every live node of it the view listed (``nodes.view.read_listed``), or None."""
    more_tools: set[str] = field(default_factory=set)
    """Granted tools the call did not bind, named by its ``more_tools`` schema (``nodes.menu``): the planner asks
    for one before it calls it."""

    @property
    def intent(self) -> Intent:
        """The turn's intent: the view's (read once at the start of the turn, with the references resolved on
        the canvas), or the request read with no canvas facts when the view has none."""
        cached = self.__dict__.get("_intent")
        if cached is None:
            shown = self.view.get("intent")
            if shown:  # the view leaves out the request (the next message), clause texts equal to it, domains
                clauses = [{"text": self.request, "domain": "", **c} for c in shown.get("clauses") or []]
                cached = Intent.model_validate({"request": self.request, **shown, "clauses": clauses})
            else:
                from nodes.understanding.pipeline import interpret

                cached = interpret(self.request)
            self.__dict__["_intent"] = cached
        return cached

    def clause(self, *operations: str) -> Clause | None:
        """The intent's first clause of one of these operations."""
        return next((c for c in self.intent.clauses if c.operation in operations), None)

    def operation_is(self, *operations: str) -> bool:
        """Whether the request was understood as one of these operations (and is not asked about)."""
        return self.intent.clarification is None and self.intent.operation in operations

    def made(self, tool: str) -> list[PriorCall]:
        """Calls of one tool made so far."""
        return [c for c in self.calls if c.tool == tool]

    def needs_approval(self, *tools: str) -> bool:
        """Whether the turn's grant asks a person to approve one of these tools (the view says which)."""
        return bool(set(tools) & set(self.view.get("approval_tools") or []))

    @property
    def memory(self) -> list[str]:
        """Remembered preferences shown in the view."""
        return list(self.view.get("memory") or [])

    @property
    def focus(self) -> list[dict[str, Any]]:
        """Nodes the view shows in full."""
        return list((self.view.get("canvas") or {}).get("focus") or [])


@dataclass
class Call:
    """Call a tool next."""

    tool: str
    args: dict[str, Any]


@dataclass
class Done:
    """Reply and end the turn; with ``clarification`` the reply is a question (the turn did not do the work)."""

    text: str
    clarification: dict[str, Any] | None = None
    failed: bool = False
    """The work was tried and did not succeed (e.g. the result failed its check): the turn's outcome is failed."""
    refused: bool = False
    """The grant does not allow what the work needs: the turn's outcome is refused."""


def clarification_answer(p: PlannerInput) -> str | None:
    """The person's answer to this turn's clarification question, if one came back."""
    for note in reversed(p.notes):
        if note.startswith(ANSWER_PREFIX):
            return note[len(ANSWER_PREFIX):].strip()
    return None


ANSWER_PREFIX = "Clarification answer: "
"""How the propose node hands a person's answer to a clarification back to the model."""


class Playbook(Protocol):
    """One kind of request the offline planner can carry out."""

    def matches(self, planner_input: PlannerInput) -> bool: ...

    def next_step(self, planner_input: PlannerInput) -> Call | Done: ...


def stop_on_rejection(planner_input: PlannerInput) -> Done | None:
    """End the turn politely when the last call was rejected or failed twice (no loops)."""
    if planner_input.calls and planner_input.calls[-1].rejected:
        last = planner_input.calls[-1]
        return Done(text=f"I could not run {last.tool}: {last.answer.get('message')}", failed=True)
    return None


def stop_on_failure(planner_input: PlannerInput) -> Done | None:
    """End the turn when the last call was rejected or its tool failed (the reply says which and why)."""
    if (stop := stop_on_rejection(planner_input)) is not None:
        return stop
    last = planner_input.calls[-1] if planner_input.calls else None
    if last is not None and "error" in last.observation:
        return Done(text=f"{last.tool} failed: {last.observation['error']}", failed=True)
    return None


class NotePlaybook:
    """"note: ..." adds a text node."""

    def matches(self, p: PlannerInput) -> bool:
        return p.operation_is("note")

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_rejection(p)) is not None:
            return stop
        if not p.made("create_node"):
            text = str((p.clause("note") or Clause(text="", domain="", operation="")).args.get("text") or "")
            return Call("create_node", {"kind": "text", "title": text[:60], "inputs": {"text": text},
                                        "status": "completed"})
        created = p.made("create_node")[-1].observation.get("created")
        return Done(text=f"Added note {created}.")
