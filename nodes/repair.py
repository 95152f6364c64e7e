"""decide repair: turn feedback into the next move (accept, retry with advice, or ask the person).

A failed candidate is not thrown away: it is committed and marked rejected, with
the evaluation node that explains why, so later turns can query it.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nodes.bridge import Usage
from nodes.context import TurnContext, turn_context
from nodes.state import TurnState
from nodes.feedback import version_links
from store.errors import CanvasError, is_engine_outage
from store.models import Direction, EdgeType, NodeStatus, new_id
from store.mutations import CreateNode, Link, SetStatus, mutation_adapter


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


def restore_mutations(canvas: Any, result: dict[str, Any], rejected: set[str], turn_id: str,
                      since: int | None = None) -> list[Any]:
    """Keep exactly one current version of every output when some of a step's new versions are rejected.

    What the step made from a rejected node is rejected with it (a clip of a rejected image, the cut of that
    clip); each rejected new version's previous version becomes current again: ``completed``, or ``stale``
    when something it was made from was replaced by a version that stays (a cut whose clips changed must
    be rebuilt, whatever its status), or when it was already stale as the turn began (canvas version
    ``since``): a person changed its inputs, so its picture no longer matches them, and a failed rebuild does
    not make it current.
    """
    if not rejected:
        return []
    versions = version_links(result)
    made_from: dict[str, set[str]] = {}
    for raw in result.get("mutations") or []:
        mutation = mutation_adapter.validate_python(raw)
        if mutation.op == "link" and mutation.type == EdgeType.GENERATED_FROM:
            made_from.setdefault(mutation.source, set()).add(mutation.target)
    closure = set(rejected)
    grown = True
    while grown:
        grown = False
        for node_id, upstream in made_from.items():
            if node_id not in closure and upstream & closure:
                closure.add(node_id)
                grown = True
    mutations: list[Any] = [SetStatus(node_id=n, status=NodeStatus.REJECTED, reason="made from a rejected version")
                            for n in sorted(closure - rejected)]
    replaced_by = {old: new for new, old in versions.items()}
    olds = [versions[new] for new in sorted(closure) if versions.get(new)]
    already = stale_at(canvas, olds, since) if since is not None and olds else set()
    for new in sorted(closure):
        old = versions.get(new)
        if old is None:
            continue
        upstream = {e.node.id for e in canvas.neighbours(old, [EdgeType.GENERATED_FROM], Direction.OUT)}
        changed = any(u in replaced_by and replaced_by[u] not in closure for u in upstream)
        why = ", its inputs changed" if changed else ", still stale as before this turn" if old in already else ""
        mutations.append(SetStatus(node_id=old, status=NodeStatus.STALE if changed or old in already
                                   else NodeStatus.COMPLETED,
                                   reason=f"{new} was rejected; restored{why} (turn {turn_id})"))
    return mutations


def stale_at(canvas: Any, node_ids: list[str], canvas_version: int) -> set[str]:
    """The nodes whose status was ``stale`` at ``canvas_version`` (one read of their histories)."""
    found = set()
    for node_id, history in canvas.node_histories(node_ids).items():
        then = [h for h in history if h.canvas_version <= canvas_version]
        if then and then[-1].status == NodeStatus.STALE:
            found.add(node_id)
    return found


def unmark_mutations(store: Any, node_ids: list[str], reason: str) -> list[SetStatus]:
    """Give back their status to nodes a ``mark_stale`` made stale, where that mark is still their last change.

    A node that was stale before the mark stays stale, and one that changed after it (rebuilt, or touched
    by another turn) is left as it is; ``expected_version`` refuses the write if it changes meanwhile.
    """
    mutations = []
    for node_id in dict.fromkeys(node_ids):
        history = store.node_history(node_id)
        current = history[-1]
        if current.status == NodeStatus.STALE and len(history) > 1 and history[-2].status != NodeStatus.STALE:
            mutations.append(SetStatus(node_id=node_id, status=history[-2].status, reason=reason,
                                       expected_version=current.version))
    return mutations


def undo_stale_marks(deps: TurnContext, state: TurnState, actor: str) -> list[str]:
    """After a person rejected a step, take back the stale marks this turn committed and did not repair.

    ``mark_stale`` commits as a step of its own, before the rebuild that may need approval; a rejected
    rebuild would otherwise leave outputs marked stale that the person chose to keep as they are.  The
    write goes through the ticket like any other, idempotently per rejected action; under a grant revoked
    meanwhile nothing is written (the marks stay, visible and repairable, as a failed turn's do).
    """
    marked = [node_id for step in state.get("steps") or [] if step.get("commit")
              and (step.get("action") or {}).get("tool") == "mark_stale"
              for node_id in (step.get("observation") or {}).get("stale") or []]
    if not marked:
        return []
    mutations = unmark_mutations(deps.bridge.store, marked,
                                 f"{actor} rejected the repair it was marked for (turn {state['turn_id']})")
    if not mutations:
        return []
    action_id = f"{(state.get('action') or {}).get('action_id') or state['turn_id']}-unmark"
    try:
        ticket = deps.bridge.authorize(action_id, mutations, deps.bridge.grants.get(state["grant_id"]),
                                       Usage(**(state.get("usage") or {})))
        deps.bridge.commit(mutations, ticket, thread_id=state["thread_id"], action_id=action_id, actor=actor,
                           observation={"unmarked": [m.node_id for m in mutations]})
    except CanvasError as refused:
        if is_engine_outage(refused):
            raise
        return []
    return [m.node_id for m in mutations]


def repair(state: TurnState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Decide what the feedback means: accept, retry with advice, or ask the person."""
    deps = turn_context(runtime)
    feedback = state.get("feedback")
    if not feedback:
        return {"repair": None}
    retries = sum(1 for s in state.get("steps") or [] if (s.get("repair") or {}).get("decision") == "retry")
    extra = evaluation_mutations(feedback.get("evaluations") or [], "evaluator", state["turn_id"])
    person = feedback.get("person")
    if isinstance(person, dict):
        extra += person_feedback_mutations(person, feedback.get("node_ids") or [], state["turn_id"])
    rejected = {e["node_id"] for e in feedback.get("evaluations") or [] if not e["passed"]}
    if isinstance(person, dict) and person.get("approve") is False:
        rejected |= set(feedback.get("node_ids") or [])
    restored = restore_mutations(deps.bridge.store, state.get("result") or {}, rejected, state["turn_id"],
                                 since=state.get("canvas_before"))
    extra += restored
    if feedback.get("passed"):
        decision = {"decision": "accept"}
    elif retries < deps.max_retries:
        notes = "; ".join(e["notes"] for e in feedback.get("evaluations") or [] if e.get("notes")) \
            or (person.get("text") if isinstance(person, dict) else None) or feedback.get("notes", "")
        decision = {"decision": "retry", "advice": notes or "the result did not pass; try again with changes"}
    else:
        decision = {"decision": "ask", "advice": "retries are used up; ask the person how to proceed"}
    # Restored versions whose inputs changed are stale: the agent sees their ids and rebuilds them.
    decision["restored_stale"] = [m.node_id for m in restored
                                  if isinstance(m, SetStatus) and m.status == NodeStatus.STALE]
    return {"repair": {**decision, "mutations": [m.model_dump(mode="json") for m in extra]}}
