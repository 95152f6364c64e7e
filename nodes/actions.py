"""What an agent may propose: a pydantic discriminated union of five action kinds.

The bridge executes an action only if it parses as one of these; anything else
a model emits (bad JSON, an unknown tool, wrong arguments) becomes a rejection
the model sees, never a crash.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from store.mutations import Mutation


class _Action(BaseModel):
    action_id: str = Field(description="Stable within a thread: (thread, action id) makes commits idempotent.")
    actor: str = Field(default="agent", description="agent, skill:<name>, subagent:<id>, person:<name>")
    rationale: str = ""


class ToolCall(_Action):
    """Run one tool from the manifest with JSON arguments."""

    kind: Literal["tool_call"] = "tool_call"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class CanvasMutation(_Action):
    """Change the canvas directly with a batch of mutations."""

    kind: Literal["canvas_mutation"] = "canvas_mutation"
    mutations: list[Mutation]


class Evaluation(_Action):
    """Ask an evaluator to score a node against the request."""

    kind: Literal["evaluation"] = "evaluation"
    node_id: str
    criteria: str = ""


class Clarification(_Action):
    """Ask the person a question and wait for the answer."""

    kind: Literal["clarification"] = "clarification"
    question: str


class Reply(_Action):
    """Answer the person; ends the turn."""

    kind: Literal["reply"] = "reply"
    text: str


Action = Annotated[ToolCall | CanvasMutation | Evaluation | Clarification | Reply, Field(discriminator="kind")]
"""Any proposed action."""

action_adapter: TypeAdapter[Action] = TypeAdapter(Action)
