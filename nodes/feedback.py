"""collect feedback: an evaluator's scores for what this step generated, or a person's word via interrupt."""

from __future__ import annotations

from typing import Any, Protocol

from langgraph.types import interrupt
from pydantic import BaseModel, Field

from nodes.deps import TurnDeps
from nodes.state import TurnState
from store.models import CanvasNode
from store.mutations import mutation_adapter

MEDIA_KINDS = frozenset({"image", "video", "audio", "web", "slide", "deck"})


class EvaluationResult(BaseModel):
    """An evaluator's verdict on one node."""

    node_id: str
    score: float = Field(ge=0.0, le=1.0)
    passed: bool
    checks: dict[str, Any] = Field(default_factory=dict)
    notes: str = ""
    evaluator: str = "offline"


class Evaluator(Protocol):
    """Scores a (possibly not yet committed) node against the request."""

    def evaluate(self, request: str, node: CanvasNode) -> EvaluationResult: ...


def pending_nodes(result: dict[str, Any]) -> list[CanvasNode]:
    """Nodes a step is about to create, built from its pending CreateNode mutations."""
    nodes = []
    for raw in result.get("mutations") or []:
        mutation = mutation_adapter.validate_python(raw)
        if mutation.op == "create_node":
            nodes.append(CanvasNode(id=mutation.id, kind=mutation.kind, title=mutation.title, status=mutation.status,
                                    inputs=mutation.inputs, outputs=mutation.outputs, metadata=mutation.metadata))
    return nodes


def make_feedback(deps: TurnDeps):
    """The collect-feedback graph node."""

    def feedback(state: TurnState) -> dict[str, Any]:
        result = state.get("result") or {}
        observation = result.get("observation") or {}
        if "error" in observation:
            return {"feedback": {"source": "tool", "passed": False, "notes": observation["error"]}}
        evaluator: Evaluator | None = deps.extra.get("evaluator")
        created = [n for n in pending_nodes(result) if n.kind in MEDIA_KINDS and n.outputs]
        evaluations = []
        if evaluator is not None and deps.evaluate_generations:
            evaluations = [evaluator.evaluate(state["request"], node).model_dump() for node in created]
        person = None
        if deps.ask_person_for_feedback and created:
            person = interrupt({"type": "feedback", "node_ids": [n.id for n in created]})
        if not evaluations and person is None:
            return {"feedback": None}
        if person is not None and not isinstance(person, dict):
            person = {"approve": True, "text": str(person)}
        passed = all(e["passed"] for e in evaluations) and not (isinstance(person, dict) and person.get("approve") is False)
        return {"feedback": {"source": "person" if person is not None else "evaluator", "passed": passed,
                             "evaluations": evaluations, "person": person, "node_ids": [n.id for n in created]}}

    return feedback
