"""decide repair: turn feedback into the next move (accept, retry with advice, or ask the person).

A failed candidate is not thrown away: it is committed and marked rejected, with
the evaluation node that explains why, so later turns can query it.
"""

from __future__ import annotations

from typing import Any

from nodes.deps import TurnDeps
from nodes.state import TurnState
from store.models import EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, Link, SetStatus


def evaluation_mutations(evaluations: list[dict[str, Any]], actor: str, turn_id: str) -> list[Any]:
    """Evaluation nodes (REFERENCES the node they judge) and status for failed candidates."""
    mutations: list[Any] = []
    for evaluation in evaluations:
        eval_id = new_id()
        mutations.append(CreateNode(
            id=eval_id, kind="evaluation", title=f"evaluation: {evaluation['score']:.2f}",
            status=NodeStatus.COMPLETED,
            inputs={"score": evaluation["score"], "passed": evaluation["passed"], "checks": evaluation["checks"],
                    "notes": evaluation["notes"], "evaluator": evaluation["evaluator"]},
            metadata={"provenance": {"actor": actor, "turn_id": turn_id, "tool": "evaluate"}}))
        mutations.append(Link(type=EdgeType.REFERENCES, source=eval_id, target=evaluation["node_id"],
                              properties={"role": "evaluates"}))
        if not evaluation["passed"]:
            mutations.append(SetStatus(node_id=evaluation["node_id"], status=NodeStatus.REJECTED,
                                       reason=evaluation["notes"] or "failed evaluation"))
    return mutations


def person_feedback_mutations(person: dict[str, Any], node_ids: list[str], turn_id: str) -> list[Any]:
    """A person's word on what a step made, as a feedback node (U) that REFERENCES those nodes."""
    actor = str(person.get("actor") or "person")
    feedback_id = new_id()
    mutations: list[Any] = [CreateNode(
        id=feedback_id, kind="feedback", title=str(person.get("text") or ("approved" if person.get("approve") else
                                                                        "rejected"))[:80],
        status=NodeStatus.COMPLETED,
        inputs={"text": person.get("text") or "", "approve": bool(person.get("approve", True)), "actor": actor,
                "node_ids": node_ids},
        metadata={"provenance": {"actor": actor, "turn_id": turn_id}})]
    for node_id in node_ids:
        mutations.append(Link(type=EdgeType.REFERENCES, source=feedback_id, target=node_id,
                              properties={"role": "feedback"}))
        if person.get("approve") is False:
            mutations.append(SetStatus(node_id=node_id, status=NodeStatus.REJECTED,
                                       reason=f"rejected by {actor}: {person.get('text') or ''}".strip()))
    return mutations


def make_repair(deps: TurnDeps):
    """The decide-repair graph node."""

    def repair(state: TurnState) -> dict[str, Any]:
        feedback = state.get("feedback")
        if not feedback:
            return {"repair": None}
        retries = sum(1 for s in state.get("steps") or [] if (s.get("repair") or {}).get("decision") == "retry")
        extra = evaluation_mutations(feedback.get("evaluations") or [], "evaluator", state["turn_id"])
        person = feedback.get("person")
        if isinstance(person, dict):
            extra += person_feedback_mutations(person, feedback.get("node_ids") or [], state["turn_id"])
        if feedback.get("passed"):
            decision = {"decision": "accept"}
        elif retries < deps.max_retries:
            notes = "; ".join(e["notes"] for e in feedback.get("evaluations") or [] if e.get("notes")) \
                or (person.get("text") if isinstance(person, dict) else None) or feedback.get("notes", "")
            decision = {"decision": "retry", "advice": notes or "the result did not pass; try again with changes"}
        else:
            decision = {"decision": "ask", "advice": "retries are used up; ask the person how to proceed"}
        return {"repair": {**decision, "mutations": [m.model_dump(mode="json") for m in extra]}}

    return repair
