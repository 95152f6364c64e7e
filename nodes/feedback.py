"""collect feedback: an evaluator's scores for what this step generated, or a person's word via interrupt."""

from __future__ import annotations

from typing import Any

from langgraph.types import interrupt
from langgraph.runtime import Runtime

from nodes.context import TurnContext, turn_context
from nodes.evaluation import EvaluationContext, Evaluator
from nodes.state import TurnState
from store.models import CanvasNode
from store.mutations import mutation_adapter

MEDIA_KINDS = frozenset({"image", "video", "audio", "web", "slide", "deck"})


def pending_nodes(result: dict[str, Any]) -> list[CanvasNode]:
    """Nodes a step is about to create, built from its pending CreateNode mutations."""
    nodes = []
    for raw in result.get("mutations") or []:
        mutation = mutation_adapter.validate_python(raw)
        if mutation.op == "create_node":
            nodes.append(CanvasNode(id=mutation.id, kind=mutation.kind, title=mutation.title, status=mutation.status,
                                    inputs=mutation.inputs, outputs=mutation.outputs, metadata=mutation.metadata))
    return nodes


def evaluation_context(deps: TurnContext, result: dict[str, Any]) -> EvaluationContext:
    """The step's uncommitted nodes and, for each new version, the node it replaces."""
    pending = {n.id: n for n in pending_nodes(result)}
    versions = version_links(result)
    olds = [o for o in versions.values() if o not in pending]
    found = {n.id: n for n in deps.bridge.store.get_nodes(olds, include_deleted=True)} if olds else {}
    previous = {new: pending.get(old) or found[old] for new, old in versions.items() if old in pending or old in found}
    return EvaluationContext(pending=pending, previous=previous)


def version_links(result: dict[str, Any]) -> dict[str, str]:
    """new id → previous version's id, from a step's pending VERSION_OF links."""
    links = {}
    for raw in result.get("mutations") or []:
        mutation = mutation_adapter.validate_python(raw)
        if mutation.op == "link" and mutation.type == "VERSION_OF":
            links[mutation.source] = mutation.target
    return links


def _charge_judges(deps: TurnContext, state: TurnState, evaluations: list[dict[str, Any]]) -> dict[str, Any]:
    """The usage update after the judge-model calls behind these evaluations were charged (none: no update)."""
    from nodes.bridge import Usage
    from tools.spend import charge_judges

    usage = Usage(**(state.get("usage") or {}))
    spent = charge_judges(deps.extra.get("spend"), usage, evaluations, thread_id=state.get("thread_id"),
                          turn_id=state.get("turn_id"), action_id=(state.get("action") or {}).get("action_id"))
    return {"usage": usage.model_dump()} if spent.calls else {}


def feedback(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Collect feedback on what the step made: the evaluator's scores, or a person's word."""
    deps = turn_context(runtime)
    result = state.get("result") or {}
    observation = result.get("observation") or {}
    if "error" in observation:
        return {"feedback": {"source": "tool", "passed": False, "notes": observation["error"]}}
    evaluator: Evaluator | None = deps.extra.get("evaluator")
    created = [n for n in pending_nodes(result) if n.kind in MEDIA_KINDS and n.outputs]
    evaluations = []
    charged: dict[str, Any] = {}
    if evaluator is not None and deps.evaluate_generations:
        context = evaluation_context(deps, result)
        evaluations = [evaluator.evaluate("", node, context).model_dump() for node in created]
        charged = _charge_judges(deps, state, evaluations)
    person = None
    if deps.ask_person_for_feedback and created:
        person = interrupt({"type": "feedback", "node_ids": [n.id for n in created]})
    if not evaluations and person is None:
        return {"feedback": None, **charged}
    if person is not None and not isinstance(person, dict):
        person = {"approve": True, "text": str(person)}
    passed = all(e["passed"] for e in evaluations) and not (isinstance(person, dict) and person.get("approve") is False)
    return {"feedback": {"source": "person" if person is not None else "evaluator", "passed": passed,
                         "evaluations": evaluations, "person": person, "node_ids": [n.id for n in created]},
            **charged}
