"""The interpreted request: one typed value per turn, small JSON (ids and words, never media).

:func:`nodes.understanding.interpret` makes it once at the start of a turn; the grant policy, the canvas
view, the offline planner and the turn report read it, and nothing else reads the request's text.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

ReferenceForm = Literal["number", "position", "every", "others", "description", "selection", "previous",
                        "pronoun", "kind", "id", "title"]


class Target(BaseModel):
    """One canvas node a clause acts on, resolved at the start of the turn."""

    id: str = Field(description="The node the person means (a shot, a slide, a page's code node, any node).")
    kind: str
    title: str = ""
    referred_as: str = Field(default="", description="The words that named it: 'the last shot', 'it'.")
    image_id: str | None = Field(default=None, description="A shot's current image (what an edit regenerates).")
    version: int | None = Field(default=None, description="The current version of what an edit changes.")
    derived: list[str] = Field(default_factory=list, description="Live nodes made from it (a shot's clip, the cut).")
    current: dict[str, Any] = Field(default_factory=dict, description="A shot image's render values (lighting, ...).")
    writes: list[str] = Field(default_factory=list, description="Existing nodes an operation on it rewrites besides "
                              "itself and what derives from it (a deck's slides, their contents and pictures).")


class Reference(BaseModel):
    """A phrase that points at canvas nodes, and what it resolved to."""

    said: str
    form: ReferenceForm
    domain: str = "shot"
    numbers: list[int] = Field(default_factory=list)
    position: str | None = None
    description: list[str] = Field(default_factory=list)
    target_ids: list[str] = Field(default_factory=list)
    candidates: list[dict[str, Any]] = Field(default_factory=list, description="Several matches: ask with these.")
    missing: list[str] = Field(default_factory=list, description="What it names that the canvas does not have.")


class Clause(BaseModel):
    """One part of a request with its own operation, targets and modifications."""

    text: str
    domain: str = Field(description="The reader that understood it: shots, questions, notes, page, slides, ...")
    operation: str = Field(description="edit, stale_repair, question, note, status, explore, build_narrative, ...")
    targets: list[Target] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    modifications: dict[str, Any] = Field(default_factory=dict)
    exclusions: list[Target] = Field(default_factory=list, description="What the request says not to touch.")
    args: dict[str, Any] = Field(default_factory=dict, description="Operation arguments (a question, a note, n).")
    available: bool = Field(default=True, description="False: understood, but no tool does it yet.")
    understood: list[str] = Field(default_factory=list, description="What each phrase was read as, in words.")

    def describe(self) -> str:
        """The clause as a person would say back what was understood."""
        return "; ".join(self.understood) or self.operation


ClarificationReason = Literal["unparsed", "no_target", "not_found", "ambiguous", "conflict", "unsupported",
                              "partial"]


class Clarification(BaseModel):
    """Why the request is asked about instead of carried out."""

    reason: ClarificationReason
    message: str
    understood: list[str] = Field(default_factory=list)
    not_understood: list[str] = Field(default_factory=list)
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    operation: str | None = Field(default=None, description="With 'unsupported': the operation recognised.")

    def payload(self, can_do: str = "") -> dict[str, Any]:
        """The clarification as a turn outcome carries it."""
        body: dict[str, Any] = {"type": "clarification", "reason": self.reason, "question": self.message,
                                "understood": self.understood, "can_do": can_do}
        if self.not_understood:
            body["not_understood"] = self.not_understood
        if self.candidates:
            body["candidates"] = self.candidates
        if self.missing:
            body["missing"] = self.missing
        if self.operation:
            body["operation"] = self.operation
        return body


class Intent(BaseModel):
    """What a request asks for, read once at the start of the turn."""

    request: str
    normalised: str = ""
    corrections: list[tuple[str, str]] = Field(default_factory=list, description="(typed, read as)")
    clauses: list[Clause] = Field(default_factory=list)
    unused: list[str] = Field(default_factory=list, description="Content words no reader understood.")
    clarification: Clarification | None = None
    previous_turn: str | None = Field(default=None, description="The turn 'that' / 'the same' referred to.")
    kinds: list[str] = Field(default_factory=list, description="Kinds of work (the grant policy's key).")
    titles: list[str] = Field(default_factory=list, description="Titles the request names (the view's focus).")
    node_ids: list[str] = Field(default_factory=list, description="Node ids written in the request.")
    removal: bool = Field(default=False, description="Whether it asks to delete or remove something.")

    @property
    def operation(self) -> str:
        """The operation of the request: its first clause's, 'clarify' when it is asked about, 'unknown'."""
        if self.clarification is not None:
            return "clarify"
        return self.clauses[0].operation if self.clauses else "unknown"

    @property
    def domain(self) -> str:
        """The domain of the first clause ('' when none)."""
        return self.clauses[0].domain if self.clauses else ""

    def target_ids(self) -> list[str]:
        """Every target of every clause, in order, once."""
        return list(dict.fromkeys(t.id for c in self.clauses for t in c.targets))

    def edited_images(self) -> list[str]:
        """The current images the shot edits regenerate."""
        return list(dict.fromkeys(t.image_id for c in self.clauses if c.operation == "edit"
                                  for t in c.targets if t.image_id))

    def read_as(self) -> str:
        """How typos were read, for the reply ("read 'mkae shto 6' as 'make shot 6'"), or ''."""
        if not self.corrections:
            return ""
        return f"(read '{lower_request(self.request)}' as '{self.normalised}')"

    def summary(self) -> dict[str, Any]:
        """The intent as the model's view shows it: operations, targets (ids and how they were named), words."""
        return self.model_dump(mode="json", exclude_none=True, exclude_defaults=True)


def lower_request(request: str) -> str:
    """The request as typed, in lower case on one line (how a reply quotes it)."""
    return " ".join(request.lower().split())
