"""Feedback and repair: an evaluator's or a person's verdict on what a step made decides the next move."""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from nodes.models.scripted import ScriptedModel, tool_call
from store.models import Direction, EdgeType, NodeStatus


def _image(prompt, lighting, **extra):
    return {"name": "generate_image", "args": {"prompt": prompt, "lighting": lighting, "width": 128, "height": 96,
                                               **extra}}


def test_a_failed_evaluation_rejects_the_candidate_and_the_retry_sees_why(make_runtime, project):
    seen_by_model: list[str] = []

    def retry_with_advice(messages):
        seen_by_model.append(str([m.content for m in messages if isinstance(m, ToolMessage)][-1]))
        retry = _image("a bright beach, high-key", "high-key")
        return tool_call(retry["name"], retry["args"])

    # Each node is judged on the intent it carries (not on the turn's words): asked for high-key, drawn at night.
    runtime = make_runtime(model=ScriptedModel(script=[
        _image("a bright beach, high-key", "night", intent={"lighting": "high-key"}), retry_with_advice, "done"]))
    outcome = runtime.run("a bright high-key beach picture")
    assert outcome.outcome == "replied"
    first, second = outcome.steps[0], outcome.steps[1]
    assert first["feedback"]["passed"] is False and first["repair"]["decision"] == "retry"
    assert second["feedback"]["passed"] is True and second["repair"]["decision"] == "accept"
    rejected = project.store.get_node(first["observation"]["node_id"])
    kept = project.store.get_node(second["observation"]["node_id"])
    assert rejected.status == NodeStatus.REJECTED and kept.status == NodeStatus.COMPLETED
    evaluations = [n.node for n in project.store.neighbours(rejected.id, [EdgeType.REFERENCES], Direction.IN)]
    assert [e.kind for e in evaluations] == ["evaluation"] and evaluations[0].inputs["passed"] is False
    assert "retry" in seen_by_model[0] and "bright" in seen_by_model[0].lower()


def test_a_person_rejects_a_candidate_through_an_interrupt(make_runtime, project):
    runtime = make_runtime(ask_person_for_feedback=True, evaluate_generations=False, model=ScriptedModel(script=[
        _image("Mira on the pier", "night"), _image("Mira on the pier", "warm"), "done"]))
    outcome = runtime.run("Mira on the pier")
    assert outcome.outcome == "interrupted" and outcome.interrupt["type"] == "feedback"
    candidate = outcome.interrupt["node_ids"][0]
    outcome = runtime.resume(outcome.thread_id, {"approve": False, "text": "too dark, make it warm",
                                                 "actor": "person:ana"})
    assert outcome.outcome == "interrupted"
    outcome = runtime.resume(outcome.thread_id, {"approve": True, "actor": "person:ana"})
    assert outcome.outcome == "replied"
    rejected = project.store.get_node(candidate)
    assert rejected.status == NodeStatus.REJECTED and "person:ana" in rejected.metadata["status_reason"]
    feedback = [n.node for n in project.store.neighbours(candidate, [EdgeType.REFERENCES], Direction.IN)
                if n.node.kind == "feedback"]
    assert feedback and feedback[0].inputs["text"] == "too dark, make it warm"
    turn = runtime.trajectories.turns(outcome.thread_id)[-1]
    assert turn["feedback"][0]["person"]["approve"] is False and turn["repair"][0]["decision"] == "retry"
