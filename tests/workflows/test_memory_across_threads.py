"""Memory outlives a turn and a thread: a remembered preference shows up in a later thread's generated nodes."""

from __future__ import annotations

from store.memory import ProjectMemory
from store.models import NodeStatus


def test_a_remembered_preference_is_applied_in_a_new_thread(make_runtime, project):
    memory = ProjectMemory.open(project.state_dir)
    memory.add("prefer warm lighting")
    memory.close() if hasattr(memory, "close") else None

    runtime = make_runtime()
    outcome = runtime.run("a 2-shot short drama about two kites over a beach")
    assert outcome.outcome == "replied", outcome.reply
    images = [n for n in project.store.find_nodes(kind="image") if n.status != NodeStatus.REJECTED]
    assert len(images) == 2 and all(n.inputs["lighting"] == "warm" for n in images)

    explicit = runtime.run("a 2-shot short drama about a kite festival, lit cold")
    made = [n for n in project.store.find_nodes(kind="image") if n.metadata["provenance"]["turn_id"] == explicit.turn_id]
    assert len(made) == 2 and all(n.inputs["lighting"] == "cold" for n in made), "an explicit request beats memory"
