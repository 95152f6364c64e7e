"""What judging a node means, between the feedback graph node and the evaluators (``skills/critique.py``).

The values and the interface both sides speak: the verdict (:class:`EvaluationResult`), what an evaluator is
(:class:`Evaluator`), what it knows beyond the canvas (:class:`EvaluationContext`) and a model's unusable
reply (:class:`EvaluationReplyError`).  Below both, so neither imports the other.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, Field

from store.models import CanvasNode


class EvaluationResult(BaseModel):
    """An evaluator's verdict on one node."""

    node_id: str
    score: float = Field(ge=0.0, le=1.0)
    passed: bool
    checks: dict[str, Any] = Field(default_factory=dict)
    notes: str = ""
    evaluator: str = "offline"


class Evaluator(Protocol):
    """Scores a (possibly not yet committed) node on what was asked of it.

    The turn loop passes an empty ``request``: each node is judged on its own
    intent (its inputs), never on the words of the whole turn's request.
    ``context`` (:class:`EvaluationContext`) holds the step's other
    uncommitted nodes and the previous version of each.
    """

    def evaluate(self, request: str, node: CanvasNode, context: Any = None) -> EvaluationResult: ...


class EvaluationContext(BaseModel):
    """What the evaluator knows beyond the canvas: the step's uncommitted nodes and their previous versions."""

    model_config = {"arbitrary_types_allowed": True}

    pending: dict[str, CanvasNode] = Field(default_factory=dict)
    previous: dict[str, CanvasNode] = Field(default_factory=dict)
    superseded_ok: set[str] = Field(default_factory=set, description="Ids this step itself marks superseded")


class EvaluationReplyError(ValueError):
    """A vision model's reply was not the JSON ``{score, passed, notes}`` it was asked for."""

    judge: dict[str, Any] | None = None
    """The model and the token usage of the unusable reply (it was billed all the same)."""
