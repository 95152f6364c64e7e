"""Playbooks of the offline planner: what to call next for a kind of request, given the turn so far.

A playbook is a small state machine over the calls already made in the turn
(their tools, arguments and results), so it is deterministic and resumable:
re-running the same turn makes the same calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from nodes.models.targets import TargetSource


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
    tool_schemas: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The bound tools' OpenAI-format schemas by name (descriptions and input schemas, as a real model sees them)."""
    history: list[PriorCall] = field(default_factory=list)
    """Calls of earlier turns on the thread: only a transcript-reading planner sees them (the canvas agent's
    model is shown this turn only, and reads the canvas instead)."""
    selected: list[str] = field(default_factory=list)
    """Node ids the person selected, when the planner is told them in words (the chat baseline)."""

    @property
    def lowered(self) -> str:
        """The request in lower case."""
        return self.request.lower()

    def made(self, tool: str) -> list[PriorCall]:
        """Calls of one tool made so far."""
        return [c for c in self.calls if c.tool == tool]

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
        return Done(text=f"I could not run {last.tool}: {last.answer.get('message')}")
    return None


def stop_on_failure(planner_input: PlannerInput) -> Done | None:
    """End the turn when the last call was rejected or its tool failed (the reply says which and why)."""
    if (stop := stop_on_rejection(planner_input)) is not None:
        return stop
    last = planner_input.calls[-1] if planner_input.calls else None
    if last is not None and "error" in last.observation:
        return Done(text=f"{last.tool} failed: {last.observation['error']}")
    return None


class NotePlaybook:
    """"note: ..." adds a text node."""

    pattern = re.compile(r"^\s*(?:add a )?note[:\s]+(.+)$", re.IGNORECASE | re.DOTALL)

    def matches(self, p: PlannerInput) -> bool:
        return bool(self.pattern.match(p.request))

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_rejection(p)) is not None:
            return stop
        if not p.made("create_node"):
            text = self.pattern.match(p.request).group(1).strip()  # type: ignore[union-attr]
            return Call("create_node", {"kind": "text", "title": text[:60], "inputs": {"text": text},
                                        "status": "completed"})
        created = p.made("create_node")[-1].observation.get("created")
        return Done(text=f"Added note {created}.")


class StatusPlaybook:
    """"mark shot 3 as rejected" / "select <id>" sets a node's status."""

    pattern = re.compile(r"\b(?:mark|set)\b.*\bas\s+(selected|rejected|stale|completed)\b", re.IGNORECASE)

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or _canvas()

    def matches(self, p: PlannerInput) -> bool:
        return bool(self.pattern.search(p.request))

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_rejection(p)) is not None:
            return stop
        status = self.pattern.search(p.request).group(1).lower()  # type: ignore[union-attr]
        targets = [n for n in self.source.focus(p) if n.get("focus")]
        if not targets:
            return Done(text=f"I could not find the node you mean {self.source.where}; name it by title or id.")
        done = {c.args["node_id"] for c in p.made("set_status")}
        for node in targets:
            if node["id"] not in done:
                return Call("set_status", {"node_id": node["id"], "status": status})
        return Done(text=f"Marked {', '.join(sorted(done))} as {status}.")


class QueryPlaybook:
    """"how many images ..." / "list the ..." answers from a read-only lookup (a Cypher query on the canvas)."""

    pattern = re.compile(r"^\s*(how many|list|show|which|what)\b", re.IGNORECASE)

    def __init__(self, source: TargetSource | None = None) -> None:
        self.source = source or _canvas()

    def matches(self, p: PlannerInput) -> bool:
        return bool(self.pattern.match(p.request))

    def next_step(self, p: PlannerInput) -> Call | Done:
        if (stop := stop_on_rejection(p)) is not None:
            return stop
        kind = next((k for k in ("image", "video", "shot", "slide", "reference", "audio", "web", "text")
                     if k in p.lowered), None)
        rows = self.source.listing(p, kind)
        if isinstance(rows, Call):
            return rows
        if "how many" in p.lowered:
            return Done(text=f"{len(rows)} found." if rows and "id" in rows[0] else
                        ", ".join(f"{r['kind']}: {r['count']}" for r in rows) or "The canvas is empty.")
        lines = [f"- {r.get('title') or r.get('kind')} ({r.get('status') or r.get('count')}) {r.get('id', '')}" for r in rows]
        return Done(text="\n".join(lines) or "Nothing matches.")


def _canvas() -> TargetSource:
    from nodes.models.targets import CanvasTargets

    return CanvasTargets()


def default_playbooks(source: TargetSource | None = None) -> list[Playbook]:
    """The playbooks of the built-in offline planner, most specific first, finding targets with ``source``."""
    from nodes.models.edits import EditPlaybook
    from nodes.models.skill_playbook import SkillPlaybook
    from nodes.models.workflows import ExplorePlaybook, NarrativePlaybook, SlidesPlaybook, WebPlaybook

    source = source or _canvas()
    return [SkillPlaybook(), ExplorePlaybook(source), StatusPlaybook(source), NotePlaybook(), QueryPlaybook(source),
            EditPlaybook(source), WebPlaybook(source), SlidesPlaybook(), NarrativePlaybook()]
